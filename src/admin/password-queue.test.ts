import { describe, expect, it } from 'vitest';
import { WebcapError } from '../errors.js';
import { PasswordQueue } from './password-queue.js';

/** Work that ends when the test says so, recording when it started. */
function gated(log: string[], name: string) {
  let end: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  return {
    work: async () => {
      log.push(name);
      await ended;
      return name;
    },
    end: () => end(),
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function refusal(run: () => unknown): WebcapError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebcapError) return error;
  }
  throw new Error('not refused');
}

describe('PasswordQueue', () => {
  it('runs one operation at a time, the turns going round the sources waiting', async () => {
    const queue = new PasswordQueue({ running: 1, perSource: 4, total: 32 });
    const log: string[] = [];
    const a1 = gated(log, 'a1');
    const a2 = gated(log, 'a2');
    const a3 = gated(log, 'a3');
    const b1 = gated(log, 'b1');
    const runs = [
      queue.enter('a').run(a1.work),
      queue.enter('a').run(a2.work),
      queue.enter('a').run(a3.work),
      queue.enter('b').run(b1.work),
    ];
    await flush();
    expect(log).toEqual(['a1']);
    a1.end();
    await flush();
    expect(log).toEqual(['a1', 'a2']);
    // b waited behind one of a's, not all of them.
    a2.end();
    await flush();
    expect(log).toEqual(['a1', 'a2', 'b1']);
    b1.end();
    await flush();
    a3.end();
    expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'a3', 'b1']);
  });

  it("refuses a place at once (503, Retry-After 1) beyond a source's bound or the queue's, and frees places that leave or fail", async () => {
    const queue = new PasswordQueue({ running: 1, perSource: 2, total: 3 });
    const log: string[] = [];
    const first = gated(log, 'first');
    const running = queue.enter('a').run(first.work);
    const waiting = queue.enter('a');
    const busy = refusal(() => queue.enter('a'));
    expect(busy.code).toBe('unavailable');
    expect(busy.options.retryAfterSeconds).toBe(1);
    const other = queue.enter('b');
    expect(refusal(() => queue.enter('c')).code).toBe('unavailable');
    other.leave();
    other.leave();
    const failing = queue.enter('c').run(async () => {
      throw new Error('argon2 failed');
    });
    first.end();
    await running;
    await expect(failing).rejects.toThrow('argon2 failed');
    expect(await waiting.run(async () => 'ran')).toBe('ran');
    // Everything is free again.
    const places = [queue.enter('a'), queue.enter('a'), queue.enter('b')];
    expect(await Promise.all(places.map((place) => place.run(async () => 1)))).toEqual([1, 1, 1]);
  });
});
