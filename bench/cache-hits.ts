import { startHitFloor } from './hit-floor.js';
import { quantile } from './load.js';
import type { Service } from './service.js';
import { loadWithWrk } from './wrk-load.js';

export interface CacheHitResult {
  /** What answered: `floor`, or a service's label with `key` or `signed link`. */
  readonly name: string;
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
  /** The measured run in this many slices, taken in turn with the other subjects'. */
  readonly slices: number;
  /** CPU the answering process spent per hit: 1000 / this is what one free core could serve. */
  readonly serviceCpuMsPerRequest: number;
}

/** What the cache-hit run measured, every row in the same slices taken in turn. */
export interface CacheHitRun {
  /** Each service's hits with its key (the request of the bench's other rows), in the order given. */
  readonly withKey: readonly CacheHitResult[];
  /** Each service's hits through a signed link of the same account, on the same target, in the same order. */
  readonly signed: readonly CacheHitResult[];
  /** A bare node:http server answering the same bytes (hit-floor.ts): what the machine can do for that payload. */
  readonly floor: CacheHitResult;
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

/** One thing answering the cached call under load, and the process whose CPU it spends. */
interface HitSubject {
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  cpuMs(): number;
}

/** A GET that must answer 200 with `x-webcap-cache: expected`; resolves with its bytes and type. */
async function expectCache(
  url: string,
  headers: Record<string, string>,
  expected: 'miss' | 'hit',
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const response = await fetch(url, { headers });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const cache = response.headers.get('x-webcap-cache');
  if (response.status !== 200 || cache !== expected) {
    throw new Error(`priming call answered ${response.status} with x-webcap-cache ${cache}, not ${expected}`);
  }
  return { bytes, contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
}

/**
 * Cache hits per second of each service, with its key and through a signed link, and of the
 * floor. Each service is primed: one call renders and stores the capture, then the key's and the
 * signed link's must answer `x-webcap-cache: hit`; the floor answers the bytes of that hit. Then
 * wrk repeats the call, 3 s unmeasured for each subject, then `durationSeconds` measured
 * in `slices` slices. The slices alternate between the subjects, the first of a slice rotating,
 * so a busy or quiet moment of the machine, and a slow drift, fall on each alike. Every hit is a
 * billed call (auth, rate cap, ledger, request log), without a browser. The load comes from
 * another process; it shares the machine's cores with the subject.
 */
export async function measureCacheHits(
  services: readonly { readonly service: Service; readonly label: string }[],
  target: string,
  options: { durationSeconds: number; connections: number; slices: number },
): Promise<CacheHitRun> {
  const withKey: HitSubject[] = [];
  const signed: HitSubject[] = [];
  let payload: { bytes: Uint8Array; contentType: string } | null = null;
  for (const { service, label } of services) {
    const path = service.capturePath(target, { cache: 'true' });
    const headers = { 'x-api-key': service.key };
    await expectCache(`${service.baseUrl}${path}`, headers, 'miss');
    payload ??= await expectCache(`${service.baseUrl}${path}`, headers, 'hit');
    const link = `${service.baseUrl}${await service.signedLink(path)}`;
    await expectCache(link, {}, 'hit');
    const cpuMs = () => service.cpuMs();
    withKey.push({ name: `${label}, key`, url: `${service.baseUrl}${path}`, headers, cpuMs });
    signed.push({ name: `${label}, signed link`, url: link, headers: {}, cpuMs });
  }
  if (payload === null) throw new Error('cache hits need a service');
  const floor = await startHitFloor(payload.bytes, payload.contentType);
  try {
    const floorSubject: HitSubject = {
      name: 'floor (bare node:http)',
      url: `${floor.baseUrl}/`,
      headers: {},
      cpuMs: () => floor.cpuMs(),
    };
    const results = await measureSubjects([floorSubject, ...withKey, ...signed], options);
    const [floorResult, ...rest] = results as [CacheHitResult, ...CacheHitResult[]];
    return { floor: floorResult, withKey: rest.slice(0, withKey.length), signed: rest.slice(withKey.length) };
  } finally {
    await floor.close();
  }
}

/** Each subject warmed up, then measured in slices taken in turn (measureCacheHits). */
async function measureSubjects(
  subjects: readonly HitSubject[],
  options: { durationSeconds: number; connections: number; slices: number },
): Promise<CacheHitResult[]> {
  const load = (subject: HitSubject, seconds: number) =>
    loadWithWrk({ url: subject.url, headers: subject.headers, connections: options.connections, seconds });
  // Unmeasured load first: the hit path is compiled by the JIT only after a few thousand calls.
  for (const subject of subjects) await load(subject, 3);
  const tallies = subjects.map(
    (): Tally => ({ requests: 0, seconds: 0, non2xx: 0, errors: 0, cpuMs: 0, p50s: [], p99s: [] }),
  );
  const sliceSeconds = options.durationSeconds / options.slices;
  for (let slice = 0; slice < options.slices; slice++) {
    for (let k = 0; k < subjects.length; k++) {
      const index = (slice + k) % subjects.length;
      const subject = subjects[index] as HitSubject;
      const tally = tallies[index] as Tally;
      const cpuBefore = subject.cpuMs();
      const result = await load(subject, sliceSeconds);
      tally.cpuMs += subject.cpuMs() - cpuBefore;
      tally.requests += result.requests;
      tally.seconds += result.seconds;
      tally.non2xx += result.non2xx;
      tally.errors += result.errors;
      tally.p50s.push(result.latencyP50Ms);
      tally.p99s.push(result.latencyP99Ms);
    }
  }
  return tallies.map((tally, index) => ({
    name: (subjects[index] as HitSubject).name,
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

/**
 * The run as a table: per row its req/s, latency and CPU per hit, and both as ratios to the
 * floor's (req/s over the floor's; CPU per hit over the floor's), the floor first.
 */
export function formatCacheHits(run: CacheHitRun): string {
  const rows = [run.floor, ...run.withKey, ...run.signed];
  const header = [
    'cache hits',
    'req/s',
    'p50 ms',
    'p99 ms',
    'cpu ms/hit',
    'req/s/floor',
    'cpu/floor',
    'non-2xx',
  ];
  const body = rows.map((row) => [
    row.name,
    row.requestsPerSecond.toFixed(0),
    row.latencyP50Ms.toFixed(2),
    row.latencyP99Ms.toFixed(2),
    row.serviceCpuMsPerRequest.toFixed(3),
    row === run.floor ? '' : (row.requestsPerSecond / run.floor.requestsPerSecond).toFixed(2),
    row === run.floor ? '' : (row.serviceCpuMsPerRequest / run.floor.serviceCpuMsPerRequest).toFixed(2),
    String(row.non2xx + row.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  const first = rows[0];
  return [
    `cache hits: ${first?.connections} connections, ${first?.durationSeconds.toFixed(0)} s each in ${first?.slices} slices taken in turn` +
      " (cpu: the answering process's own, not the load generator's)",
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...body.map(line),
  ].join('\n');
}
