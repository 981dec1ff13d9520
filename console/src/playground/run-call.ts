import { answerError, csrfHeaders } from '../api/api-client.ts';
import { callBody, callTarget, type PlaygroundCall } from './openapi-form.ts';

/** What the API answered, ready to show. */
export type CallAnswer = {
  readonly status: number;
  readonly durationMs: number;
  readonly contentType: string;
  readonly bytes: number;
} & (
  | { readonly kind: 'image' | 'video' | 'pdf'; readonly objectUrl: string }
  | { readonly kind: 'json'; readonly json: unknown }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'error'; readonly message: string }
);

/**
 * Makes the call on the API endpoint itself, as the chosen key (docs/console.md, "The
 * playground"): the session cookie, the key's id in x-webcap-console-key and the CSRF token. The
 * key never reaches the page. An image or PDF comes back as an object URL the caller revokes.
 */
export async function runCall(call: PlaygroundCall, keyId: string): Promise<CallAnswer> {
  const headers: Record<string, string> = { 'x-webcap-console-key': keyId, ...csrfHeaders() };
  if (call.operation.bodyIsJson) headers['content-type'] = 'application/json';
  const started = performance.now();
  const response = await fetch(callTarget(call), {
    method: call.operation.method,
    headers,
    credentials: 'same-origin',
    body: call.operation.bodyIsJson ? JSON.stringify(callBody(call)) : undefined,
  });
  const contentType = response.headers.get('content-type') ?? '';
  const base = { status: response.status, contentType };
  if (!response.ok) {
    const error = await answerError(response);
    return {
      ...base,
      kind: 'error',
      message: error.message,
      durationMs: performance.now() - started,
      bytes: 0,
    };
  }
  const blob = await response.blob();
  const durationMs = performance.now() - started;
  const measured = { ...base, durationMs, bytes: blob.size };
  if (contentType.startsWith('image/'))
    return { ...measured, kind: 'image', objectUrl: URL.createObjectURL(blob) };
  if (contentType.startsWith('video/'))
    return { ...measured, kind: 'video', objectUrl: URL.createObjectURL(blob) };
  if (contentType.startsWith('application/pdf'))
    return { ...measured, kind: 'pdf', objectUrl: URL.createObjectURL(blob) };
  const text = await blob.text();
  if (contentType.includes('json')) {
    try {
      return { ...measured, kind: 'json', json: JSON.parse(text) };
    } catch {
      // A body that says JSON but is not: shown as text.
    }
  }
  return { ...measured, kind: 'text', text };
}
