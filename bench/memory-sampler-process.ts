import os from 'node:os';
import { treeMemoryBytes } from '../src/browser/process-tree.js';

/*
 * Child-process entry (forked by memory-sampler.ts): samples the PSS of the process tree under
 * argv[2] every argv[3] ms until the parent sends 'stop', then answers with the peak. Reading
 * smaps_rollup costs the kernel tens of ms for a Chromium tree, so it runs here, at the lowest
 * priority, rather than blocking the event loop that serves the shots.
 */

const pid = Number(process.argv[2]);
const intervalMs = Number(process.argv[3] ?? 200);
os.setPriority(19);

let peakBytes = 0;
let samples = 0;
let costMs = 0;
let timer: NodeJS.Timeout | undefined;
const startedAt = performance.now();

async function sample(): Promise<void> {
  const started = performance.now();
  peakBytes = Math.max(peakBytes, await treeMemoryBytes(pid));
  costMs += performance.now() - started;
  samples += 1;
  // The next sample is intervalMs after this one ended: a slow read never queues up reads.
  timer = setTimeout(sample, intervalMs);
}

process.once('message', () => {
  clearTimeout(timer);
  const elapsedMs = performance.now() - startedAt;
  process.send?.(
    {
      peakBytes,
      samples,
      sampleCostMs: costMs / Math.max(1, samples),
      meanIntervalMs: elapsedMs / Math.max(1, samples),
    },
    () => process.exit(0),
  );
});
// A parent that died without asking for the peak leaves no sampler behind.
process.once('disconnect', () => process.exit(0));
void sample();
// The parent starts its measured phase only now, with this process loaded and sampling.
process.send?.('ready');
