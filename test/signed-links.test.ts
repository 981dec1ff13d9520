import fs from 'node:fs';
import path from 'node:path';
import { signUrl } from '@webcap/sdk';
import type { InjectOptions } from 'fastify';
import type { Browser } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../src/billing/accounts.js';
import { createKey } from '../src/billing/keys.js';
import { type LinkParams, signedQueryString } from '../src/requests/signed-link.js';
import { type FixtureServer, launchChromium, startFixtureServer } from './helpers/chromium.js';
import { webcap, webcapJson } from './helpers/cli-in-process.js';
import { DIALECTS, databaseEnv, tempDir } from './helpers/databases.js';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/* Signed links (docs/signed-links.md): keys' signing secrets, the link's checks, and a real <img>. */

interface CreatedKey {
  id: string;
  key: string;
  signing_secret: string;
  signed_only: boolean;
  has_signing_secret: boolean;
}

/** A target the network guard refuses before any browser work: a link that gets this far was accepted. */
const BLOCKED_TARGET = 'http://169.254.169.254/latest/meta-data/';
const MISMATCH =
  'Invalid API Key: signed link: the signature does not match (an unknown key_id, a parameter changed since signing, or a signing secret rotated since)';

describe.each(DIALECTS)('signed links on %s', (dialect) => {
  let t: TestRuntime;
  let now = new Date();
  const seconds = () => Math.floor(now.getTime() / 1000);

  beforeAll(async () => {
    t = await startTestRuntime(dialect, { clock: () => now });
    await createAccount(t.runtime.store.db, { name: 'acme', slug: 'acme', monthlyQuota: 1000 }, now);
  });
  afterAll(() => t?.close());

  const inject = (options: InjectOptions) => t.runtime.app.inject(options);
  const admin = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    inject({ method, url: `/admin/v1${url}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload });
  const newKey = async (extra: object = {}): Promise<CreatedKey> => {
    const res = await admin('POST', '/keys', { account: 'acme', ...extra });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const rotate = async (id: string): Promise<string> => {
    const res = await admin('POST', `/keys/${id}/signing-secret`);
    expect(res.statusCode).toBe(200);
    return res.json().signing_secret;
  };
  const link = (
    keyId: string,
    secret: string,
    params: LinkParams = { url: BLOCKED_TARGET },
    expires = seconds() + 600,
  ) => `/v1/content?${signedQueryString(params, { keyId, expires, signingSecret: secret })}`;
  const get = (url: string, headers: Record<string, string> = {}) => inject({ url, headers });
  const used = async (key: string) =>
    (await get('/v1/usage', { 'x-api-key': key })).json().total_used as number;
  const expectAccepted = (res: { statusCode: number; json: () => { error: string } }) => {
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^Bad Request: blocked/);
  };

  describe('happy', () => {
    it('a key is made with a signing secret, shown in that answer only and stored sealed', async () => {
      const created = await newKey();
      expect(created.signing_secret).toMatch(/^wcs_[A-Za-z0-9_-]{43}$/);
      expect(created.has_signing_secret).toBe(true);
      const shown = await admin('GET', `/keys/${created.id}`);
      const listed = (await admin('GET', '/keys?account=acme')).json().keys;
      for (const answer of [shown.json(), ...listed]) {
        expect(answer).not.toHaveProperty('signing_secret');
        expect(answer).not.toHaveProperty('key');
        expect(JSON.stringify(answer)).not.toContain(created.signing_secret);
      }
      const row = await t.runtime.store.db
        .selectFrom('api_keys')
        .select('signing_secret')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      expect(row.signing_secret).toMatch(/^v1\./);
      expect(row.signing_secret).not.toContain(created.signing_secret.slice(4));
    });

    it('a signed link stands in for the key: accepted with no key, and a refusal is not billed', async () => {
      const created = await newKey();
      const before = await used(created.key);
      expectAccepted(await get(link(created.id, created.signing_secret)));
      expect(await used(created.key)).toBe(before);
    });

    it('the SDK signs what the server verifies, parameters in any order', async () => {
      const created = await newKey();
      const signed = await signUrl({
        baseUrl: 'http://webcap.test/',
        endpoint: 'content',
        params: { url: BLOCKED_TARGET, include_markdown: true, wait_until: ['load', 'networkidle0'] },
        keyId: created.id,
        signingSecret: created.signing_secret,
        expires: seconds() + 600,
      });
      expect(signed.startsWith('http://webcap.test/v1/content?')).toBe(true);
      expectAccepted(await get(signed.slice('http://webcap.test'.length)));
    });

    it('a link re-encoded on the way still verifies: the signature covers what the route reads', async () => {
      const created = await newKey();
      const signed = link(created.id, created.signing_secret, { url: `${BLOCKED_TARGET}?q=a b~c` });
      expect(signed).toContain('%3Fq%3Da%20b~c&');
      expectAccepted(await get(signed.replace('a%20b~c', 'a+b%7Ec')));
      expect((await get(signed.replace('a%20b~c', 'a+b%7Ed'))).statusCode).toBe(401);
    });

    it('a rotated secret replaces the old one at once, through the admin API and the CLI, audited', async () => {
      const created = await newKey();
      const old = link(created.id, created.signing_secret);
      expectAccepted(await get(old));
      const rotated = await rotate(created.id);
      expect(rotated).not.toBe(created.signing_secret);
      expect((await get(old)).json()).toEqual({ error: MISMATCH });
      expectAccepted(await get(link(created.id, rotated)));

      const env = databaseEnv(t.config.database, t.dataDir);
      const cli = await webcapJson<{ id: string; signing_secret: string }>(
        ['admin', 'keys', 'rotate-signing-secret', created.id],
        env,
      );
      expect(cli.id).toBe(created.id);
      expect((await get(link(created.id, rotated))).statusCode).toBe(401);
      expectAccepted(await get(link(created.id, cli.signing_secret)));
      const audits = await t.runtime.store.db
        .selectFrom('audit_log')
        .select(['actor_kind'])
        .where('action', '=', 'key.rotate_signing_secret')
        .where('target', '=', created.id)
        .orderBy('created_at')
        .execute();
      expect(audits.map((row) => row.actor_kind)).toEqual(['admin_api', 'cli']);
    });

    it('concurrent rotations each answer a secret that was stored; the last one stored is the one that works', async () => {
      const created = await newKey();
      const secrets = await Promise.all(Array.from({ length: 8 }, () => rotate(created.id)));
      expect(new Set(secrets).size).toBe(8);
      const verdicts = await Promise.all(
        secrets.map(async (secret) => (await get(link(created.id, secret))).statusCode),
      );
      expect(verdicts.filter((status) => status === 400)).toHaveLength(1);
      expect(verdicts.filter((status) => status === 401)).toHaveLength(7);
    });

    it('webcap sign prints a link the server verifies, the secret from stdin or a file, never an argument', async () => {
      const created = await newKey();
      const args = [
        'sign',
        'content',
        BLOCKED_TARGET,
        '--key-id',
        created.id,
        '--server',
        'http://webcap.test',
      ];
      const fromStdin = await webcap(
        [...args, '--signing-secret-stdin', '--include-html'],
        {},
        `${created.signing_secret}\n`,
      );
      expect(fromStdin.code).toBe(0);
      expect(fromStdin.stdout).toMatch(
        /^http:\/\/webcap\.test\/v1\/content\?expires=\d+&include_html=true&key_id=/,
      );
      expectAccepted(await get(fromStdin.stdout.trim().slice('http://webcap.test'.length)));
      const file = path.join(tempDir(), 'secret');
      fs.writeFileSync(file, `${created.signing_secret}\n`);
      const fromFile = await webcap([...args, '--signing-secret-file', file, '--json'], {});
      expectAccepted(await get(JSON.parse(fromFile.stdout).url.slice('http://webcap.test'.length)));
      const none = await webcap(args, {});
      expect(none.code).toBe(2);
      expect(none.stderr).toContain(
        'give the signing secret with one of --signing-secret-file or --signing-secret-stdin',
      );
      expect((await webcap([...args, '--signing-secret', created.signing_secret], {})).code).toBe(2);
    });

    it('webcap sign takes the page as --html instead of a URL, and refuses a link without a page', async () => {
      const created = await newKey();
      const args = ['sign', 'content', '--key-id', created.id, '--server', 'http://webcap.test'];
      const signed = await webcap(
        [
          ...args,
          '--html',
          '<h1>Signed page</h1><p>Its text, given in the link.</p>',
          '--include-markdown',
          '--signing-secret-stdin',
        ],
        {},
        `${created.signing_secret}\n`,
      );
      expect(signed.code, signed.stderr).toBe(0);
      const link = signed.stdout.trim().slice('http://webcap.test'.length);
      expect(new URL(link, 'http://webcap.test').searchParams.has('url')).toBe(false);
      const res = await get(link);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.markdown).toContain('Its text, given in the link.');
      const none = await webcap([...args, '--signing-secret-stdin'], {}, `${created.signing_secret}\n`);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('give the page: a URL, --html or --markdown');
    });

    it('the CLI makes a key with its signing secret, signed-only when asked', async () => {
      const env = databaseEnv(t.config.database, t.dataDir);
      const made = await webcapJson<CreatedKey>(
        ['admin', 'keys', 'create', '--account', 'acme', '--signed-only'],
        env,
      );
      expect(made.signing_secret).toMatch(/^wcs_/);
      expect(made.signed_only).toBe(true);
      expectAccepted(await get(link(made.id, made.signing_secret)));
    });
  });

  describe('errors', () => {
    it('a tampered link is refused before anything runs: a signature character, a parameter changed, added or removed', async () => {
      const created = await newKey();
      const good = link(created.id, created.signing_secret, { url: BLOCKED_TARGET, include_html: 'true' });
      const signature = good.slice(-64);
      const flipped = `${good.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
      const before = await used(created.key);
      for (const url of [
        flipped,
        good.replace('include_html=true', 'include_html=false'),
        good.replace('?', '?include_markdown=true&'),
        good.replace('&include_html=true', ''),
        good.replace(`key_id=${created.id}`, 'key_id=key_unknown'),
      ]) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(401);
        expect(res.json()).toEqual({ error: MISMATCH });
      }
      expect(await used(created.key)).toBe(before);
    });

    it('an expired link is a 403 by the injected clock, and one too far ahead as well', async () => {
      const created = await newKey();
      const soon = link(created.id, created.signing_secret, { url: BLOCKED_TARGET }, seconds() + 60);
      expectAccepted(await get(soon));
      const expiresAt = new Date((seconds() + 60) * 1000).toISOString();
      now = new Date(now.getTime() + 61_000);
      const res = await get(soon);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: `Forbidden: signed link expired at ${expiresAt}` });
      const far = link(created.id, created.signing_secret, { url: BLOCKED_TARGET }, seconds() + 367 * 86_400);
      expect((await get(far)).json()).toEqual({
        error: 'Forbidden: signed link expires more than 31622400 seconds (366 days) ahead',
      });
    });

    it('malformed links are 400s naming the parameter', async () => {
      const created = await newKey();
      const good = link(created.id, created.signing_secret);
      const cases: [string, string][] = [
        [
          good.replace(/expires=\d+&/, ''),
          'expires is required in a signed link (key_id, expires, signature)',
        ],
        [good.replace(/expires=\d+/, 'expires=soon'), 'expires must be Unix seconds, digits only'],
        [good.replace(/signature=[0-9a-f]+/, 'signature=ABC'), 'signature must be 64 lowercase hex digits'],
        [
          good.replace(/key_id=[^&]+&/, ''),
          'key_id is required in a signed link (key_id, expires, signature)',
        ],
        [`${good}&key_id=another`, 'key_id must be one key id of 1 to 64 characters'],
      ];
      for (const [url, error] of cases) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(400);
        expect(res.json()).toEqual({ error: `Bad Request: ${error}` });
      }
      const withKey = await get(good, { 'x-api-key': created.key });
      expect(withKey.json()).toEqual({
        error: 'Bad Request: signature comes without an API key: a signed link names its key by key_id',
      });
    });

    it('a link is taken by the GET of capture, content and analyze only, and never as a job', async () => {
      const created = await newKey();
      const post = await inject({
        method: 'POST',
        url: link(created.id, created.signing_secret).replace('/v1/content', '/v1/analyze'),
        payload: { url: BLOCKED_TARGET },
      });
      expect(post.statusCode).toBe(401);
      expect(post.json()).toEqual({
        error: 'Invalid API Key: signed links are taken only by GET /v1/capture, /v1/content and /v1/analyze',
      });
      const elsewhere = await get(
        link(created.id, created.signing_secret).replace('/v1/content', '/v1/usage'),
      );
      expect(elsewhere.statusCode).toBe(401);
      expect(elsewhere.json()).toEqual({ error: 'Invalid API Key' });
      const job = await get(
        link(created.id, created.signing_secret, { url: BLOCKED_TARGET, is_async: true }),
      );
      expect(job.statusCode).toBe(400);
      expect(job.json()).toEqual({
        error: 'Bad Request: is_async is not taken by a signed link: it answers at once',
      });
    });

    it('a key made before signing secrets has none until one is rotated in', async () => {
      const { key } = await createKey(t.runtime.store.db, { accountSlug: 'acme' }, now);
      expect((await admin('GET', `/keys/${key.id}`)).json().has_signing_secret).toBe(false);
      const res = await get(link(key.id, 'wcs_made-up'));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        error: `Forbidden: key ${key.id} has no signing secret: rotate one in (webcap admin keys rotate-signing-secret) to sign links`,
      });
      expectAccepted(await get(link(key.id, await rotate(key.id))));
    });

    it("a revoked or deactivated key's links are refused as its key is", async () => {
      const created = await newKey();
      const signed = link(created.id, created.signing_secret);
      await admin('PATCH', `/keys/${created.id}`, { active: false });
      expect((await get(signed)).json()).toEqual({ error: 'Invalid API Key: key is inactive' });
      await admin('POST', `/keys/${created.id}/revoke`);
      expect((await admin('POST', `/keys/${created.id}/signing-secret`)).statusCode).toBe(409);
    });
  });

  describe('security', () => {
    it('a signed-only key is refused in a query string, and still taken in the header and by signed links', async () => {
      const created = await newKey();
      const patched = await admin('PATCH', `/keys/${created.id}`, { signed_only: true });
      expect(patched.json().signed_only).toBe(true);
      const query = await get(`/v1/usage?x_api_key=${encodeURIComponent(created.key)}`);
      expect(query.statusCode).toBe(403);
      expect(query.json()).toEqual({
        error:
          'Forbidden: this key is taken in a query string only in a signed link (docs/signed-links.md); send it in the X-API-Key header, or sign the link',
      });
      expect((await get(`/v1/content?url=${BLOCKED_TARGET}&x_api_key=${created.key}`)).statusCode).toBe(403);
      expect((await get('/v1/usage', { 'x-api-key': created.key })).statusCode).toBe(200);
      expectAccepted(await get(link(created.id, created.signing_secret)));
      await admin('PATCH', `/keys/${created.id}`, { signed_only: false });
      expect((await get(`/v1/usage?x_api_key=${encodeURIComponent(created.key)}`)).statusCode).toBe(200);
    });

    it("one key's secret does not sign for another key", async () => {
      const [a, b] = [await newKey(), await newKey()];
      expect((await get(link(b.id, a.signing_secret))).json()).toEqual({ error: MISMATCH });
    });
  });
});

