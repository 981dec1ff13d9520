import { fork } from 'node:child_process';
import type autocannon from 'autocannon';
import type { Service } from './service.js';

export interface CacheHitResult {
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly durationSeconds: number;
  readonly connections: number;
  /** CPU the service's process spent per hit: 1000 / this is what one free core could serve. */
  readonly serviceCpuMsPerRequest: number;
}

/** Runs autocannon in a child process (cache-load.ts) and returns its result. */
export function loadFromChild(options: autocannon.Options): Promise<autocannon.Result> {
  const child = fork(new URL('./cache-load.ts', import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (result) => resolve(result as autocannon.Result));
    child.once('exit', (code) => reject(new Error(`autocannon exited with ${code} before answering`)));
    child.once('error', reject);
    child.send(options);
  });
}

/**
 * Cache hits per second: one priming call renders and stores the capture, a second must answer
 * `x-webcap-cache: hit`, then autocannon repeats that same call, 3 s unmeasured, then measured. Every hit is a billed call
 * (auth, reservation and commit in the database, blob read), without a browser. The load comes
 * from another process; it shares the machine's cores with the service.
 */
export async function measureCacheHits(
  service: Service,
  target: string,
  options: { durationSeconds: number; connections: number },
): Promise<CacheHitResult> {
  const path = service.capturePath(target, { cache: 'true' });
  const headers = { 'x-api-key': service.key };
  for (const expected of ['miss', 'hit']) {
    const response = await fetch(`${service.baseUrl}${path}`, { headers });
    await response.arrayBuffer();
    const cache = response.headers.get('x-webcap-cache');
    if (response.status !== 200 || cache !== expected) {
      throw new Error(
        `priming call answered ${response.status} with x-webcap-cache ${cache}, not ${expected}`,
      );
    }
  }
  // Unmeasured load first: the hit path is compiled by the JIT only after a few thousand calls.
  await loadFromChild({
    url: `${service.baseUrl}${path}`,
    headers,
    connections: options.connections,
    duration: 3,
  });
  const cpuBefore = service.cpuMs();
  const result = await loadFromChild({
    url: `${service.baseUrl}${path}`,
    headers,
    connections: options.connections,
    duration: options.durationSeconds,
  });
  const cpuMs = service.cpuMs() - cpuBefore;
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    durationSeconds: result.duration,
    connections: options.connections,
    serviceCpuMsPerRequest: cpuMs / Math.max(1, result.requests.total),
  };
}
