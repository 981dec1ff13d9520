import { describe, expect, it } from 'vitest';
import { signFileUrl, verifyFileUrl } from './file-urls.js';

const SECRET = 'unit-test-secret-0123456789abcdefghij';
const ID = 'AbCdEfGhIjKlMnOpQrStUvWx.png';
const EXPIRES_AT = new Date('2030-01-01T00:00:00.000Z');
const EXPIRES = EXPIRES_AT.getTime() / 1000;

function parts(url: string) {
  const parsed = new URL(url);
  return {
    path: parsed.pathname,
    expires: Number(parsed.searchParams.get('expires')),
    signature: parsed.searchParams.get('signature') ?? '',
  };
}

describe('signFileUrl', () => {
  it('builds <base>/v1/files/<id>?expires=<unix seconds>&signature=<base64url>, whatever slashes end the base', () => {
    for (const base of ['https://x.example', 'https://x.example/', 'https://x.example//']) {
      expect(signFileUrl(base, ID, EXPIRES_AT, SECRET)).toMatch(
        /^https:\/\/x\.example\/v1\/files\/AbCdEfGhIjKlMnOpQrStUvWx\.png\?expires=1893456000&signature=[A-Za-z0-9_-]{43}$/,
      );
    }
  });

  it('expires on the whole second at or before expiresAt', () => {
    const url = signFileUrl('https://x.example', ID, new Date(EXPIRES_AT.getTime() + 999), SECRET);
    expect(parts(url).expires).toBe(EXPIRES);
  });

  it('is deterministic, and differs per id, expiry and secret', () => {
    const signature = parts(signFileUrl('https://x.example', ID, EXPIRES_AT, SECRET)).signature;
    expect(parts(signFileUrl('https://y.example', ID, EXPIRES_AT, SECRET)).signature).toBe(signature);
    expect(parts(signFileUrl('https://x.example', `${ID}x`, EXPIRES_AT, SECRET)).signature).not.toBe(
      signature,
    );
    const later = new Date(EXPIRES_AT.getTime() + 1000);
    expect(parts(signFileUrl('https://x.example', ID, later, SECRET)).signature).not.toBe(signature);
    expect(parts(signFileUrl('https://x.example', ID, EXPIRES_AT, `${SECRET}x`)).signature).not.toBe(
      signature,
    );
  });
});

describe('verifyFileUrl', () => {
  const { signature } = parts(signFileUrl('https://x.example', ID, EXPIRES_AT, SECRET));
  const at = (ms: number) => new Date(EXPIRES_AT.getTime() + ms);

  it('is valid before the expiry, with the whole seconds left', () => {
    expect(verifyFileUrl(ID, EXPIRES, signature, SECRET, at(-3_600_000))).toEqual({
      valid: true,
      remainingSeconds: 3600,
    });
    expect(verifyFileUrl(ID, EXPIRES, signature, SECRET, at(-1500))).toEqual({
      valid: true,
      remainingSeconds: 1,
    });
    expect(verifyFileUrl(ID, EXPIRES, signature, SECRET, at(-1))).toEqual({
      valid: true,
      remainingSeconds: 0,
    });
  });

  it('is expired from the expiry instant on', () => {
    expect(verifyFileUrl(ID, EXPIRES, signature, SECRET, at(0))).toEqual({ valid: false, reason: 'expired' });
  });

  it('reports a bad signature before, and instead of, an expiry', () => {
    const bad = { valid: false, reason: 'bad_signature' };
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(verifyFileUrl(ID, EXPIRES, flipped, SECRET, at(-1000))).toEqual(bad);
    expect(verifyFileUrl(ID, EXPIRES + 1, signature, SECRET, at(1_000_000))).toEqual(bad);
    expect(verifyFileUrl('AbCdEfGhIjKlMnOpQrStUvWy.png', EXPIRES, signature, SECRET, at(-1000))).toEqual(bad);
    expect(verifyFileUrl(ID, EXPIRES, signature, 'another-secret', at(-1000))).toEqual(bad);
    expect(verifyFileUrl(ID, EXPIRES, '', SECRET, at(-1000))).toEqual(bad);
    expect(verifyFileUrl(ID, EXPIRES, `${signature}=`, SECRET, at(-1000))).toEqual(bad);
  });
});
