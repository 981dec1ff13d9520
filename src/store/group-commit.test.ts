import { describe, expect, it } from 'vitest';
import { WebcapError } from '../errors.js';
import { GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes what arrives in one turn together, and what arrives meanwhile in the next batch', async () => {
    const batches: number[][] = [];
    let later: Promise<number>[] = [];
    const group = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) later = [group.submit(10), group.submit(11)];
      await new Promise((resolve) => setTimeout(resolve, 5));
      return items.map((n) => n * 2);
    });
    const first = await Promise.all([1, 2, 3].map((n) => group.submit(n)));
    expect(first).toEqual([2, 4, 6]);
    expect(await Promise.all(later)).toEqual([20, 22]);
    expect(batches).toEqual([
      [1, 2, 3],
      [10, 11],
    ]);
  });

  it('caps a batch at maxBatch items', async () => {
    const sizes: number[] = [];
    const group = new GroupCommit<number, number>(async (items) => {
      sizes.push(items.length);
      return items;
    }, 4);
    await Promise.all(Array.from({ length: 10 }, (_, i) => group.submit(i)));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('retries a failed batch item by item, so only the item that fails is refused', async () => {
    const group = new GroupCommit<number, number>(async (items) => {
      if (items.includes(2)) throw new Error('two is refused');
      return items;
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => group.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[1]).toMatchObject({ reason: new Error('two is refused') });
  });

  it('refuses every item of a batch at once when the store is unavailable, without a retry each', async () => {
    let writes = 0;
    const down = new WebcapError('unavailable', 'database unreachable');
    const group = new GroupCommit<number, number>(async () => {
      writes += 1;
      throw down;
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => group.submit(n)));
    expect(results).toEqual([1, 2, 3].map(() => ({ status: 'rejected', reason: down })));
    expect(writes).toBe(1);
  });
});
