import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { WebcapError } from '../../errors.js';
import type { FetchResult, GuardedFetcher } from '../../net/guarded-fetch.js';
import { USER_AGENT } from '../crawler/crawl.js';
import { type SitemapKind, SitemapScanner } from './sitemap-xml.js';

export interface SitemapBounds {
  /** Sitemap files fetched, robots.txt excluded. */
  readonly maxFiles: number;
  /** Links returned. */
  readonly maxLinks: number;
  /** Largest sitemap file, after decompression. */
  readonly maxFileBytes: number;
  /** Deadline of the whole discovery, robots.txt included. */
  readonly timeoutMs: number;
}

export interface SiteSitemap {
  /**
   * The sitemap the links came from: the first root (a robots.txt Sitemap line, else /sitemap.xml,
   * else /sitemap_index.xml, as requested, before redirects) whose files yielded a link; '' when none did.
   */
  readonly source: string;
  /** Distinct page URLs found, before truncation at maxLinks. */
  readonly totalLinks: number;
  /** Distinct page URLs in the order found (breadth-first over the files, document order within each). */
  readonly links: string[];
  /** Human-readable notes: nothing found, a file that failed, bounds hit, truncation. */
  readonly warnings: string[];
}

export const DEFAULT_SITEMAP_BOUNDS: SitemapBounds = Object.freeze({
  maxFiles: 50,
  maxLinks: 50_000,
  // sitemaps.org's limit for one file, uncompressed.
  maxFileBytes: 50 * 1024 * 1024,
  timeoutMs: 30_000,
});

// RFC 9309 §2.5: crawlers must read at least 500 KiB of robots.txt; what follows is ignored.
const ROBOTS_MAX_BYTES = 500 * 1024;
const CONCURRENCY = 4;
// Characters scanned between turns of the event loop: a few milliseconds of work.
const SCAN_SLICE = 64 * 1024;
// Longer locs are skipped: sitemaps.org allows 2,048 characters, browsers far more, nobody 8 KiB.
const MAX_URL_LENGTH = 8192;
const SITEMAP_ACCEPT = 'application/xml, text/xml;q=0.9, text/plain;q=0.8, */*;q=0.5';
const ROBOTS_ACCEPT = 'text/plain, */*;q=0.5';
const FALLBACK_PATHS = ['/sitemap.xml', '/sitemap_index.xml'];

const gunzip = promisify(zlib.gunzip);

const EXPIRED = Symbol('expired');
type Expired = typeof EXPIRED;

type Fetched = { readonly result: FetchResult } | { readonly error: unknown };

interface QueuedFile {
  readonly url: string;
  /** The top-level sitemap it was reached from, reported as `source`. */
  readonly root: string;
}

/** A 53-bit string hash (cyrb53, public domain): links past maxLinks are counted by it instead of kept. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (0x1fffff & h2) + (h1 >>> 0);
}

/** The normalized URL when `text` is an absolute http(s) URL of reasonable length, else null. */
function absoluteHttpUrl(text: string): string | null {
  if (text.length > MAX_URL_LENGTH) return null;
  const scheme = text.slice(0, 8).toLowerCase();
  if (!scheme.startsWith('http://') && !scheme.startsWith('https://')) return null;
  try {
    return new URL(text).href;
  } catch {
    return null;
  }
}

