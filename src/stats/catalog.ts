/**
 * The request catalogue of the stats endpoint (DESIGN.md §2): each engine slug and the paths of
 * its endpoints, as the request log records them. It is not written down here but filled from
 * the routes the app registers (http/app.ts), each of which names its engine once, so that the
 * stats accept exactly the paths the request log can hold.
 */
export class RequestCatalog {
  private readonly paths = new Map<string, Set<string>>();

  /** Adds a route that leaves request-log rows: its engine slug and its URL as registered (`/jobs/:job_id`). */
  add(engine: string, url: string): void {
    const paths = this.paths.get(engine) ?? new Set<string>();
    paths.add(normalizePath(url));
    this.paths.set(engine, paths);
  }

  isKnownEngine(engine: string): boolean {
    return this.paths.has(engine);
  }

  /**
   * The endpoint a caller's path names: its engine and its path as the request log writes it
   * (`/jobs/job_01H...` is `/jobs/{job_id}`), or null when it is none (empty, longer than
   * MAX_PATH_CHARS, not starting with `/`, or not a registered path).
   */
  find(raw: string): { engine: string; path: string } | null {
    if (raw.length === 0 || raw.length > MAX_PATH_CHARS || !raw.startsWith('/')) return null;
    const segments = normalizePath(raw).split('/');
    for (const [engine, paths] of this.paths) {
      for (const path of paths) if (matches(path.split('/'), segments)) return { engine, path };
    }
    return null;
  }
}

const MAX_PATH_CHARS = 200;
// A slug's shape; a value of this shape that is not in the catalog is an unknown engine (404).
const SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;

export function isEngineSlug(value: string): boolean {
  return SLUG.test(value);
}

/**
 * A path as the request log writes it, from a route's URL or a caller's path alike: without query
 * or fragment, without trailing slashes, lower case, a parameter (`:job_id`) as `{job_id}`.
 * Linear: no regular expression sees the caller's text.
 */
export function normalizePath(raw: string): string {
  let path = raw;
  for (const mark of ['?', '#']) {
    const at = path.indexOf(mark);
    if (at !== -1) path = path.slice(0, at);
  }
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end -= 1;
  return path
    .slice(0, end)
    .toLowerCase()
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment))
    .join('/');
}

/** Whether a caller's path segments name a route's: a `{parameter}` stands for any one non-empty segment. */
function matches(route: readonly string[], segments: readonly string[]): boolean {
  if (route.length !== segments.length) return false;
  return route.every((part, i) => {
    const segment = segments[i] as string;
    return part.startsWith('{') && part.endsWith('}') ? segment !== '' : part === segment;
  });
}
