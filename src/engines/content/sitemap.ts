import { setImmediate as nextTurn } from 'node:timers/promises';
import zlib from 'node:zlib';
import { WebcapError } from '../../errors.js';
import type { FetchResult, GuardedFetcher } from '../../net/guarded-fetch.js';
import type { UpstreamProxy } from '../../net/upstream-proxy.js';
import { USER_AGENT } from '../crawler/crawler.js';
import { DistinctCount } from './distinct-count.js';
import { type SitemapKind, SitemapScanner } from './sitemap-xml.js';

/** What one discovery may spend: from config (SITEMAP_MAX_FILES, SITEMAP_MAX_LINKS, SITEMAP_MAX_FILE_BYTES, SITEMAP_TIMEOUT_MS). */
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
  /**
   * Distinct page URLs found, before truncation at maxLinks: exact up to maxLinks + 65,536, an
   * estimate (about ±1 %, the warning says so) past that.
   */
  readonly totalLinks: number;
  /** Distinct page URLs in the order found (breadth-first over the files, document order within each). */
  readonly links: string[];
  /** Human-readable notes: nothing found, a file that failed, bounds hit, truncation. */
  readonly warnings: string[];
}

export interface DiscoveryOptions {
  /** Ends the discovery (it rejects with the signal's reason) and its fetches. */
  readonly signal?: AbortSignal;
  /** The caller's proxy: robots.txt and every sitemap file are fetched through it. */
  readonly proxy?: UpstreamProxy | null;
}

// RFC 9309 §2.5: crawlers must read at least 500 KiB of robots.txt; what follows is ignored.
const ROBOTS_MAX_BYTES = 500 * 1024;
const CONCURRENCY = 4;
// Bytes scanned between turns of the event loop: a few milliseconds of work (about 2,000 locs).
const SCAN_SLICE = 64 * 1024;
// Longer locs are skipped: sitemaps.org allows 2,048 characters, browsers far more, nobody 8 KiB.
const MAX_URL_LENGTH = 8192;
// Distinct links past maxLinks counted exactly (by hash, about 2 MB); past that, estimated in 16 KiB.
const EXACT_PAST_LIMIT = 65_536;
const SITEMAP_ACCEPT = 'application/xml, text/xml;q=0.9, text/plain;q=0.8, */*;q=0.5';
const ROBOTS_ACCEPT = 'text/plain, */*;q=0.5';
const FALLBACK_PATHS = ['/sitemap.xml', '/sitemap_index.xml'];

// Inflated in pieces of this size, each copied into the file's buffer as it comes.
const GUNZIP_CHUNK = 64 * 1024;

const EXPIRED = Symbol('expired');
type Expired = typeof EXPIRED;
const TOO_LARGE = Symbol('too large');
type TooLarge = typeof TOO_LARGE;

type Fetched = { readonly result: FetchResult } | { readonly error: unknown };

interface QueuedFile {
  readonly url: string;
  /** The top-level sitemap it was reached from, reported as `source`. */
  readonly root: string;
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

/**
 * Gunzips `body` into one buffer, sized first by the gzip trailer's ISIZE and grown when that was
 * wrong, never past maxBytes: TOO_LARGE as soon as the output would pass it, inflating no further
 * (a gzip bomb stops there). Rejects with zlib's error (an errno) for invalid gzip. The output is
 * copied as it comes rather than concatenated at the end: joining 50 MB of chunks at once held the
 * event loop for 100 ms and more. Stops inflating when `signal` aborts.
 */
function gunzipCapped(body: Buffer, maxBytes: number, signal: AbortSignal): Promise<Buffer | TooLarge> {
  return new Promise((resolve, reject) => {
    const declared = body.length >= 4 ? body.readUInt32LE(body.length - 4) : 0;
    let out = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(declared, GUNZIP_CHUNK)));
    let written = 0;
    const inflater = zlib.createGunzip({ chunkSize: GUNZIP_CHUNK });
    const stop = () => inflater.destroy();
    signal.addEventListener('abort', stop, { once: true });
    inflater.on('data', (chunk: Buffer) => {
      const needed = written + chunk.length;
      if (needed > maxBytes) {
        inflater.destroy();
        resolve(TOO_LARGE);
        return;
      }
      if (needed > out.length) {
        const grown = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(out.length * 2, needed)));
        out.copy(grown, 0, 0, written);
        out = grown;
      }
      chunk.copy(out, written);
      written = needed;
    });
    inflater.on('end', () => resolve(out.subarray(0, written)));
    inflater.on('error', reject);
    inflater.on('close', () => {
      signal.removeEventListener('abort', stop);
      reject(new Error('gunzip stopped'));
    });
    inflater.end(body);
  });
}

function notASitemap(kind: SitemapKind, root: string): string | undefined {
  if (kind === 'text') return 'not a sitemap (neither XML nor lines of URLs)';
  if (kind !== 'other') return undefined;
  if (root === 'html') return 'not a sitemap (an HTML page)';
  return root === '' ? 'not a sitemap (no XML element)' : `not a sitemap (root element <${root}>)`;
}

/** The deadline and the caller's signal, which every wait is raced against. */
class Deadline {
  expired = false;
  private readonly timer: NodeJS.Timeout;
  /** Aborts when the deadline passes (reason EXPIRED) or the caller's signal aborts (its reason). */
  private readonly ended = new AbortController();
  private readonly onAbort: () => void = () => {};
  /** Aborts when the discovery ends, however it ends: fetches still under way stop with it. */
  private readonly stopWork = new AbortController();
  readonly workSignal = this.stopWork.signal;

