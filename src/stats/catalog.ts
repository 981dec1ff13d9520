/**
 * The engine catalog of the stats endpoint (DESIGN.md §2): each engine slug and the normalized
 * paths of its endpoints, as the request log records them (http/audit.ts).
 */
export const ENGINE_CATALOG: Readonly<Record<string, readonly string[]>> = Object.freeze({
  capture: ['/v1/capture', '/capture'],
  content: ['/v1/content', '/content'],
  analyze: ['/v1/analyze', '/analyze'],
  'website-crawler': ['/v1/website/crawler'],
  usage: ['/v1/usage'],
  stats: ['/v1/stats'],
  jobs: ['/jobs/{job_id}'],
});

const MAX_PATH_CHARS = 200;
// A slug's shape; a value of this shape that is not in the catalog is an unknown engine (404).
const SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** The engine whose endpoint `path` (normalized) is, or null. */
export function engineOfPath(path: string): string | null {
  for (const [engine, paths] of Object.entries(ENGINE_CATALOG)) if (paths.includes(path)) return engine;
  return null;
}

export function isEngineSlug(value: string): boolean {
  return SLUG.test(value);
}

export function isKnownEngine(engine: string): boolean {
  return Object.hasOwn(ENGINE_CATALOG, engine);
}

/**
 * A caller's path as the request log writes paths: lower case, without query or fragment, without
 * trailing slashes, a job id as `{job_id}`; null when it cannot be a path (empty, too long, not
 * starting with `/`). Linear: no regular expression sees the caller's text.
 */
export function normalizePath(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_PATH_CHARS || !raw.startsWith('/')) return null;
  let path = raw;
  for (const mark of ['?', '#']) {
    const at = path.indexOf(mark);
    if (at !== -1) path = path.slice(0, at);
  }
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end -= 1;
  path = path.slice(0, end).toLowerCase();
  const parts = path.split('/');
  if (parts.length === 3 && parts[1] === 'jobs' && parts[2] !== '') return '/jobs/{job_id}';
  return path;
}
