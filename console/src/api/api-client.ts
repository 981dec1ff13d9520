/*
 * The one way the console talks to the service. The CSRF token lives in this module's memory
 * only (never in storage or a URL): GET /console/api/session hands it over after each load.
 */

/** An answer other than 2xx, with the API's own message (`{"error": "..."}`). */
export class ApiError extends Error {
  readonly status: number;
  /** Seconds, from Retry-After, when given. */
  readonly retryAfter: number | null;

  constructor(message: string, status: number, retryAfter: number | null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

let csrfToken: string | null = null;
let onSignedOut: (() => void) | null = null;

/** Keeps the session's CSRF token for the state changes that follow; null forgets it. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The headers a state change or a playground call carries. */
export function csrfHeaders(): Record<string, string> {
  return csrfToken === null ? {} : { 'x-csrf-token': csrfToken };
}

/** Called when an answer says the session is gone (401 outside sign-in), so the app can say so. */
export function whenSignedOut(handler: (() => void) | null): void {
  onSignedOut = handler;
}

/** The error an answer stands for: its JSON `error`, else its status line. */
export async function answerError(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body: unknown = await response.json();
    if (
      typeof body === 'object' &&
      body !== null &&
      typeof (body as { error?: unknown }).error === 'string'
    ) {
      message = (body as { error: string }).error;
    }
  } catch {
    // Not JSON (a proxy's page): the status line says enough.
  }
  const retry = Number(response.headers.get('retry-after'));
  return new ApiError(message, response.status, Number.isFinite(retry) && retry > 0 ? retry : null);
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * A JSON call under /console/api/. A body goes as JSON; every method but GET carries the CSRF
 * token. Resolves with the parsed answer (undefined for 204), rejects with an ApiError.
 */
export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') Object.assign(headers, csrfHeaders());
  let response: Response;
  try {
    response = await fetch(`/console/api${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('The service could not be reached; check your connection and try again.', 0, null);
  }
  if (!response.ok) {
    const error = await answerError(response);
    const signingIn = path === '/session' || path.startsWith('/invites/');
    if (error.status === 401 && !signingIn) onSignedOut?.();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A query string from the given values, empty ones left out (with its `?`, or ''). */
export function query(values: Readonly<Record<string, string | number | null | undefined>>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== null && value !== undefined && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
