import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorResponse, WebcapError } from '../errors.js';

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** "url is required", "format must be one of png, jpeg": the parameter first, then why. */
function describeValidation(issues: readonly ValidationIssue[], context: string | undefined): string {
  const issue = issues[0] ?? {};
  const fromPath = (issue.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
  const missing = issue.params?.missingProperty;
  const param = typeof missing === 'string' ? (fromPath ? `${fromPath}.${missing}` : missing) : fromPath;
  const name = param || (context === 'body' ? 'body' : 'request');
  if (issue.keyword === 'required') return `${name} is required`;
  if (issue.keyword === 'additionalProperties' && typeof issue.params?.additionalProperty === 'string') {
    return `${issue.params.additionalProperty} is not a known parameter`;
  }
  const allowed = issue.params?.allowedValues;
  if (Array.isArray(allowed)) return `${name} must be one of ${allowed.join(', ')}`;
  return `${name} ${issue.message ?? 'is invalid'}`;
}

/** Maps anything thrown while handling a request to a WebcapError; unknown errors become internal. */
export function toWebcapError(error: unknown): WebcapError {
  if (error instanceof WebcapError) return error;
  const fastifyError = error as Partial<FastifyError> & { validation?: ValidationIssue[] };
  if (Array.isArray(fastifyError.validation)) {
    return new WebcapError(
      'bad_request',
      describeValidation(fastifyError.validation, fastifyError.validationContext),
    );
  }
  const status = fastifyError.statusCode;
  if (status === 413) return new WebcapError('payload_too_large');
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new WebcapError('bad_request', 'unsupported Content-Type; send JSON or a form');
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
    return new WebcapError('bad_request', 'body is not valid JSON');
  }
  if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new WebcapError('bad_request', 'body is empty but Content-Type is application/json');
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new WebcapError('bad_request', fastifyError.message);
  }
  return new WebcapError('internal', undefined, { cause: error });
}

/** The headers an error carries as typed facts: Retry-After, X-RateLimit-*, Allow. */
function errorHeaders({ options }: WebcapError): Record<string, string | number> {
  const headers: Record<string, string | number> = {};
  if (options.retryAfterSeconds !== undefined) headers['retry-after'] = options.retryAfterSeconds;
  if (options.rateLimit !== undefined) {
    headers['x-ratelimit-limit'] = options.rateLimit.limit;
    headers['x-ratelimit-remaining'] = options.rateLimit.remaining;
    headers['x-ratelimit-reset'] = options.rateLimit.resetSeconds;
  }
  if (options.allow !== undefined) headers.allow = options.allow;
  return headers;
}

export function sendError(reply: FastifyReply, error: WebcapError): FastifyReply {
  const { status, body } = errorResponse(error);
  reply.request.errorText = body.error;
  const headers = errorHeaders(error);
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}

/** Installs the one error handler and the 404 handler: every error body is `{"error": "..."}`. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const mapped = toWebcapError(error);
    if (mapped.code === 'internal' || mapped.code === 'timeout') {
      request.log.error({ err: error }, 'request failed');
    }
    return sendError(reply, mapped);
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, new WebcapError('not_found')));
}

/**
 * Errors Fastify's router raises before any route runs (its `frameworkErrors` option): a path
 * with a malformed %-escape, or a path parameter longer than the router takes.
 */
export function frameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const mapped =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new WebcapError('uri_too_long')
      : new WebcapError('bad_request', 'the request path is malformed');
  void sendError(reply, mapped);
}

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request (its `clientError`
 * event: headers or request line too large, malformed requests, a client too slow to send its
 * headers) in the same `{"error"}` shape, then closes the connection.
 */
export function clientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const mapped =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new WebcapError('headers_too_large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new WebcapError('request_timeout')
        : new WebcapError('bad_request', 'the request is malformed');
  const { status, body } = errorResponse(mapped);
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}
