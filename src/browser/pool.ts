import type { Logger } from 'pino';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { WebcapError } from '../errors.js';
import type { ProxyRoute } from '../net/egress-proxy.js';
import type { UpstreamProxy } from '../net/upstream-proxy.js';
import { guardPage, type PageGuards } from './page-guards.js';
import { treeMemoryOver } from './process-tree.js';

/** Where contexts get their own ways out; the network guard's EgressProxy is one. */
export interface EgressRoutes {
  addRoute(): Promise<ProxyRoute>;
}

export interface PoolOptions {
  readonly executablePath: string;
  readonly args: readonly string[];
  /** Renders at once; each has its own context. */
  readonly concurrency: number;
  /** Calls allowed to wait for a slot; past it, 503. */
  readonly maxQueue: number;
  /** Hard limit on one render, and on the wait for a slot. */
  readonly renderTimeoutMs: number;
  /** The browser is replaced after this many renders... */
  readonly recycleAfterRenders: number;
  /** ...or when its process tree uses more memory than this. */
  readonly maxMemoryBytes: number;
  /** Wait after a failed launch before the next attempt, doubling with each failure in a row... */
  readonly launchBackoffMs: number;
  /** ...up to this. */
  readonly launchBackoffMaxMs: number;
  readonly egress: EgressRoutes;
  readonly logger: Logger;
}

/** What a render works with: a fresh page in a context no earlier render has touched. */
export interface Lease {
  readonly page: Page;
  readonly context: BrowserContext;
  /** The context's way out, with what the guard refused on it. */
  readonly route: ProxyRoute;
  /** The viewport a fresh page of this browser has before any emulation (its window's inner size). */
  readonly windowSize: WindowSize;
  /** What watches the page (page-guards.ts), installed before the render took it. */
  readonly guards: PageGuards;
}

export interface WindowSize {
  readonly width: number;
  readonly height: number;
}

/** One launched browser; replaced as a whole when it is recycled or crashes. */
interface Generation {
  readonly browser: Browser;
  readonly pid: number;
  readonly windowSize: WindowSize;
  /** Whether the browser fetches downloads itself, which its pages' guards must then refuse (page-guards.ts). */
  readonly fetchesDownloads: boolean;
  readonly warm: Promise<Lease | null>[];
  inFlight: number;
  renders: number;
  retiring: boolean;
  crashed: boolean;
  /** Why the browser is gone, once it disconnected unasked; in-flight renders fail with it at once. */
  lostWith: WebcapError | null;
  /** What fails the renders and preparations in flight when the browser is lost (see orLost). */
  readonly onLost: Set<(error: WebcapError) => void>;
}

/**
 * `work`, or the generation's loss if that comes first. A listener removed once `work` settles,
 * not Promise.race with a promise that lives as long as the browser: every race leaves a reaction
 * on that promise which holds the race's result (a render's bytes, a prepared page) until the
 * browser is recycled, hundreds of renders later (docs/performance.md, "Soak").
 */
function orLost<T>(generation: Generation, work: Promise<T>): Promise<T> {
  if (generation.lostWith !== null) return Promise.reject(generation.lostWith);
  return new Promise<T>((resolve, reject) => {
    generation.onLost.add(reject);
    work.then(resolve, reject).finally(() => generation.onLost.delete(reject));
  });
}

/**
 * A promise that rejects as `stopper` does, until `release()`. Racing a page's guards directly
 * would leave a reaction on them that holds the race's outcome until the page's context is
 * disposed; after release, what `stopper` keeps (one small object) reaches nothing. Nothing else
 * lives in this scope, since a closure keeps every variable of the scopes it was made in.
 */
function stoppable(stopper: Promise<never>): { readonly stopped: Promise<never>; release(): void } {
  const pending: { fail: ((error: unknown) => void) | null } = { fail: null };
  const stopped = new Promise<never>((_, reject) => {
    pending.fail = reject;
  });
  stopper.catch((error: unknown) => pending.fail?.(error));
  return {
    stopped,
    release: () => {
      pending.fail = null;
    },
  };
}

const MEMORY_CHECK_EVERY = 10;

/**
 * Chromium behind a bounded queue. Isolation is a new browser context per render; the contexts
 * are created ahead of time (one spare per slot) and disposed after use off the critical path,
 * so a render pays neither cost. Browsers are recycled by count and memory, relaunched after
 * a crash, and their whole process group is killed on the way out.
 */
