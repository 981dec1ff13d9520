import { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { redactRequestUrl } from '../logging.js';
import { normalizePath } from '../stats/catalog.js';
import type { Metrics } from '../stats/metrics.js';
import type { RequestLog } from '../stats/request-log.js';
import { UrlMemo } from './url-memo.js';

const LOGGED = Symbol('logged');
const SENT = Symbol('sent');

interface LogState {
  [LOGGED]?: boolean;
  [SENT]?: boolean;
}

/**
 * Every request leaves one access line, and every authenticated one one request-log row (the
 * row records whether the call was billed), whatever the client does. Fastify writes its
 * completion only when the response finishes; a client that hangs up before the answer is sent
 * never lets it finish, although the call ran and may have been billed (spec, Errors rule 3).
 * So a request is also logged when its answer is handed over to a connection that is already
 * gone, or when the connection goes while the answer is being written.
 */
export class AccessLog extends LogController {
  private readonly lines: Logger;
  /** Each route's path as the request log writes it, by the route's URL: as many as there are routes. */
  private readonly routePaths = new Map<string, string>();
  /** URLs seen to need no redaction: a repeated call's line skips decoding every parameter. */
  private readonly cleanUrls = new UrlMemo<true>();

  constructor(
    logger: Logger,
    private readonly requestLog: RequestLog,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {
    super();
    // The line holds no secret (the URL's credentials are redacted here, headers are not
    // logged) and plain fields only, so it skips the redaction pass, which costs more than
    // writing the line; an error that ended the response goes through the redacting logger.
    this.lines = logger.child({}, { redact: [] });
  }

  /** Installs the hooks that notice an answer no client will read. */
  register(app: FastifyInstance): void {
    app.addHook('onRequest', async (request, reply) => {
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished && (request as LogState)[SENT]) this.complete(null, request, reply);
      });
    });
    app.addHook('onSend', async (request, reply, payload) => {
      (request as LogState)[SENT] = true;
      if (reply.raw.destroyed) this.complete(null, request, reply);
      return payload;
    });
  }

  override incomingRequest(): void {}

  /** Fastify's own completion, when the response finished (or failed while written). */
  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    this.complete(error, request, reply);
  }

  private pathOf(request: FastifyRequest): string {
    const route = request.routeOptions.url;
    if (route === undefined) return normalizePath(request.url);
    let path = this.routePaths.get(route);
    if (path === undefined) {
      path = normalizePath(route);
      this.routePaths.set(route, path);
    }
    return path;
  }

  private redacted(url: string): string {
    if (this.cleanUrls.get(url) === true) return url;
    const redacted = redactRequestUrl(url);
    this.cleanUrls.remember(url, url, true, redacted);
    return redacted;
  }

  private complete(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const state = request as LogState;
    if (state[LOGGED]) return;
    state[LOGGED] = true;
    const delivered = reply.raw.writableFinished;
    const line = {
      reqId: request.id,
      method: request.method,
      url: this.redacted(request.url),
      ip: request.ip,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      ...(delivered ? {} : { clientGone: true }),
    };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else this.lines.info(line, 'request completed');
    const engine = request.routeOptions.config.engine ?? 'other';
    this.metrics.observe(engine, reply.statusCode, reply.elapsedTime / 1000, request.billed);
    if (request.auth === null) return;
    const param = request.routeOptions.config.target;
    this.requestLog.record({
      account_id: request.auth.account.id,
      key_id: request.auth.key.id,
      engine,
      path: this.pathOf(request),
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime),
      billed: request.billed ? 1 : 0,
      created_at: this.clock().toISOString(),
      target_url:
        param === undefined
          ? null
          : stringParam(request.method === 'GET' ? request.query : request.body, param),
      error: request.errorText,
    });
  }
}

/** A parameter's value when it is a string; any other shape (an unvalidated array, an object) is none. */
function stringParam(params: unknown, name: string): string | null {
  if (typeof params !== 'object' || params === null) return null;
  const value = (params as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : null;
}
