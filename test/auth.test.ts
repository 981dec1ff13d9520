import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, updateAccount } from '../src/billing/accounts.js';
import { createKey, revokeKey, updateKey } from '../src/billing/keys.js';
import { DIALECTS } from './helpers/databases.js';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Authentication is one preHandler that every route with `config.auth` goes through. These
 * tests mount probe routes of each generation on the real app and check every credential
 * location and every rejection with its exact body (spec "Authentication", DESIGN.md §2).
 */
describe.each(DIALECTS)('authentication on %s', (dialect) => {
  let t: TestRuntime;
  let key: string;
  const now = () => new Date();

  beforeAll(async () => {
    t = await startTestRuntime(dialect);
    const { app, store } = t.runtime;
    app.get('/v1/probe', { config: { auth: 'v1' } }, async (request) => ({
      account: request.auth?.account.slug,
      key: request.auth?.key.alias,
    }));
    app.route({
      method: ['GET', 'POST'],
      url: '/legacy-probe',
      config: { auth: 'legacy' },
      handler: async (request) => ({ account: request.auth?.account.slug }),
    });
    await createAccount(store.db, { name: 'Acme', slug: 'acme' }, now());
    key = (await createKey(store.db, { accountSlug: 'acme', alias: 'main' }, now())).plaintext;
  });
  afterAll(() => t?.close());

  const inject = (options: InjectOptions) => t.runtime.app.inject(options);

  describe('v1 credential locations', () => {
    it('accepts the x-api-key header', async () => {
      const res = await inject({ url: '/v1/probe', headers: { 'x-api-key': key } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ account: 'acme', key: 'main' });
    });

    it('accepts the x_api_key query parameter', async () => {
      const res = await inject({ url: `/v1/probe?x_api_key=${encodeURIComponent(key)}` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ account: 'acme', key: 'main' });
    });

    it('does not take the legacy locations', async () => {
      for (const res of [
        await inject({ url: `/v1/probe?access_key=${key}` }),
        await inject({ url: '/v1/probe', headers: { 'x-access-key': key } }),
      ]) {
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Invalid API Key' });
      }
    });
  });

  describe('legacy credential locations', () => {
    it('accepts access_key in the query', async () => {
      const res = await inject({ url: `/legacy-probe?access_key=${key}` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ account: 'acme' });
    });

    it('accepts access_key in a form body', async () => {
      const res = await inject({
        method: 'POST',
        url: '/legacy-probe',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `url=https%3A%2F%2Fexample.com&access_key=${encodeURIComponent(key)}`,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ account: 'acme' });
    });

    it('accepts access_key in a JSON body', async () => {
      const res = await inject({ method: 'POST', url: '/legacy-probe', payload: { access_key: key } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ account: 'acme' });
    });

    it('accepts the x-access-key header', async () => {
      const res = await inject({ method: 'POST', url: '/legacy-probe', headers: { 'x-access-key': key } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ account: 'acme' });
    });

    it('does not take the v1 header', async () => {
      const res = await inject({ url: '/legacy-probe', headers: { 'x-api-key': key } });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'Invalid API Key' });
    });
  });

  describe('rejections', () => {
    it('401 when the key is missing or empty', async () => {
      for (const res of [
        await inject({ url: '/v1/probe' }),
        await inject({ url: '/v1/probe', headers: { 'x-api-key': '' } }),
        await inject({ url: '/legacy-probe' }),
      ]) {
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Invalid API Key' });
      }
    });

    it('401 when the key is unknown, even when it differs by one character', async () => {
      const altered = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
      for (const res of [
        await inject({ url: '/v1/probe', headers: { 'x-api-key': altered } }),
        await inject({ url: `/legacy-probe?access_key=${altered}` }),
      ]) {
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Invalid API Key' });
      }
    });

    it('401 "key is inactive" for a deactivated or revoked key', async () => {
      const { db } = t.runtime.store;
      const off = await createKey(db, { accountSlug: 'acme' }, now());
      await updateKey(db, off.key.id, { active: false }, now());
      const revoked = await createKey(db, { accountSlug: 'acme' }, now());
      await revokeKey(db, revoked.key.id, now());
      for (const plaintext of [off.plaintext, revoked.plaintext]) {
        const res = await inject({ url: '/v1/probe', headers: { 'x-api-key': plaintext } });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Invalid API Key: key is inactive' });
        const legacy = await inject({ url: `/legacy-probe?access_key=${plaintext}` });
        expect(legacy.statusCode).toBe(401);
        expect(legacy.json()).toEqual({ error: 'Invalid API Key: key is inactive' });
      }
    });

    it('401 "key has expired" once the expiry has passed, and not before', async () => {
      const { db } = t.runtime.store;
      const past = await createKey(db, { accountSlug: 'acme', expiresAt: '2020-01-01' }, now());
      const res = await inject({ url: '/v1/probe', headers: { 'x-api-key': past.plaintext } });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'Invalid API Key: key has expired' });

      const future = await createKey(db, { accountSlug: 'acme', expiresAt: '2999-01-01T00:00:00Z' }, now());
      const ok = await inject({ url: '/v1/probe', headers: { 'x-api-key': future.plaintext } });
      expect(ok.statusCode).toBe(200);
    });

    it('403 "account deactivated" when the account is inactive, and back once reactivated', async () => {
      const { db } = t.runtime.store;
      await createAccount(db, { name: 'Gone', slug: 'gone' }, now());
      const gone = await createKey(db, { accountSlug: 'gone' }, now());
      await updateAccount(db, 'gone', { active: false }, now());
      const res = await inject({ url: '/v1/probe', headers: { 'x-api-key': gone.plaintext } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Forbidden: account deactivated' });
      const legacy = await inject({
        method: 'POST',
        url: '/legacy-probe',
        payload: { access_key: gone.plaintext },
      });
      expect(legacy.statusCode).toBe(403);
      expect(legacy.json()).toEqual({ error: 'Forbidden: account deactivated' });

      await updateAccount(db, 'gone', { active: true }, now());
      const back = await inject({ url: '/v1/probe', headers: { 'x-api-key': gone.plaintext } });
      expect(back.statusCode).toBe(200);
    });
  });
});