/* The point of it all: a web page on another origin embeds a capture with no key on the page. */
describe('a signed link in a real <img>', () => {
  let site: FixtureServer;
  let t: TestRuntime;
  let api: string;
  let page: TestServer;
  let html = '';
  let browser: Browser;
  let key: CreatedKey;

  beforeAll(async () => {
    site = await startFixtureServer();
    t = await startTestRuntime('sqlite', {
      env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, NAVIGATION_TIMEOUT_MS: '10000' },
    });
    api = await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
    page = await startServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(html);
    });
    browser = await launchChromium();
    await createAccount(t.runtime.store.db, { name: 'blog', slug: 'blog', monthlyQuota: 1000 }, new Date());
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: '/admin/v1/keys',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { account: 'blog', signed_only: true },
    });
    key = res.json();
  });
  afterAll(async () => {
    await browser?.close();
    await page?.close();
    await t?.close();
    await site?.close();
  });

  const signed = (params: LinkParams) =>
    signUrl({
      baseUrl: api,
      params: { url: site.url('/capture.html'), viewport_width: 400, viewport_height: 300, ...params },
      keyId: key.id,
      signingSecret: key.signing_secret,
      expires: new Date(Date.now() + 7_200_000),
    });
  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key.key } })).json()
      .total_used as number;
  /** Serves a plain page with the image and loads it in Chromium: the image's natural width (0 when it failed). */
  async function embed(src: string): Promise<number> {
    html = `<!doctype html><html><body><h1>My post</h1><img id="shot" src="${src.replaceAll('&', '&amp;')}"></body></html>`;
    const tab = await browser.newPage();
    try {
      await tab.goto(`http://127.0.0.1:${page.port}/post.html`, { waitUntil: 'load', timeout: HANG_MS });
      const content = await tab.content();
      expect(content).not.toContain(key.key);
      expect(content).not.toContain(key.signing_secret);
      return await tab.$eval('#shot', (img) => (img as HTMLImageElement).naturalWidth);
    } finally {
      await tab.close();
    }
  }

  it('renders in an <img> on a page with no key, billed once', async () => {
    const before = await used();
    expect(await embed(await signed({ format: 'png' }))).toBe(400);
    expect(await used()).toBe(before + 1);
  });

  it('fails in the <img> when tampered, unbilled', async () => {
    const good = await signed({ format: 'png' });
    const before = await used();
    const flipped = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`;
    expect(await embed(flipped)).toBe(0);
    expect(await embed(good.replace('viewport_width=400', 'viewport_width=401'))).toBe(0);
    expect(await used()).toBe(before);
  });

  it('answers with Cache-Control and an ETag, and 304 to a matching If-None-Match', async () => {
    const good = new URL(await signed({ format: 'png', cache: true, cache_ttl: 3600 }));
    const path = `${good.pathname}${good.search}`;
    const first = await t.runtime.app.inject({ url: path });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('public, max-age=3600');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect((await sharp(first.rawPayload).metadata()).width).toBe(400);
    const again = await t.runtime.app.inject({ url: path, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers['x-webcap-cache']).toBe('hit');
    expect(again.headers.etag).toBe(etag);
    const unsigned = await t.runtime.app.inject({
      url: `/v1/capture?url=${encodeURIComponent(site.url('/capture.html'))}`,
      headers: { 'x-api-key': key.key },
    });
    expect(unsigned.statusCode).toBe(200);
    expect(unsigned.headers['cache-control']).toBeUndefined();
    expect(unsigned.headers.etag).toBeUndefined();
  });

  it('links to the same call share its cache entry and ETag, each checked and billed; a tampered one still fails', async () => {
    const params = { format: 'png', cache: true, cache_ttl: 3600, viewport_width: 402 } as const;
    const at = (expiresInMs: number) =>
      signUrl({
        baseUrl: api,
        params: { url: site.url('/capture.html'), viewport_height: 300, ...params },
        keyId: key.id,
        signingSecret: key.signing_secret,
        expires: new Date(Date.now() + expiresInMs),
      });
    const pathOf = (link: string) => `${new URL(link).pathname}${new URL(link).search}`;
    const first = await t.runtime.app.inject({ url: pathOf(await at(3_600_000)) });
    expect(first.headers['x-webcap-cache']).toBe('miss');
    const before = await used();
    const second = await t.runtime.app.inject({ url: pathOf(await at(7_200_000)) });
    expect(second.headers['x-webcap-cache']).toBe('hit');
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(await used()).toBe(before + 1);
    const tampered = pathOf(await at(7_200_000)).replace('viewport_width=402', 'viewport_width=403');
    expect((await t.runtime.app.inject({ url: tampered })).statusCode).toBe(401);
    expect(await used()).toBe(before + 1);
  });
});
