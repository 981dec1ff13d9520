import { WebcapError } from '../errors.js';

interface Pending<I, O> {
  readonly item: I;
  readonly resolve: (value: O) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: items submitted while a batch is being written wait and go together in the next
 * one, so that N concurrent callers pay for one transaction instead of N. An idle caller waits one
 * turn of the event loop (so that requests read in the same turn share a batch), never a timer.
 * A batch that fails is retried one item at a time, so one caller's failure is never another's;
 * unless the store was unavailable, which every item would run into again, one wait after another.
 */
export class GroupCommit<I, O> {
  private queue: Pending<I, O>[] = [];
  private draining = false;

  /** `write` answers each item of a batch, in order. */
  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((p) => p.item));
        for (const [i, p] of batch.entries()) p.resolve(results[i] as O);
      } catch (error) {
        if (batch.length === 1 || (error instanceof WebcapError && error.code === 'unavailable')) {
          for (const p of batch) p.reject(error);
          continue;
        }
        for (const p of batch) {
          await this.write([p.item]).then(([result]) => p.resolve(result as O), p.reject);
        }
      }
    }
    this.draining = false;
  }
}
