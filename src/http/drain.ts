import net from 'node:net';
import type { Logger } from 'pino';
import { errorResponse, WebcapError } from '../errors.js';
import type { App } from './app.js';

/**
 * `serving`; `draining`: /readyz answers 503 while every request is still served, so that a load
 * balancer stops sending before connections are refused; `closed`: the listener is closed and
 * what still arrives on a kept-alive connection is a 503 with Retry-After, never a reset.
 */
type DrainPhase = 'serving' | 'draining' | 'closed';

/** A caller turned away while the server stops retries at once: another node answers. */
const RETRY_AFTER_SECONDS = 1;

/**
 * How long a kept-alive connection left idle by its client stays open once the listener is closed
 * and no request is in flight: a request sent on it meanwhile gets the shutting-down 503, not a
 * reset. Closing an idle connection at once races a client that is sending on it just then (HTTP/1.1
 * has no way to tell a client a connection is going away); a client that keeps using the node
 * consumes its idle connections within this time, one 503 and close each.
 */
const IDLE_LINGER_MS = 1_000;

/**
 * How long the calls ended by closing the engines (past SHUTDOWN_GRACE_MS) may take to answer
 * and release their units, before their connections are cut and the stores close.
 */
const SETTLE_MS = 10_000;

/** Resolves true once `promise` settled, false when `ms` passed first. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The HTTP side of a graceful stop (docs/drain.md). `begin` fails readiness; `close` stops the
 * listener and waits, up to the grace, for the calls in flight, whose responses close their
 * connections; `settle`, run after the engines closed (which ends the calls left, unbilled:
 * their units are released as any failed call's), waits for their answers and closes the app.
 */
export class HttpDrain {
  private current: DrainPhase = 'serving';
  private app: App | null = null;
  /** Resolves once the listener is closed and every connection has ended. */
  private ended: Promise<void> | null = null;
  /** Set when the grace is over: the engines' closing is about to end the calls still running. */
  private cut = false;
  /** Requests received and not yet answered, on every connection. */
  private inFlight = 0;
  /** Closes the idle connections once no request has been in flight for IDLE_LINGER_MS. */
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly idleLingerMs = IDLE_LINGER_MS,
  ) {}

  /** Installs the hooks that answer for the drain; before the app is ready. */
  attach(app: App): void {
    this.app = app;
    app.server.on('request', (_request, response) => {
      this.inFlight++;
      this.stopIdleTimer();
      response.once('close', () => {
        this.inFlight--;
        this.lingerIdle();
      });
    });
    app.addHook('onRequest', async (request) => {
      if (this.current === 'serving' || request.routeOptions.url === '/healthz') return;
      if (request.routeOptions.url === '/readyz') {
        throw new WebcapError('unavailable', 'draining', { retryAfterSeconds: RETRY_AFTER_SECONDS });
      }
      if (this.current === 'closed') {
        throw new WebcapError('unavailable', 'the server is shutting down', {
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        });
      }
    });
    // Every answer once the listener is closed ends its connection (those of calls in flight
    // included), so that the server's close completes when the last call has answered; the client
    // then finds the port refusing and goes elsewhere. Not before: during the drain delay a client
    // told to close would connect again to this listener, and a connection still waiting to be
    // accepted when the listener closes is reset by the kernel. A call ended past the grace fails
    // however the engine's closing made it fail (a page that "could not be loaded" once its
    // browser is gone): it says what happened instead, unbilled.
    const shuttingDown = errorResponse(new WebcapError('unavailable', 'the server is shutting down'));
    app.addHook('onSend', async (_request, reply, payload) => {
      if (this.current !== 'closed') return payload;
      reply.header('connection', 'close');
      if (!this.cut || reply.statusCode < 400) return payload;
      reply
        .code(shuttingDown.status)
        .header('retry-after', RETRY_AFTER_SECONDS)
        .type('application/json; charset=utf-8');
      return JSON.stringify(shuttingDown.body);
    });
  }

  /** /readyz answers 503 from now on; everything else is still served. */
  begin(): void {
    if (this.current === 'serving') this.current = 'draining';
  }

  /**
   * Closes the listener and waits up to `graceMs` for the calls in flight to answer. Idle
   * kept-alive connections are closed once no request has been in flight for a moment
   * (IDLE_LINGER_MS), not at once. Calls still running at the grace are left to the engines'
   * closing, which ends them.
   */
  async close(graceMs: number): Promise<void> {
    this.current = 'closed';
    const app = this.app;
    if (app === null) return;
    const server = app.server;
    if (this.ended === null) {
      // net.Server's close stops accepting and calls back once every connection has ended;
      // http.Server's would also close the idle connections at once (Node 19+).
      this.ended = server.listening
        ? new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()))
        : Promise.resolve();
      this.lingerIdle();
    }
    if (!(await within(this.ended, graceMs))) {
      this.stopIdleTimer();
      server.closeIdleConnections();
      const connections = await new Promise<number>((resolve) =>
        server.getConnections((_error, count) => resolve(count)),
      );
      if (connections === 0) return;
      this.cut = true;
      this.logger.warn(
        { connections, graceMs },
        'calls still running past SHUTDOWN_GRACE_MS are ended, unbilled',
      );
    }
  }

  /**
   * After the engines closed: waits (bounded) for the calls they ended to answer, cuts the
   * connections left, and closes the app (its onClose hooks).
   */
  async settle(): Promise<void> {
    const app = this.app;
    if (app === null) return;
    this.stopIdleTimer();
    if (this.ended !== null && !(await within(this.ended, SETTLE_MS))) app.server.closeAllConnections();
    await app.close();
  }

  /** Once the listener is closed and nothing is in flight, (re)starts the idle connections' linger. */
  private lingerIdle(): void {
    if (this.current !== 'closed' || this.inFlight > 0 || this.app === null) return;
    this.stopIdleTimer();
    const server = this.app.server;
    this.idleTimer = setTimeout(() => server.closeIdleConnections(), this.idleLingerMs);
  }

  private stopIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