  constructor(
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.ended.abort(EXPIRED);
    }, timeoutMs);
    if (signal !== undefined) {
      this.onAbort = () => this.ended.abort(signal.reason);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /**
   * The work's value, or EXPIRED once the deadline passes; rejects when the signal aborts. Its
   * listener goes when the work settles: a race against one long-lived promise would keep every
   * settled wait, and the file it resolved with, until the discovery ends (Promise.race never lets go).
   */
  race<T>(work: Promise<T>): Promise<T | Expired> {
    const { signal } = this.ended;
    if (signal.aborted) {
      // Nobody reads the work's outcome now; its failure must not surface as unhandled.
      work.catch(() => {});
      return this.endedWith(signal.reason);
    }
    return new Promise<T | Expired>((resolve, reject) => {
      const onEnd = () => {
        this.endedWith(signal.reason).then(resolve, reject);
      };
      signal.addEventListener('abort', onEnd, { once: true });
      work.then(
        (value) => {
          signal.removeEventListener('abort', onEnd);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onEnd);
          reject(error);
        },
      );
    });
  }

  private endedWith(reason: unknown): Promise<Expired> {
    return reason === EXPIRED ? Promise.resolve(EXPIRED) : Promise.reject(reason);
  }

  /** Throws the abort reason, and says whether the deadline passed. */
  check(): boolean {
    this.signal?.throwIfAborted();
    return this.expired;
  }

  dispose(): void {
    this.stopWork.abort();
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
  // Distinct links past maxLinks: counted, not kept.
  private readonly pastLimit = new DistinctCount(EXACT_PAST_LIMIT);
  private source = '';
  private readonly warnings: string[] = [];

  constructor(
    private readonly fetcher: GuardedFetcher,
    private readonly bounds: SitemapBounds,
    private readonly options: DiscoveryOptions,
  ) {
    this.deadline = new Deadline(bounds.timeoutMs, options.signal);
  }

  async run(origin: string): Promise<SiteSitemap> {
    try {
      const listed = await this.readRobots(`${origin}/robots.txt`);
      if (listed === EXPIRED) return this.result();
      for (const url of listed) this.enqueue({ url, root: url });
      if (!(await this.drain())) return this.result();
      for (const path of FALLBACK_PATHS) {
        if (this.links.length > 0 || this.queue.length >= this.bounds.maxFiles) break;
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
    const total = this.links.length + this.pastLimit.size;
    if (this.pastLimit.estimated) {
      this.warnings.push(
        `links truncated to the first ${maxLinks} of about ${total} (maxLinks; past ${maxLinks + EXACT_PAST_LIMIT} distinct links the total is estimated)`,
      );
    } else if (total > this.links.length) {
      this.warnings.push(`links truncated to the first ${maxLinks} of ${total} (maxLinks)`);
    }
    if (total === 0) this.warnings.push('no sitemap with links found');
    return { source: this.source, totalLinks: total, links: this.links, warnings: this.warnings };
  }

  private fetch(url: string, accept: string): Promise<Fetched> {
    const signal = this.deadline.workSignal;
    const { proxy } = this.options;
    return this.fetcher.fetch(url, { headers: { 'user-agent': USER_AGENT, accept }, signal, proxy }).then(
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
    const scanner = new SitemapScanner(body, (loc, kind) => {
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
      const inflated = await this.deadline.race(gunzipCapped(body, maxFileBytes, this.deadline.workSignal));
      if (inflated !== TOO_LARGE) return inflated;
      this.warnings.push(`${url}: larger than ${maxFileBytes} bytes once decompressed`);
      return null;
    } catch (error) {
      if (!(error instanceof Error && typeof (error as NodeJS.ErrnoException).errno === 'number'))
        throw error;
      this.warnings.push(`${url}: not valid gzip`);
      return null;
    }
  }

  private addLink(url: string, root: string): void {
    if (this.kept.has(url)) return;
    if (this.links.length < this.bounds.maxLinks) {
      this.links.push(url);
      this.kept.add(url);
      if (this.source === '') this.source = root;
    } else {
      this.pastLimit.add(url);
    }
  }
}

/**
 * Finds a site's sitemap links from any page URL of it: every robots.txt `Sitemap:` line (all of them,
 * unioned), else /sitemap.xml, else /sitemap_index.xml, following indexes breadth-first within
 * `bounds`. Never throws for a sitemap that cannot be had (that is an empty result and a warning);
 * when the deadline passes it returns what it found with a warning. Rejects only with the signal's
 * reason when the signal aborts, since an aborted caller has no use for a partial result. Holds
 * one file at a time (and up to CONCURRENCY fetched ahead), whatever the site lists.
 */
export async function discoverSitemap(
  fetcher: GuardedFetcher,
  pageUrl: string,
  bounds: SitemapBounds,
  options: DiscoveryOptions = {},
): Promise<SiteSitemap> {
  options.signal?.throwIfAborted();
  const origin = httpOrigin(pageUrl);
  if (origin === null) {
    return { source: '', totalLinks: 0, links: [], warnings: ['no sitemap for a URL that is not http(s)'] };
  }
  return new Discovery(fetcher, bounds, options).run(origin);
}
