import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { CLI_ACTOR } from '../../src/admin/audit.js';
import { type ConsoleUser, createUser, type NewUser } from '../../src/admin/users.js';
import { keySecretSealer } from '../../src/billing/signing-secrets.js';
import { TEST_SERVICE_SECRET } from './databases.js';
import type { TestRuntime } from './runtime.js';

/** A signed-in console session as a browser holds it: the cookie, and the CSRF token the page keeps. */
export interface Browser {
  readonly cookie: string;
  readonly csrf: string;
  /** The Session body of the sign-in. */
  readonly session: Record<string, unknown> & { user: Record<string, unknown> };
}

/** Creates a console user with a chosen password, as the operator does from the CLI. */
export async function addUser(t: TestRuntime, input: NewUser & { password: string }): Promise<ConsoleUser> {
  const { db } = t.runtime.store;
  const admin = {
    db,
    clock: () => new Date(),
    jobRetentionMs: 3_600_000,
    keySecrets: keySecretSealer(TEST_SERVICE_SECRET),
    actor: CLI_ACTOR,
  };
  return (await createUser(admin, input)).user;
}

/** The session cookie a response sets (`webcap_session=...`, `__Host-webcap_session=...` over HTTPS), as the browser sends it back. */
export function sessionCookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const line = (Array.isArray(header) ? header : [header ?? '']).find((c) =>
    /^(?:__Host-)?webcap_session=/.test(c),
  );
  if (line === undefined) throw new Error(`no session cookie in ${JSON.stringify(res.headers)}`);
  return line.split(';')[0] as string;
}

/** The browser of a successful sign-in answer. */
export function browserOf(res: LightMyRequestResponse): Browser {
  expect(res.statusCode, res.body).toBe(200);
  const session = res.json();
  return { cookie: sessionCookieOf(res), csrf: session.csrf_token, session };
}

/** Signs in with an email and password (or the admin token) from `remoteAddress`. */
export async function signIn(
  t: TestRuntime,
  credentials: { email: string; password: string } | { admin_token: string },
  remoteAddress = '127.0.0.1',
): Promise<Browser> {
  return browserOf(
    await t.runtime.app.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: credentials,
      remoteAddress,
    }),
  );
}

/** A request as the console page makes it: the cookie always, the CSRF token on every change. */
export function asBrowser(browser: Browser, options: InjectOptions): InjectOptions {
  const method = options.method ?? 'GET';
  const change = method !== 'GET' && method !== 'HEAD';
  return {
    ...options,
    headers: {
      cookie: browser.cookie,
      ...(change ? { 'x-csrf-token': browser.csrf } : {}),
      ...options.headers,
    },
  };
}