export interface PoolState {
  /** Renders running now. */
  readonly busy: number;
  /** Calls waiting for a render slot. */
  readonly queued: number;
  /** Calls turned away since start: the queue was full, or no slot came free in time. */
  readonly rejected: number;
  /** Browsers launched since start (the first, recycled ones, and relaunches after a crash). */
  readonly launches: number;
  /** Browsers that disconnected unasked. */
  readonly crashes: number;
  /** `running`: a browser is up or launching; `failing`: the last launch failed; `not started`: none wanted yet. */
  readonly browser: 'running' | 'failing' | 'not started' | 'closed';
}

export class BrowserPool {
  private current: Promise<Generation> | null = null;
  private readonly generations = new Set<Generation>();
  /** Shutdowns under way (a recycled browser's among them), which close() waits for. */
  private readonly shuttingDown = new Set<Promise<void>>();
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;
  /** Launches that failed in a row, and when (performance.now()) the next one may be tried. */
  private launchFailures = 0;
  private nextLaunchAt = 0;
  private readonly counts = { rejected: 0, launches: 0, crashes: 0 };

  constructor(private readonly options: PoolOptions) {}

  /** What the pool is doing and has done, for /metrics and /readyz. */
  state(): PoolState {
    return {
      busy: this.active,
      queued: this.waiting.length,
      ...this.counts,
      browser: this.closed
        ? 'closed'
        : this.current !== null
          ? 'running'
          : this.launchFailures > 0
            ? 'failing'
            : 'not started',
    };
  }

  /** Launches the browser and warms its contexts, so the first call is as fast as the next. */
  async warmUp(): Promise<void> {
    const generation = await this.generation();
    await Promise.all(generation.warm);
  }

  /**
   * Runs `work` on a fresh page whose traffic leaves through the egress proxy, direct or via
   * `upstreamProxy`. Fails with 503 when the queue is full, a timeout after renderTimeoutMs (plus
   * `extraTimeMs`, the time a recording takes), and a retryable internal error when the browser
   * crashes meanwhile.
   */
  async run<T>(
    upstreamProxy: UpstreamProxy | null,
    work: (lease: Lease) => Promise<T>,
    extraTimeMs = 0,
  ): Promise<T> {
    await this.admit();
    let generation: Generation | undefined;
    let warm: Lease | null = null;
    try {
      generation = await this.generation();
      generation.inFlight += 1;
      const next = generation.warm.shift();
      // Its replacement starts now rather than after the render, so a call that follows this one
      // finds a context ready even when it comes at once.
      if (!generation.retiring) generation.warm.push(this.prepare(generation));
      warm = await this.takeWarm(generation, next);
      warm.route.use(upstreamProxy);
      return await this.bounded(generation, work(warm), warm.guards.tripped, extraTimeMs);
    } finally {
      if (generation !== undefined) this.settle(generation, warm);
      this.leave();
    }
  }

  /** Closes every browser and its processes; later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const resume of this.waiting.splice(0)) resume();
    // A browser still launching joins the generations once it is up: it is waited for, so that
    // it closes too rather than outliving the pool.
    await this.current?.catch(() => undefined);
    await Promise.all([...this.generations].map((g) => this.shutdown(g)));
    await Promise.all(this.shuttingDown);
  }

  private admit(): Promise<void> {
    if (this.closed) return Promise.reject(new WebcapError('unavailable', 'the browser pool is closed'));
    if (this.active < this.options.concurrency) {
      this.active += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxQueue) {
      this.counts.rejected += 1;
      return Promise.reject(
        new WebcapError('unavailable', 'all browsers are busy and the queue is full', {
          retryAfterSeconds: Math.max(1, Math.ceil(this.options.renderTimeoutMs / 10_000)),
        }),
      );
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(resume);
        if (index >= 0) this.waiting.splice(index, 1);
        this.counts.rejected += 1;
        reject(
          new WebcapError('unavailable', 'no browser became free in time', {
            retryAfterSeconds: Math.max(1, Math.ceil(this.options.renderTimeoutMs / 10_000)),
          }),
        );
      }, this.options.renderTimeoutMs);
      const resume = () => {
        clearTimeout(timer);
        if (this.closed) reject(new WebcapError('unavailable', 'the browser pool is closed'));
        else resolve();
      };
      this.waiting.push(resume);
    });
  }

  /** Hands the slot to the next waiting call, or frees it. */
  private leave(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.active -= 1;
    else next();
  }

