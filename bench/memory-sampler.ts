import { fork } from 'node:child_process';

/** What a sampler saw: the highest PSS of the tree, in bytes, and what sampling cost. */
export interface MemoryPeak {
  readonly peakBytes: number;
  readonly samples: number;
  /** Average time one sample took to read /proc (kernel work: page-table walks). */
  readonly sampleCostMs: number;
  /** Average time from one sample's start to the next's: 200 ms plus the cost, more when the machine is busy. */
  readonly meanIntervalMs: number;
}

/** Peak memory of a browser's process tree, sampled by a child process while a phase runs. */
export interface MemorySampler {
  stop(): Promise<MemoryPeak>;
}

/**
 * Samples the proportional set size of the tree under `pid` every `intervalMs` in a separate,
 * low-priority process (memory-sampler-process.ts), so that reading /proc never blocks the event
 * loop of the service or puppeteer client being measured, and yields the CPU to them (nice 19).
 */
export async function sampleMemory(pid: number, intervalMs = 200): Promise<MemorySampler> {
  const child = fork(
    new URL('./memory-sampler-process.ts', import.meta.url),
    [String(pid), String(intervalMs)],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the memory sampler exited with ${code}`)));
    child.once('error', reject);
  });
  child.removeAllListeners('exit');
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        child.once('message', (peak) => resolve(peak as MemoryPeak));
        child.once('exit', (code) =>
          reject(new Error(`the memory sampler exited with ${code} before answering`)),
        );
        child.send('stop');
      }),
  };
}
