import { fork } from 'node:child_process';
import type autocannon from 'autocannon';
import { quantile } from './load.js';
import type { Service } from './service.js';

export interface CacheHitResult {
  /** Requests answered ÷ the seconds measured, over every slice. */
  readonly requestsPerSecond: number;
  /** The median of the slices' p50s and the largest of their p99s. */
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly durationSeconds: number;
  readonly connections: number;
  /** The measured run in this many slices, taken in turn with the other services' (one without). */
  readonly slices: number;
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

interface Tally {
  requests: number;
  seconds: number;
  non2xx: number;
  errors: number;
  cpuMs: number;
  p50s: number[];
  p99s: number[];
}

/** One priming call renders and stores the capture, a second must answer `x-webcap-cache: hit`. */
async function prime(service: Service, path: string): Promise<void> {
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
}

/**
 * Cache hits per second of each service: primed (prime()), then autocannon repeats that same
 * call, 3 s unmeasured, then `durationSeconds` measured in `slices` slices. With more than one
 * service the slices alternate between them, the first service of a slice rotating (A B, B A,
 * A B...), so a busy or quiet moment of the machine, and a slow drift, fall on each alike. Every
 * hit is a billed call (auth, reservation and commit in the database, blob read), without a
 * browser. The load comes from another process; it shares the machine's cores with the service.
 */
export async function measureCacheHits(
  services: readonly Service[],
  target: string,
  options: { durationSeconds: number; connections: number; slices: number },
): Promise<CacheHitResult[]> {
  const path = services[0]?.capturePath(target, { cache: 'true' }) ?? '';
  const load = (service: Service, duration: number) =>
    loadFromChild({
      url: `${service.baseUrl}${path}`,
      headers: { 'x-api-key': service.key },
      connections: options.connections,
      duration,
    });
  for (const service of services) {
    await prime(service, path);
    // Unmeasured load first: the hit path is compiled by the JIT only after a few thousand calls.
    await load(service, 3);
  }
  const tallies = services.map(
    (): Tally => ({ requests: 0, seconds: 0, non2xx: 0, errors: 0, cpuMs: 0, p50s: [], p99s: [] }),
  );
  const sliceSeconds = options.durationSeconds / options.slices;
  for (let slice = 0; slice < options.slices; slice++) {
    for (let k = 0; k < services.length; k++) {
      const index = (slice + k) % services.length;
      const service = services[index] as Service;
      const tally = tallies[index] as Tally;
      const cpuBefore = service.cpuMs();
      const result = await load(service, sliceSeconds);
      tally.cpuMs += service.cpuMs() - cpuBefore;
      tally.requests += result.requests.total;
      tally.seconds += result.duration;
      tally.non2xx += result.non2xx;
      tally.errors += result.errors;
      tally.p50s.push(result.latency.p50);
      tally.p99s.push(result.latency.p99);
    }
  }
  return tallies.map((tally) => ({
    requestsPerSecond: tally.requests / tally.seconds,
    latencyP50Ms: quantile(tally.p50s, 0.5),
    latencyP99Ms: Math.max(...tally.p99s),
    requests: tally.requests,
    non2xx: tally.non2xx,
    errors: tally.errors,
    durationSeconds: tally.seconds,
    connections: options.connections,
    slices: options.slices,
    serviceCpuMsPerRequest: tally.cpuMs / Math.max(1, tally.requests),
  }));
}