  /** The work, ended early by the timeout, a browser crash, or a guard of its page that tripped. */
  private async bounded<T>(
    generation: Generation,
    work: Promise<T>,
    tripped: Promise<never>,
    extraTimeMs: number,
  ): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const limitMs = this.options.renderTimeoutMs + extraTimeMs;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new WebcapError('timeout', `the page did not render within ${limitMs} ms`)),
        limitMs,
      );
    });
    // Work abandoned by a timeout, a crash or a tripped guard fails later, when its context closes;
    // that is expected.
    work.catch(() => undefined);
    const guards = stoppable(tripped);
    try {
      return await orLost(generation, Promise.race([work, timeout, guards.stopped]));
    } finally {
      clearTimeout(timer);
      guards.release();
    }
  }

  /**
   * The browser new calls go to, launched when there is none. A launch that fails is not tried
   * again before a back-off (launchBackoffMs, doubling with each failure in a row up to
   * launchBackoffMaxMs) has passed, so that a burst of calls on a browser that cannot start is a
   * burst of quick 503s, not of launches; the calls in between are told when to come back.
   */
  private generation(): Promise<Generation> {
    if (this.closed) return Promise.reject(new WebcapError('unavailable', 'the browser pool is closed'));
    if (this.current === null) {
      const waitMs = this.nextLaunchAt - performance.now();
      if (waitMs > 0) return Promise.reject(this.cannotStart(waitMs));
      const launching = this.launch().then(
        (generation) => {
          this.launchFailures = 0;
          return generation;
        },
        (error: unknown) => {
          const backoffMs = Math.min(
            this.options.launchBackoffMaxMs,
            this.options.launchBackoffMs * 2 ** this.launchFailures,
          );
          this.launchFailures += 1;
          this.nextLaunchAt = performance.now() + backoffMs;
          if (this.current === launching) this.current = null;
          this.options.logger.error(
            { err: error, executable: this.options.executablePath, failures: this.launchFailures, backoffMs },
            'browser launch failed',
          );
          throw this.cannotStart(backoffMs, error);
        },
      );
      this.current = launching;
      launching.catch(() => undefined);
    }
    return this.current;
  }

  private cannotStart(waitMs: number, cause?: unknown): WebcapError {
    return new WebcapError('unavailable', 'the browser could not be started; retry later', {
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      cause,
    });
  }

  private async launch(): Promise<Generation> {
    const browser = await puppeteer.launch({
      executablePath: this.options.executablePath,
      headless: true,
      args: [...this.options.args],
      // Puppeteer turns Chromium's popup blocker off; on, it stops a page's popups without a
      // user gesture in the full browser too, which ignores --block-new-web-contents.
      ignoreDefaultArgs: ['--disable-popup-blocking'],
      defaultViewport: null,
      // Over a pipe, Chromium quits when this process dies, even by SIGKILL: no orphaned browsers.
      pipe: true,
      // Nothing reads the Audits domain's issue reports (cookie, CSP, mixed-content warnings...),
      // which a real page can send by the dozen.
      issuesEnabled: false,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const pid = browser.process()?.pid;
    if (pid === undefined) {
      await browser.close();
      throw new WebcapError('internal', 'browser started without a process');
    }
    // The headless shell's windows are the size --window-size asks; the full browser's keep its
    // UI's height out of it. Measured once, on a blank page of the confined default context.
    // The headless shell names itself HeadlessChrome; the full browser, even headless, Chrome.
    let windowSize: WindowSize;
    let fetchesDownloads: boolean;
    try {
      const probe = await browser.newPage();
      windowSize = await probe.evaluate(() => ({ width: window.innerWidth, height: window.innerHeight }));
      await probe.close();
      fetchesDownloads = !(await browser.version()).startsWith('HeadlessChrome/');
    } catch (error) {
      await browser.close().catch(() => undefined);
      throw new WebcapError('internal', 'the browser could not open a page; retry', { cause: error });
    }
    const generation: Generation = {
      browser,
      pid,
      windowSize,
      fetchesDownloads,
      warm: [],
      inFlight: 0,
      renders: 0,
      retiring: false,
      crashed: false,
      lostWith: null,
      onLost: new Set(),
    };
    this.generations.add(generation);
    browser.on('disconnected', () => {
      if (generation.retiring || this.closed) return;
      generation.crashed = true;
      this.counts.crashes += 1;
      this.options.logger.error({ browserPid: pid }, 'browser disconnected; relaunching');
      generation.lostWith = new WebcapError('internal', 'the browser crashed during the render; retry');
      for (const fail of generation.onLost) fail(generation.lostWith);
      generation.onLost.clear();
      void this.retire(generation);
    });
    for (let i = 0; i < this.options.concurrency; i++) generation.warm.push(this.prepare(generation));
    this.counts.launches += 1;
    this.options.logger.info({ browserPid: pid }, 'browser launched');
    return generation;
  }

  /** A context and page made ahead of use; null when the browser went away meanwhile. */
  private async prepare(generation: Generation): Promise<Lease | null> {
    let route: ProxyRoute | undefined;
    try {
      route = await this.options.egress.addRoute();
      // Without `<-loopback>` Chromium would reach loopback hosts directly, around the proxy.
      const context = await generation.browser.createBrowserContext({
        proxyServer: route.proxyServer,
        proxyBypassList: ['<-loopback>'],
      });
      const page = await context.newPage();
      const guards = await guardPage(page, { refuseDownloads: generation.fetchesDownloads });
      return { context, page, route, windowSize: generation.windowSize, guards };
    } catch (error) {
      await route?.close();
      if (!generation.retiring && !generation.crashed && !this.closed) {
        this.options.logger.warn({ err: error }, 'could not prepare a browser context');
      }
      return null;
    }
  }

  private async takeWarm(generation: Generation, spare: Promise<Lease | null> | undefined): Promise<Lease> {
    const warm = await orLost(generation, spare ?? this.prepare(generation));
    if (warm !== null) return warm;
    const fresh = await orLost(generation, this.prepare(generation));
    if (fresh === null) throw new WebcapError('internal', 'the browser could not open a page; retry');
    return fresh;
  }

  /** After a render: dispose its context, count it, recycle when due; never on the caller's path. */
  private settle(generation: Generation, warm: Lease | null): void {
    generation.inFlight -= 1;
    if (warm !== null) {
      generation.renders += 1;
      // Closing the context detaches the page's guards, and the browser then releases what they
      // hold paused: a download the page started as its render ended would be written unwatched.
      // So the route is cut first (no response arrives any more) and what is paused is answered.
      void Promise.allSettled([warm.route.close(), warm.guards.stopLoading()]).finally(() =>
        warm.context.close().catch(() => undefined),
      );
    }
    if (generation.retiring) {
      if (generation.inFlight === 0) void this.shutdown(generation);
      return;
    }
    if (generation.renders >= this.options.recycleAfterRenders) {
      void this.retire(generation);
      return;
    }
    if (warm !== null && generation.renders % MEMORY_CHECK_EVERY === 0) void this.checkMemory(generation);
  }

  /** Recycles the browser when its process tree is over the memory limit; read off the event loop. */
  private async checkMemory(generation: Generation): Promise<void> {
    const bytes = await treeMemoryOver(generation.pid, this.options.maxMemoryBytes);
    if (bytes === null || generation.retiring) return;
    this.options.logger.info(
      { browserPid: generation.pid, bytes },
      'browser over its memory limit; recycling',
    );
    await this.retire(generation);
  }

  /**
   * New calls go to a new browser, launched now so that none of them waits for it; this one
   * closes once its renders are done.
   */
  private async retire(generation: Generation): Promise<void> {
    if (generation.retiring) return;
    generation.retiring = true;
    if (this.current !== null && (await this.current.catch(() => null)) === generation) {
      this.current = null;
      if (!this.closed) this.generation().catch(() => undefined);
    }
    if (generation.inFlight === 0) await this.shutdown(generation);
  }

  private async shutdown(generation: Generation): Promise<void> {
    generation.retiring = true;
    if (!this.generations.delete(generation)) return;
    const done = this.closeBrowser(generation);
    this.shuttingDown.add(done);
    await done.finally(() => this.shuttingDown.delete(done));
  }

  private async closeBrowser(generation: Generation): Promise<void> {
    const warm = await Promise.all(generation.warm.splice(0));
    await Promise.all(warm.map((w) => w?.route.close()));
    const closing = generation.browser.close().catch(() => undefined);
    const deadline = new Promise((resolve) => setTimeout(resolve, 5000).unref());
    await Promise.race([closing, deadline]);
    // Chromium leads its own process group; whatever is left of it (zygotes, renderers) goes too.
    try {
      process.kill(-generation.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    this.options.logger.info({ browserPid: generation.pid, renders: generation.renders }, 'browser closed');
  }
}
