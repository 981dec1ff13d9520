import { WebcapError } from '../errors.js';

/** The bounds of a password queue (docs/security.md, "The password queue"). */
export interface PasswordQueueBounds {
  /** Password operations (argon2 hashes and checks) running at once. */
  readonly running: number;
  /** Places one source (a client address, the CLI) may hold at once, running or waiting. */
  readonly perSource: number;
  /** Places all sources together may hold at once, running or waiting. */
  readonly total: number;
}

/** A place in the queue, taken at once or refused: used once by `run`, or given up by `leave`. */
export interface QueuePlace {
  /** Waits for the place's turn, runs `work` in it, and frees the place. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Frees the place unused; nothing once it has run or left. */
  leave(): void;
}

/**
 * A bounded, fair queue for password work: at most `running` operations at once, whatever the
 * burst, so that argon2 never holds more of libuv's shared thread pool (the pool that reads
 * files and answers dns.lookup) than that. A place is taken or refused at once (503 with
 * Retry-After), so a burst costs no memory and no wait beyond the bounds; turns go round the
 * sources waiting, one each, so that one address's burst delays another's sign-in by at most
 * one operation per source ahead of it.
 */
export class PasswordQueue {
  private runningNow = 0;
  private held = 0;
  private readonly heldBySource = new Map<string, number>();
  /** The turns waiting, by source; a Map keeps insertion order, which makes the round. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly bounds: PasswordQueueBounds) {}

  /** A place for `source`; 503 (Retry-After: 1) when the source or the whole queue holds all it may. */
  enter(source: string): QueuePlace {
    const mine = this.heldBySource.get(source) ?? 0;
    if (mine >= this.bounds.perSource || this.held >= this.bounds.total) {
      throw new WebcapError('unavailable', 'too many password checks at once; try again shortly', {
        retryAfterSeconds: 1,
      });
    }
    this.held += 1;
    this.heldBySource.set(source, mine + 1);
    let done = false;
    const free = () => {
      if (done) return false;
      done = true;
      this.held -= 1;
      const left = (this.heldBySource.get(source) ?? 1) - 1;
      if (left === 0) this.heldBySource.delete(source);
      else this.heldBySource.set(source, left);
      return true;
    };
    return {
      run: async (work) => {
        if (done) throw new Error('a password queue place is used once');
        await this.turn(source);
        try {
          return await work();
        } finally {
          free();
          this.next();
        }
      },
      leave: () => {
        free();
      },
    };
  }

  private turn(source: string): Promise<void> {
    if (this.runningNow < this.bounds.running) {
      this.runningNow += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const turns = this.waiting.get(source);
      if (turns === undefined) this.waiting.set(source, [resolve]);
      else turns.push(resolve);
    });
  }

  /** Hands the freed turn to the first source waiting, which then goes to the end of the round. */
  private next(): void {
    const first = this.waiting.entries().next();
    if (first.done === true) {
      this.runningNow -= 1;
      return;
    }
    const [source, turns] = first.value;
    const start = turns.shift();
    this.waiting.delete(source);
    if (turns.length > 0) this.waiting.set(source, turns);
    start?.();
  }
}
