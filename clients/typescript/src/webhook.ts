/** What verifyWebhook checks: the raw body exactly as received, and its `Webcap-Signature` header. */
export interface VerifyWebhookInput {
  /** The account's webhook secret (`whsec_…`). */
  readonly secret: string;
  /** The `Webcap-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
  readonly header: string | null | undefined;
  /** The request body as received, before any JSON parsing (bytes or their UTF-8 text). */
  readonly body: string | Uint8Array;
  /** How far the signature's time may be from now; older (or future) deliveries are replays. */
  readonly toleranceSeconds?: number;
  /** The time to check against; the current time when absent. */
  readonly now?: Date;
}

/** Why a delivery was refused, or `valid`. */
export type WebhookVerdict = 'valid' | 'malformed' | 'expired' | 'mismatch';

const encoder = new TextEncoder();

/** Bytes of a hex string, null when it is not one. */
function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * Checks a webhook delivery and says why it fails: `malformed` (no `t` or `v1`), `expired` (the
 * timestamp is outside the tolerance window), `mismatch` (no `v1` is the HMAC of this body under
 * this secret). WebCrypto's HMAC verify compares in constant time.
 */
export async function checkWebhook(input: VerifyWebhookInput): Promise<WebhookVerdict> {
  const fields = (input.header ?? '').split(',').map((part) => {
    const at = part.indexOf('=');
    return at < 0 ? ['', ''] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
  });
  const timestamp = fields.find(([name]) => name === 't')?.[1] ?? '';
  const signatures = fields.filter(([name]) => name === 'v1').map(([, value]) => hexBytes(value ?? ''));
  if (!/^\d{1,12}$/.test(timestamp) || signatures.length === 0) return 'malformed';
  const nowSeconds = (input.now ?? new Date()).getTime() / 1000;
  if (Math.abs(nowSeconds - Number(timestamp)) > (input.toleranceSeconds ?? 300)) return 'expired';
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(input.secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const body = typeof input.body === 'string' ? encoder.encode(input.body) : input.body;
  const signed = new Uint8Array(timestamp.length + 1 + body.length);
  signed.set(encoder.encode(`${timestamp}.`));
  signed.set(body, timestamp.length + 1);
  for (const signature of signatures) {
    if (signature !== null && (await crypto.subtle.verify('HMAC', key, signature, signed))) return 'valid';
  }
  return 'mismatch';
}

/** True when the delivery is signed with `secret` over exactly this body, within the tolerance window. */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<boolean> {
  return (await checkWebhook(input)) === 'valid';
}
