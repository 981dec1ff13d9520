import { fork } from 'node:child_process';
import { processCpuMs } from './cpu-time.js';
import { onExit } from './exit-hooks.js';

/** The bare server of hit-floor-process.ts, listening on 127.0.0.1. */
export interface HitFloor {
  readonly baseUrl: string;
  /** CPU time of its process so far, in ms. */
  cpuMs(): number;
  close(): Promise<void>;
}

/** Starts the floor of cache hits: a bare node:http server in its own process answering `bytes` to every request. */
export async function startHitFloor(bytes: Uint8Array, contentType: string): Promise<HitFloor> {
  const child = fork(new URL('./hit-floor-process.ts', import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const forget = onExit(() => child.kill('SIGTERM'));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the hit floor exited with ${code} before listening`)));
    child.once('error', reject);
    child.send({ base64: Buffer.from(bytes).toString('base64'), contentType });
  });
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid;
  if (pid === undefined) throw new Error('the hit floor started without a pid');
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    cpuMs: () => processCpuMs(pid),
    async close() {
      child.kill('SIGTERM');
      await exited;
      forget();
    },
  };
}
