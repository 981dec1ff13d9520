import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import { redactUrl } from '../logging.js';

/**
 * Fastify's per-request log lines, as one access line written when a request ends. The line
 * holds no secret (the URL's credentials are redacted here, headers are not logged) and plain
 * fields only, so it goes through a logger without the redaction pass, which costs more than
 * writing the line; an error that ended the response is logged with the redacting logger.
 */
export class AccessLog extends LogController {
  private readonly lines: Logger;

  constructor(logger: Logger) {
    super();
    this.lines = logger.child({}, { redact: [] });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      reqId: request.id,
      method: request.method,
      url: redactUrl(request.url),
      ip: request.ip,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else this.lines.info(line, 'request completed');
  }
}
