import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./heap-growth.ts', import.meta.url));

/**
 * In a fresh Node process: sets the growth, keeps 400,000 objects, then promotes about 300 MB of
 * objects that die later (each lives through 200,000 allocations); prints how many full
 * collections that took. The count depends on the limit V8 sets after each, not on the machine's speed.
 */
const PROBE = `
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setHeapGrowth } from ${JSON.stringify(MODULE)};
setHeapGrowth(Number(process.argv[1]));
let full = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full += 1;
}).observe({ entryTypes: ['gc'] });
const kept = [];
for (let i = 0; i < 400_000; i++) kept.push({ i, text: 'kept ' + i });
// A collection's entry reaches the observer through two turns of the event loop's immediates;
// waiting on turns, not on a timer, counts every one however loaded the machine is.
const delivered = async () => {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
};
globalThis.gc();
await delivered();
const before = full;
const ring = new Array(200_000);
for (let i = 0; i < 6_000_000; i++) ring[i % ring.length] = { i, text: 'churn ' + i };
await delivered();
process.stdout.write(String(full - before));
`;

async function fullCollections(percent: number): Promise<number> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', '--input-type=module', '-e', PROBE, String(percent)],
    // tsx's cache would be left in the temporary directory.
    {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, TSX_DISABLE_CACHE: '1' },
    },
  );
  return Number(stdout);
}

describe('setHeapGrowth', () => {
  it('sets how far the old generation grows before V8 collects it in full', async () => {
    const [tight, loose] = await Promise.all([fullCollections(10), fullCollections(300)]);
    // Measured: 18 full collections at 10 %, 5-6 at 300 % (and 6 with V8's own choice).
    expect(tight).toBeGreaterThanOrEqual(2 * loose);
  });
});
