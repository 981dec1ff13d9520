import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { DistinctCount } from './distinct-count.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** The main thread's heap in use after a full collection, in bytes. */
function liveHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const url = (i: number) => `https://example.com/products/${i}?ref=sitemap`;

describe('distinct count', () => {
  it('is exact up to its limit, duplicates counted once', () => {
    const count = new DistinctCount(1000);
    for (let round = 0; round < 3; round++) for (let i = 0; i < 1000; i++) count.add(url(i));
    expect(count.size).toBe(1000);
    expect(count.estimated).toBe(false);
  });

  it('estimates past its limit within 2 %, never below the limit', () => {
    const count = new DistinctCount(1000);
    for (let i = 0; i < 1001; i++) count.add(url(i));
    expect(count.estimated).toBe(true);
    expect(count.size).toBeGreaterThan(1000);
    for (const total of [20_000, 300_000]) {
      const next = new DistinctCount(1000);
      for (let i = 0; i < total; i++) next.add(url(i));
      for (let i = 0; i < total; i += 7) next.add(url(i));
      expect(Math.abs(next.size - total) / total).toBeLessThan(0.02);
    }
  });

  it('holds bounded memory however many it counts: a million distinct strings in less than 4 MB', () => {
    const before = liveHeap();
    const count = new DistinctCount(10_000);
    for (let i = 0; i < 1_000_000; i++) count.add(url(i));
    const held = liveHeap() - before;
    // A set of a million 53-bit hashes alone holds about 30 MB.
    expect(held, `${(held / 1e6).toFixed(1)} MB held`).toBeLessThan(4 * 1024 * 1024);
    expect(Math.abs(count.size - 1_000_000) / 1_000_000).toBeLessThan(0.02);
  });
});