/** The `Sitemap:` values of a robots.txt (RFC 9309 §2.2.4 "other records"), resolved against its URL, http(s) only. */
function robotsSitemaps(text: string, robotsUrl: string): string[] {
  const found: string[] = [];
  for (const rawLine of text.split(/\r\n?|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = hash === -1 ? rawLine : rawLine.slice(0, hash);
    const colon = line.indexOf(':');
    if (colon === -1 || line.slice(0, colon).trim().toLowerCase() !== 'sitemap') continue;
    const value = line.slice(colon + 1).trim();
    if (value === '') continue;
    try {
      const url = new URL(value, robotsUrl);
      if (url.protocol === 'http:' || url.protocol === 'https:') found.push(url.href);
    } catch {
      // Not a URL: the line is skipped, as RFC 9309 parsers skip what they cannot read.
    }
  }
  return found;
}

function httpOrigin(pageUrl: string): string | null {
  try {
    const url = new URL(pageUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

function failure(url: string, error: unknown): string {
  // Anything but the fetcher's own errors is a bug, not a sitemap that cannot be had.
  if (!(error instanceof WebcapError)) throw error;
  const detail = error.detail ?? error.code;
  return error.code === 'blocked'
    ? `${url}: refused by the network policy (${detail})`
    : `${url}: could not be fetched (${detail})`;
}

function notASitemap(kind: SitemapKind, root: string): string | undefined {
  if (kind === 'text') return 'not a sitemap (neither XML nor lines of URLs)';
  if (kind !== 'other') return undefined;
  if (root === 'html') return 'not a sitemap (an HTML page)';
  return root === '' ? 'not a sitemap (no XML element)' : `not a sitemap (root element <${root}>)`;
}

/** The deadline and the caller's signal as one promise to race every wait against. */
class Deadline {
  expired = false;
  readonly reached: Promise<Expired>;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: () => void = () => {};
  /** Aborts when the discovery ends, however it ends: fetches still under way stop with it. */
  private readonly stopFetches = new AbortController();
  readonly fetchSignal = this.stopFetches.signal;

  constructor(
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    let expire: (value: Expired) => void = () => {};
    let abort: (reason: unknown) => void = () => {};
    this.reached = new Promise<Expired>((resolve, reject) => {
      expire = resolve;
      abort = reject;
    });
    // Nobody may be waiting at the moment it rejects; the waits that are get the rejection too.
    this.reached.catch(() => {});
    this.timer = setTimeout(() => {
      this.expired = true;
      expire(EXPIRED);
    }, timeoutMs);
    if (signal !== undefined) {
      this.onAbort = () => abort(signal.reason);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** The work's value, or EXPIRED once the deadline passes; rejects when the signal aborts. */
  race<T>(work: Promise<T>): Promise<T | Expired> {
    return Promise.race([work, this.reached]);
  }

  /** Throws the abort reason, and says whether the deadline passed. */
  check(): boolean {
    this.signal?.throwIfAborted();
    return this.expired;
  }

  dispose(): void {
    this.stopFetches.abort();
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** One discovery's state: the breadth-first queue of files and the links gathered. */
class Discovery {
  private readonly deadline: Deadline;
  private readonly visited = new Set<string>();
  private readonly queue: QueuedFile[] = [];
  private next = 0;
  // Listed but not queued because maxFiles files were queued already (a file listed twice counts twice).
  private notRead = 0;
  private readonly links: string[] = [];
  private readonly kept = new Set<string>();
  private readonly pastLimit = new Set<number>();
  private total = 0;
  private source = '';
  private readonly warnings: string[] = [];

  constructor(
    private readonly fetcher: GuardedFetcher,
    private readonly bounds: SitemapBounds,
    signal: AbortSignal | undefined,
  ) {
    this.deadline = new Deadline(bounds.timeoutMs, signal);
  }

  async run(origin: string): Promise<SiteSitemap> {
    try {
      const listed = await this.readRobots(`${origin}/robots.txt`);
      if (listed === EXPIRED) return this.result();
      for (const url of listed) this.enqueue({ url, root: url });
      if (!(await this.drain())) return this.result();
      for (const path of FALLBACK_PATHS) {
        if (this.total > 0 || this.queue.length >= this.bounds.maxFiles) break;
        const url = `${origin}${path}`;
        this.enqueue({ url, root: url });
        if (!(await this.drain())) break;
      }
      return this.result();
    } finally {
      this.deadline.dispose();
    }
  }

  private result(): SiteSitemap {
    const { maxFiles, maxLinks, timeoutMs } = this.bounds;
    if (this.deadline.expired) {
      this.warnings.push(
        `sitemap discovery stopped at its deadline of ${timeoutMs} ms; what was found by then is returned`,
      );
    } else if (this.notRead > 0) {
      this.warnings.push(
        `stopped at ${maxFiles} sitemap files (maxFiles); ${this.notRead} more listed were not read`,
      );
    }
    if (this.total > this.links.length) {
      this.warnings.push(`links truncated to the first ${maxLinks} of ${this.total} (maxLinks)`);
    }
    if (this.total === 0) this.warnings.push('no sitemap with links found');
    return { source: this.source, totalLinks: this.total, links: this.links, warnings: this.warnings };
  }

  private fetch(url: string, accept: string): Promise<Fetched> {
    const signal = this.deadline.fetchSignal;
    return this.fetcher.fetch(url, { headers: { 'user-agent': USER_AGENT, accept }, signal }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
  }

  private async readRobots(robotsUrl: string): Promise<string[] | Expired> {
    const fetched = await this.deadline.race(this.fetch(robotsUrl, ROBOTS_ACCEPT));
    if (fetched === EXPIRED) return EXPIRED;
    if ('error' in fetched) {
      this.warnings.push(failure(robotsUrl, fetched.error));
      return [];
    }
    const { result } = fetched;
    // A missing robots.txt is the common case, not worth a warning: the fallbacks follow.
    if (result.status < 200 || result.status > 299) return [];
    return robotsSitemaps(result.body.subarray(0, ROBOTS_MAX_BYTES).toString('utf8'), result.finalUrl);
  }

  private enqueue(file: QueuedFile): void {
    if (this.visited.has(file.url)) return;
    if (this.queue.length >= this.bounds.maxFiles) {
      this.notRead++;
      return;
    }
    this.visited.add(file.url);
    this.queue.push(file);
  }

  /**
   * Reads the queue breadth-first, CONCURRENCY fetches ahead but each file handled in queue order,
   * so the links come out in the same order whatever the timing. False when the deadline passed.
   */
  private async drain(): Promise<boolean> {
    const inFlight: { readonly file: QueuedFile; readonly fetched: Promise<Fetched> }[] = [];
    for (;;) {
      while (inFlight.length < CONCURRENCY && this.next < this.queue.length) {
        const file = this.queue[this.next++] as QueuedFile;
        inFlight.push({ file, fetched: this.fetch(file.url, SITEMAP_ACCEPT) });
      }
      const head = inFlight.shift();
      if (head === undefined) return true;
      // Fetches still in flight past the deadline run to the fetcher's own timeout, unread.
      const fetched = await this.deadline.race(head.fetched);
      if (fetched === EXPIRED || !(await this.read(head.file, fetched))) return false;
    }
  }

  /** Takes one fetched file's links and child sitemaps; false when the deadline passed while reading it. */
  private async read(file: QueuedFile, fetched: Fetched): Promise<boolean> {
    const { url } = file;
    if ('error' in fetched) {
      this.warnings.push(failure(url, fetched.error));
      return true;
    }
    const { result } = fetched;
    if (result.finalUrl !== url) {
      // Redirected to a file read (or queued) already: its links are, or will be, taken from there.
      if (this.visited.has(result.finalUrl)) return true;
      this.visited.add(result.finalUrl);
    }
    if (result.status < 200 || result.status > 299) {
      this.warnings.push(`${url}: HTTP ${result.status}`);
      return true;
    }
    const body = await this.decompress(url, result.body);
    if (body === EXPIRED) return false;
    if (body === null) return true;
    let skipped = 0;
    let found = 0;
    const scanner = new SitemapScanner(body.toString('utf8'), (loc, kind) => {
      found++;
      const target = absoluteHttpUrl(loc);
      if (target === null) skipped++;
      else if (kind === 'index') this.enqueue({ url: target, root: file.root });
      else this.addLink(target, file.root);
    });
    while (!scanner.step(SCAN_SLICE)) {
      await nextTurn();
      if (this.deadline.check()) return false;
    }
    const notSitemap = notASitemap(scanner.kind, scanner.root);
    if (notSitemap !== undefined && found === 0) this.warnings.push(`${url}: ${notSitemap}`);
    if (scanner.truncated) {
      this.warnings.push(`${url}: the XML is cut short or malformed; the entries before the break were read`);
    }
    if (skipped > 0) {
      this.warnings.push(
        `${url}: ${skipped} ${skipped === 1 ? 'entry' : 'entries'} skipped (not an absolute http(s) URL)`,
      );
    }
    return true;
  }

  /**
   * The file's bytes, gunzipped when they start with the gzip magic (1f 8b) whatever the name or
   * type says; null (with a warning) when the file is too large or not valid gzip.
   */
  private async decompress(url: string, body: Buffer): Promise<Buffer | null | Expired> {
    const { maxFileBytes } = this.bounds;
    if (body[0] !== 0x1f || body[1] !== 0x8b) {
      if (body.length <= maxFileBytes) return body;
      this.warnings.push(`${url}: larger than ${maxFileBytes} bytes`);
      return null;
    }
    try {
      // maxOutputLength stops inflating there: a gzip bomb fails without being allocated whole.
      return await this.deadline.race(gunzip(body, { maxOutputLength: maxFileBytes }));
    } catch (error) {
      if (error instanceof RangeError && (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        this.warnings.push(`${url}: larger than ${maxFileBytes} bytes once decompressed`);
      } else if (error instanceof Error && typeof (error as NodeJS.ErrnoException).errno === 'number') {
        this.warnings.push(`${url}: not valid gzip`);
      } else {
        throw error;
      }
      return null;
    }
  }

  private addLink(url: string, root: string): void {
    if (this.kept.has(url)) return;
    if (this.links.length < this.bounds.maxLinks) {
      this.links.push(url);
      this.kept.add(url);
    } else {
      // Counted, not kept: a 53-bit hash undercounts only on a collision (odds ~1e-4 at 1M links).
      const hash = hash53(url);
      if (this.pastLimit.has(hash)) return;
      this.pastLimit.add(hash);
    }
    this.total++;
    if (this.source === '') this.source = root;
  }
}

/**
 * Finds a site's sitemap links from any page URL of it: every robots.txt `Sitemap:` line (all of them,
 * unioned), else /sitemap.xml, else /sitemap_index.xml, following indexes breadth-first within
 * `bounds`. Never throws for a sitemap that cannot be had (that is an empty result and a warning);
 * when the deadline passes it returns what it found with a warning. Rejects only with `signal`'s
 * reason when the signal aborts, since an aborted caller has no use for a partial result.
 */
export async function discoverSitemap(
  fetcher: GuardedFetcher,
  pageUrl: string,
  bounds: SitemapBounds,
  signal?: AbortSignal,
): Promise<SiteSitemap> {
  signal?.throwIfAborted();
  const origin = httpOrigin(pageUrl);
  if (origin === null) {
    return { source: '', totalLinks: 0, links: [], warnings: ['no sitemap for a URL that is not http(s)'] };
  }
  return new Discovery(fetcher, bounds, signal).run(origin);
}
