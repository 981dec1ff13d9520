import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * TRUST_PROXY: behind a reverse proxy, a client's address and protocol are those the proxy
 * forwards, as the console's sign-in lockout, the audit log and the session cookie need them;
 * unset, a forged X-Forwarded-For or X-Forwarded-Proto changes nothing.
 */
const forwarded = { 'x-forwarded-for': '198.51.100.1, 203.0.113.9', 'x-forwarded-proto': 'https' };

/** The address the access log line of the request with this id names. */
function loggedIp(t: TestRuntime, requestId: string): string | undefined {
  for (const line of t.logs) {
    const entry = JSON.parse(line) as { reqId?: string; ip?: string; msg?: string };
    if (entry.reqId === requestId && entry.msg === 'request completed') return entry.ip;
  }
  return undefined;
}

/** The Set-Cookie of a sign-in with the admin token, sent as the proxy would forward it. */
async function signInCookie(t: TestRuntime): Promise<string> {
  const signIn = await t.runtime.app.inject({
    method: 'POST',
    url: '/console/api/session',
    headers: { ...forwarded, 'content-type': 'application/json' },
    payload: { admin_token: ADMIN_TOKEN },
  });
  expect(signIn.statusCode).toBe(200);
  return String(signIn.headers['set-cookie']);
}

describe.each([
  ['1', '203.0.113.9', true],
  ['127.0.0.1', '203.0.113.9', true],
  ['10.0.0.0/8', '127.0.0.1', false],
  ['', '127.0.0.1', false],
])('TRUST_PROXY=%j', (trust, clientIp, secure) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await startTestRuntime('sqlite', { env: { TRUST_PROXY: trust } });
  });
  afterAll(() => t?.close());

  it(`takes the client as ${clientIp}, over ${secure ? 'https' : 'the connection'}`, async () => {
    const health = await t.runtime.app.inject({
      url: '/healthz',
      headers: { ...forwarded, 'x-request-id': 'trust-1' },
    });
    expect(health.statusCode).toBe(200);
    expect(loggedIp(t, 'trust-1')).toBe(clientIp);
    const cookie = await signInCookie(t);
    expect(cookie.includes('; Secure')).toBe(secure);
  });
});

it('a TRUST_PROXY that is not a hop count or addresses stops the start, naming it', async () => {
  await expect(startTestRuntime('sqlite', { env: { TRUST_PROXY: 'true' } })).rejects.toThrow(/TRUST_PROXY/);
});
