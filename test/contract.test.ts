import fs from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../src/billing/accounts.js';
import { signFileUrl } from '../src/store/file-urls.js';
import { startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { ADMIN_TOKEN, newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * The response contract: every operation of the served /openapi.json is driven against the
 * running service, for its success and each documented error it can be made to answer here, and
 * every real answer (its status, content type and body, pre-serialized bodies included) is
 * checked against what the document declares for it, with ajv. A handler whose body drifts from
 * its declared schema, an undeclared status or content type fails here.
 */

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read as plain JSON
type Json = any;

interface Case {
  /** The operation as the document names it: `GET /v1/capture`, `GET /jobs/{job_id}`. */
  readonly op: string;
  readonly request: () => InjectOptions | Promise<InjectOptions>;
  readonly status: number;
}

/**
 * Documented statuses that no case here drives, each with why. The test fails when one of them
 * is not documented (the list must stay true) and when a documented status is neither driven nor
 * listed.
 */
const UNREACHED: Record<string, string> = {
  '500':
    'an internal failure or a timeout: driven for the crawler (a body that never ends), elsewhere by test/faults.test.ts and test/hostile-pages.test.ts',
  '503':
    'the render queue, job queue, database or blob store overloaded or down: test/faults.test.ts, test/jobs-capacity.test.ts, test/storage-faults.test.ts',
  '502':
    "the operator's model answering outside the caller's schema twice: test/extract-schema.test.ts (through the model), with no model here",
};

const VERSION = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version;

const PNG = [0x89, 0x50, 0x4e, 0x47];
const JPEG = [0xff, 0xd8, 0xff];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const PDF = [0x25, 0x50, 0x44, 0x46];
const MAGIC: Record<string, number[]> = {
  'image/png': PNG,
  'image/jpeg': JPEG,
  'image/webp': RIFF,
  'application/pdf': PDF,
};

describe('the response contract of /openapi.json', () => {
  let site: TestServer;
  let t: TestRuntime;
  let doc: Json;
  let ajv: Ajv2020;
  const validators = new Map<string, ValidateFunction>();
  const keys = { good: '', broke: '', off: '', plain: '' };
  let releaseHold: (() => void) | null = null;
  /** op → statuses seen. */
  const seen = new Map<string, Set<number>>();

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          '<!doctype html><html lang="en"><head><title>Contract page</title><meta name="description" content="A page for the contract"></head><body><main><h1>Contract</h1><p>Write to hello@site.example or call +1 415 555 0100.</p><a href="/about">About</a><a href="https://github.com/webcap">GitHub</a></main></body></html>',
        );
      }
      if (path === '/hold') {
        // Holds the one job runner until the test lets go, so that the next job stays queued.
        releaseHold = () => {
          releaseHold = null;
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
        };
        return;
      }
      if (path === '/slow') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html>');
        return;
      }
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html>gone</html>');
    });
    t = await startTestRuntime('sqlite', {
      env: {
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        FETCH_TIMEOUT_MS: '1500',
        NAVIGATION_TIMEOUT_MS: '5000',
        JOB_CONCURRENCY: '1',
        BODY_LIMIT_BYTES: '65536',
      },
      resolver: tableResolver({ 'site.example': ['127.0.0.1'] }),
    });
    const { db } = t.runtime.store;
    const now = new Date();
    const account = (slug: string, monthlyQuota: number, statsEnabled: boolean) =>
      newAccountKey(t, slug, monthlyQuota, { statsEnabled, now });
    keys.good = await account('good', 10_000, true);
    keys.plain = await account('plain', 10_000, false);
    keys.broke = await account('broke', 0, false);
    keys.off = await account('off', 10_000, true);
    await updateAccount(db, 'off', { active: false }, now);

    doc = (await t.runtime.app.inject({ url: '/openapi.json' })).json();
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat('binary', true);
  });
  afterAll(async () => {
    releaseHold?.();
    await t?.close();
    await site?.close();
  });

  const page = (path = '/page') => `http://site.example:${site.port}${path}`;
  const inject = (options: InjectOptions) => t.runtime.app.inject(options);

  function operation(op: string): Json {
    const [method, path] = op.split(' ');
    const found = doc.paths?.[path as string]?.[(method as string).toLowerCase()];
    if (found === undefined) throw new Error(`${op} is not in /openapi.json`);
    return found;
  }

  function validatorFor(op: string, status: number, mediaType: string, schema: Json): ValidateFunction {
    const id = `${op} ${status} ${mediaType}`;
    let validate = validators.get(id);
    if (validate === undefined) {
      validate = ajv.compile(schema);
      validators.set(id, validate);
    }
    return validate;
  }

  /** Checks one real answer against the document: status declared, content type declared, body valid. */
  function check(op: string, res: LightMyRequestResponse): void {
    const headOnly = res.raw.req.method === 'HEAD';
    const declared = operation(op).responses?.[String(res.statusCode)];
    expect(
      declared,
      `${op} answered ${res.statusCode}, which it does not document: ${res.body.slice(0, 300)}`,
    ).toBeDefined();
    if (res.statusCode === 204) {
      // No Content: nothing declared, nothing sent.
      expect(declared.content, `${op} 204 declares a body`).toBeUndefined();
      expect(res.body, `${op} 204 sent a body`).toBe('');
      seen.set(op, new Set([...(seen.get(op) ?? []), 204]));
      return;
    }
    const contentType = String(res.headers['content-type'] ?? '');
    const mediaType = contentType.split(';')[0]?.trim() ?? '';
    const content = declared.content ?? {};
    const entry = content[mediaType] ?? content['*/*'];
    expect(
      entry,
      `${op} ${res.statusCode} sent ${contentType}; documented: ${Object.keys(content).join(', ')}`,
    ).toBeDefined();
    const magic = MAGIC[mediaType];
    if (magic !== undefined) {
      expect([...res.rawPayload.subarray(0, magic.length)], `${op} ${mediaType} bytes`).toEqual(magic);
    } else if (mediaType === 'application/json' && !headOnly) {
      const validate = validatorFor(op, res.statusCode, mediaType, entry.schema);
      const body = JSON.parse(res.body);
      const valid = validate(body);
      expect(
        valid,
        `${op} ${res.statusCode}: ${ajv.errorsText(validate.errors)}\n${res.body.slice(0, 500)}`,
      ).toBe(true);
    } else if (entry.schema?.type === 'string' && entry.schema.format !== 'binary') {
      expect(typeof res.body).toBe('string');
    }
    const statuses = seen.get(op) ?? new Set<number>();
    statuses.add(res.statusCode);
    seen.set(op, statuses);
  }

  async function drive(c: Case): Promise<LightMyRequestResponse> {
    const res = await inject(await c.request());
    expect(res.statusCode, `${c.op}: ${res.body.slice(0, 300)}`).toBe(c.status);
    check(c.op, res);
    return res;
  }

  const v1 = (key: string) => ({ 'x-api-key': key });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const bigBody = () => JSON.stringify({ url: page(), padding: 'x'.repeat(70_000) });

  /** The cases every billable operation answers: success sync and async, and its errors. */
  function billableCases(
    op: string,
    params: Record<string, string>,
    generation: 'v1' | 'legacy',
    success: Record<string, string>[] = [{}],
  ): Case[] {
    const [method, url] = op.split(' ') as ['GET' | 'POST', string];
    const withKey = (key: string, extra: Record<string, string>): InjectOptions => {
      // A page sent as html or markdown takes the place of url.
      const source = 'html' in extra || 'markdown' in extra ? {} : params;
      const all = { ...source, ...extra, ...(generation === 'legacy' ? { access_key: key } : {}) };
      const headers = generation === 'v1' ? v1(key) : {};
      return method === 'GET'
        ? { method, url, query: all, headers }
        : { method, url, payload: all, headers: { ...headers, 'content-type': 'application/json' } };
    };
    const cases: Case[] = [
      ...success.map((extra) => ({ op, request: () => withKey(keys.good, extra), status: 200 })),
      { op, request: () => withKey(keys.good, { is_async: 'true' }), status: 202 },
      { op, request: () => withKey(keys.good, { bogus: '1' }), status: 400 },
      { op, request: () => withKey('wc_unknown_key', {}), status: 401 },
      { op, request: () => withKey(keys.broke, {}), status: 402 },
      { op, request: () => withKey(keys.off, {}), status: 403 },
      {
        op,
        request: () => ({ ...withKey(keys.good, {}), method: 'HEAD' as const, payload: undefined }),
        status: 405,
      },
    ];
    if (method === 'POST') {
      cases.push({
        op,
        request: () => ({
          method,
          url,
          payload: bigBody(),
          headers: { ...(generation === 'v1' ? v1(keys.good) : {}), 'content-type': 'application/json' },
        }),
        status: 413,
      });
    }
    return cases;
  }

  it('drives every billable operation and checks each answer against the document', async () => {
    const cases: Case[] = [
      ...billableCases('GET /v1/capture', { url: page() }, 'v1', [
        {},
        { format: 'jpeg' },
        { format: 'webp' },
        { format: 'pdf' },
        { response_type: 'json' },
        { response_type: 'base64', format: 'jpeg' },
        {
          response_type: 'json',
          actions: '[{"type":"screenshot"}]',
          full_page: 'true',
          freeze_fixed: 'true',
        },
      ]),
      ...billableCases('POST /v1/capture', { url: page() }, 'v1', [
        {},
        { response_type: 'json' },
        { html: '<p>sent</p>' },
      ]),
      ...billableCases('GET /capture', { url: page() }, 'legacy'),
      ...billableCases('POST /capture', { url: page() }, 'legacy', [{}, { response_type: 'json' }]),
      ...billableCases('GET /v1/content', { url: page() }, 'v1', [
        {},
        { include_html: 'true', include_markdown: 'true' },
      ]),
      ...billableCases('POST /v1/content', { url: page() }, 'v1', [
        {},
        { markdown: '# sent' },
        { actions: '[{"type":"screenshot","full_page":true}]' },
      ]),
      ...billableCases('GET /content', { url: page() }, 'legacy'),
      ...billableCases('POST /content', { url: page() }, 'legacy'),
      ...billableCases('GET /v1/analyze', { url: page() }, 'v1', [
        {},
        { custom_response: '{"tone":"the tone of the page"}' },
      ]),
      ...billableCases('POST /v1/analyze', { url: page() }, 'v1'),
      ...billableCases('GET /v1/extract', { url: page(), extract_rules: '{"title":"title"}' }, 'v1', [
        {},
        { extract_rules: '{"title":"title","none":{"selector":".none","type":"list"}}' },
      ]),
      ...billableCases('POST /v1/extract', { url: page(), extract_rules: '{"title":"title"}' }, 'v1'),
      ...billableCases('GET /analyze', { url: page() }, 'legacy'),
      ...billableCases('POST /analyze', { url: page() }, 'legacy'),
      ...billableCases('GET /v1/website/crawler', { query: page() }, 'v1', [
        {},
        { return_page_source: 'true' },
      ]),
      ...billableCases('GET /v1/map', { url: page() }, 'v1', [{}, { search: 'about', limit: '1' }]),
      ...billableCases('POST /v1/map', { url: page() }, 'v1'),
      {
        op: 'GET /v1/website/crawler',
        request: () => ({
          url: '/v1/website/crawler',
          query: { query: page('/slow') },
          headers: v1(keys.good),
        }),
        status: 500,
      },
    ];
    for (const c of cases) await drive(c);
  }, 600_000);

  it('drives the account, file and job operations', async () => {
    const cases: Case[] = [
      { op: 'GET /v1/usage', request: () => ({ url: '/v1/usage', headers: v1(keys.good) }), status: 200 },
      { op: 'GET /v1/usage', request: () => ({ url: '/v1/usage' }), status: 401 },
      { op: 'GET /v1/usage', request: () => ({ url: '/v1/usage', headers: v1(keys.off) }), status: 403 },
      {
        op: 'GET /v1/stats',
        request: () => ({ url: '/v1/stats?engine=capture', headers: v1(keys.good) }),
        status: 200,
      },
      { op: 'GET /v1/stats', request: () => ({ url: '/v1/stats', headers: v1(keys.good) }), status: 400 },
      { op: 'GET /v1/stats', request: () => ({ url: '/v1/stats?engine=capture' }), status: 401 },
      {
        op: 'GET /v1/stats',
        request: () => ({ url: '/v1/stats?engine=capture', headers: v1(keys.plain) }),
        status: 403,
      },
      {
        op: 'GET /v1/stats',
        request: () => ({ url: '/v1/stats?engine=nosuch', headers: v1(keys.good) }),
        status: 404,
      },
    ];
    for (const c of cases) await drive(c);

    // A hosted file: the link a JSON capture answers.
    const shot = await inject({
      url: '/v1/capture',
      query: { url: page(), response_type: 'json' },
      headers: v1(keys.good),
    });
    const link = new URL(shot.json().screenshot_url);
    const filePath = `${link.pathname}${link.search}`;
    const fileCases: Case[] = [
      { op: 'GET /v1/files/{id}', request: () => ({ url: filePath }), status: 200 },
      { op: 'GET /v1/files/{id}', request: () => ({ url: link.pathname }), status: 400 },
      {
        op: 'GET /v1/files/{id}',
        // A link signed right, to a file that is not there.
        request: () => {
          const secret = t.runtime.calls.signingSecret;
          const gone = new URL(
            signFileUrl('http://x', 'NoSuchFile0123456789', new Date(Date.now() + 60_000), secret),
          );
          return { url: `${gone.pathname}${gone.search}` };
        },
        status: 404,
      },
      {
        op: 'GET /v1/files/{id}',
        request: () => {
          const forged = new URL(link);
          forged.searchParams.set('signature', 'forged');
          return { url: `${forged.pathname}${forged.search}` };
        },
        status: 403,
      },
    ];
    for (const c of fileCases) await drive(c);

    // Jobs: one finished, one running (holding the single runner), one queued behind it.
    const submit = async (query: string) =>
      (
        await inject({
          url: `/v1/website/crawler?is_async=true&query=${encodeURIComponent(query)}`,
          headers: v1(keys.good),
        })
      ).json().job_id as string;
    const done = await submit(page());
    for (let i = 0; i < 600; i += 1) {
      const record = (await inject({ url: `/jobs/${done}`, headers: v1(keys.good) })).json();
      if (record.status === 'completed' || record.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const held = await submit(page('/hold'));
    const queued = await submit(page());
    const jobCases: Case[] = [
      {
        op: 'GET /jobs/{job_id}',
        request: () => ({ url: `/jobs/${done}`, headers: v1(keys.good) }),
        status: 200,
      },
      {
        op: 'GET /jobs/{job_id}',
        request: () => ({ url: `/jobs/${held}`, headers: v1(keys.good) }),
        status: 200,
      },
      {
        op: 'GET /jobs/{job_id}',
        request: () => ({ url: '/jobs/not%20an%20id', headers: v1(keys.good) }),
        status: 400,
      },
      { op: 'GET /jobs/{job_id}', request: () => ({ url: `/jobs/${done}` }), status: 401 },
      {
        op: 'GET /jobs/{job_id}',
        request: () => ({ url: `/jobs/${done}`, headers: v1(keys.off) }),
        status: 403,
      },
      {
        op: 'GET /jobs/{job_id}',
        request: () => ({ url: `/jobs/${done}`, headers: v1(keys.plain) }),
        status: 404,
      },
      {
        op: 'DELETE /jobs/{job_id}',
        request: () => ({ method: 'DELETE', url: `/jobs/${queued}`, headers: v1(keys.good) }),
        status: 200,
      },
      {
        op: 'DELETE /jobs/{job_id}',
        request: () => ({ method: 'DELETE', url: '/jobs/not%20an%20id', headers: v1(keys.good) }),
        status: 400,
      },
      {
        op: 'DELETE /jobs/{job_id}',
        request: () => ({ method: 'DELETE', url: `/jobs/${done}` }),
        status: 401,
      },
      {
        op: 'DELETE /jobs/{job_id}',
        request: () => ({ method: 'DELETE', url: `/jobs/${done}`, headers: v1(keys.off) }),
        status: 403,
      },
      {
        op: 'DELETE /jobs/{job_id}',
        request: () => ({ method: 'DELETE', url: `/jobs/${done}`, headers: v1(keys.plain) }),
        status: 404,
      },
      {
        op: 'DELETE /jobs/{job_id}',
        request: () => ({ method: 'DELETE', url: `/jobs/${done}`, headers: v1(keys.good) }),
        status: 409,
      },
    ];
    for (const c of jobCases) await drive(c);
    releaseHold?.();
  });

  it('drives every admin operation', async () => {
    const json = { ...admin, 'content-type': 'application/json' };
    let keyId = '';
    const cases: Case[] = [
      {
        op: 'POST /admin/v1/accounts',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts',
          headers: json,
          payload: { name: 'Acme', slug: 'acme', monthly_quota: 100 },
        }),
        status: 201,
      },
      {
        op: 'POST /admin/v1/accounts',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts',
          headers: json,
          payload: { name: 'Acme', slug: 'acme' },
        }),
        status: 409,
      },
      {
        op: 'POST /admin/v1/accounts',
        request: () => ({ method: 'POST', url: '/admin/v1/accounts', headers: json, payload: { slug: 'x' } }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/accounts',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts',
          headers: json,
          payload: JSON.stringify({ name: 'x'.repeat(70_000), slug: 'big' }),
        }),
        status: 413,
      },
      {
        op: 'GET /admin/v1/accounts',
        request: () => ({ url: '/admin/v1/accounts', headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}',
        request: () => ({ url: '/admin/v1/accounts/acme', headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}',
        request: () => ({ url: '/admin/v1/accounts/nobody', headers: admin }),
        status: 404,
      },
      {
        op: 'PATCH /admin/v1/accounts/{slug}',
        request: () => ({
          method: 'PATCH',
          url: '/admin/v1/accounts/acme',
          headers: json,
          payload: { per_minute: 60, stats_enabled: true },
        }),
        status: 200,
      },
      {
        op: 'PATCH /admin/v1/accounts/{slug}',
        request: () => ({
          method: 'PATCH',
          url: '/admin/v1/accounts/acme',
          headers: json,
          payload: { per_minute: -1 },
        }),
        status: 400,
      },
      {
        op: 'PATCH /admin/v1/accounts/{slug}',
        request: () => ({
          method: 'PATCH',
          url: '/admin/v1/accounts/nobody',
          headers: json,
          payload: { active: false },
        }),
        status: 404,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/webhook-secret',
        request: () => ({ url: '/admin/v1/accounts/acme/webhook-secret', headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/webhook-secret',
        request: () => ({ url: '/admin/v1/accounts/nobody/webhook-secret', headers: admin }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/webhook-secret/rotate',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/acme/webhook-secret/rotate',
          headers: admin,
        }),
        status: 200,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/webhook-secret/rotate',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/nobody/webhook-secret/rotate',
          headers: admin,
        }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/packs',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/acme/packs',
          headers: json,
          payload: { title: 'Starter', total: 500 },
        }),
        status: 201,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/packs',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/acme/packs',
          headers: json,
          payload: { title: 'Starter' },
        }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/packs',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/nobody/packs',
          headers: json,
          payload: { title: 'Starter', total: 5 },
        }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/packs',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/acme/packs',
          headers: json,
          payload: JSON.stringify({ title: 'x'.repeat(70_000), total: 5 }),
        }),
        status: 413,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/packs',
        request: () => ({ url: '/admin/v1/accounts/acme/packs', headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/packs',
        request: () => ({ url: '/admin/v1/accounts/nobody/packs', headers: admin }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/credits',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/acme/credits',
          headers: json,
          payload: { amount: 50, note: 'welcome' },
        }),
        status: 201,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/credits',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/acme/credits',
          headers: json,
          payload: { amount: 'many' },
        }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/credits',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/nobody/credits',
          headers: json,
          payload: { amount: 5 },
        }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/credits',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/acme/credits',
          headers: json,
          payload: JSON.stringify({ amount: 5, note: 'x'.repeat(70_000) }),
        }),
        status: 413,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/ledger',
        request: () => ({ url: '/admin/v1/accounts/good/ledger', headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/ledger',
        request: () => ({ url: '/admin/v1/accounts/nobody/ledger', headers: admin }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/keys',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/keys',
          headers: json,
          payload: { account: 'acme', alias: 'ci', quotas: { daily: 10 } },
        }),
        status: 201,
      },
      {
        op: 'POST /admin/v1/keys',
        request: () => ({ method: 'POST', url: '/admin/v1/keys', headers: json, payload: { alias: 'ci' } }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/keys',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/keys',
          headers: json,
          payload: { account: 'nobody' },
        }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/keys',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/keys',
          headers: json,
          payload: JSON.stringify({ account: 'acme', alias: 'x'.repeat(70_000) }),
        }),
        status: 413,
      },
      {
        op: 'GET /admin/v1/keys',
        request: () => ({ url: '/admin/v1/keys?account=acme', headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/keys',
        request: () => ({ url: '/admin/v1/keys?account=nobody', headers: admin }),
        status: 404,
      },
      {
        op: 'GET /admin/v1/keys/{id}',
        request: () => ({ url: `/admin/v1/keys/${keyId}`, headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/keys/{id}',
        request: () => ({ url: '/admin/v1/keys/nokey', headers: admin }),
        status: 404,
      },
      {
        op: 'PATCH /admin/v1/keys/{id}',
        request: () => ({
          method: 'PATCH',
          url: `/admin/v1/keys/${keyId}`,
          headers: json,
          payload: { alias: 'ci-2' },
        }),
        status: 200,
      },
      {
        op: 'PATCH /admin/v1/keys/{id}',
        request: () => ({
          method: 'PATCH',
          url: `/admin/v1/keys/${keyId}`,
          headers: json,
          payload: { quotas: { daily: -1 } },
        }),
        status: 400,
      },
      {
        op: 'PATCH /admin/v1/keys/{id}',
        request: () => ({
          method: 'PATCH',
          url: '/admin/v1/keys/nokey',
          headers: json,
          payload: { alias: 'x' },
        }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/keys/{id}/signing-secret',
        request: () => ({ method: 'POST', url: `/admin/v1/keys/${keyId}/signing-secret`, headers: admin }),
        status: 200,
      },
      {
        op: 'POST /admin/v1/keys/{id}/signing-secret',
        request: () => ({ method: 'POST', url: '/admin/v1/keys/nokey/signing-secret', headers: admin }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/keys/{id}/revoke',
        request: () => ({ method: 'POST', url: `/admin/v1/keys/${keyId}/revoke`, headers: admin }),
        status: 200,
      },
      {
        op: 'POST /admin/v1/keys/{id}/revoke',
        request: () => ({ method: 'POST', url: '/admin/v1/keys/nokey/revoke', headers: admin }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/keys/{id}/signing-secret',
        request: () => ({ method: 'POST', url: `/admin/v1/keys/${keyId}/signing-secret`, headers: admin }),
        status: 409,
      },
    ];
    // Console users and the audit log (docs/console.md).
    let ownerId = '';
    let memberId = '';
    const user = (payload: object): InjectOptions => ({
      method: 'POST',
      url: '/admin/v1/users',
      headers: json,
      payload,
    });
    cases.push(
      {
        op: 'POST /admin/v1/users',
        request: () => user({ email: 'owner@acme.example', role: 'owner', account: 'acme' }),
        status: 201,
      },
      {
        op: 'POST /admin/v1/users',
        request: () =>
          user({
            email: 'member@acme.example',
            role: 'member',
            account: 'acme',
            password: 'a member password',
          }),
        status: 201,
      },
      {
        op: 'POST /admin/v1/users',
        request: () => user({ email: 'owner@acme.example', role: 'owner', account: 'acme' }),
        status: 409,
      },
      {
        op: 'POST /admin/v1/users',
        request: () => user({ email: 'x@acme.example', role: 'owner' }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/users',
        request: () => user({ email: 'x@acme.example', role: 'owner', account: 'nobody' }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/users',
        request: () => ({ ...user({}), payload: JSON.stringify({ email: 'x'.repeat(70_000) }) }),
        status: 413,
      },
      {
        op: 'GET /admin/v1/users',
        request: () => ({ url: '/admin/v1/users?account=acme', headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/users',
        request: () => ({ url: '/admin/v1/users?account=nobody', headers: admin }),
        status: 404,
      },
      {
        op: 'GET /admin/v1/users',
        request: () => ({ url: `/admin/v1/users?account=${'x'.repeat(65)}`, headers: admin }),
        status: 400,
      },
      {
        op: 'PATCH /admin/v1/users/{id}',
        request: () => ({
          method: 'PATCH',
          url: `/admin/v1/users/${ownerId}`,
          headers: json,
          payload: { name: 'Olga' },
        }),
        status: 200,
      },
      {
        op: 'PATCH /admin/v1/users/{id}',
        request: () => ({
          method: 'PATCH',
          url: `/admin/v1/users/${ownerId}`,
          headers: json,
          payload: { role: 'member' },
        }),
        status: 409,
      },
      {
        op: 'PATCH /admin/v1/users/{id}',
        request: () => ({
          method: 'PATCH',
          url: `/admin/v1/users/${ownerId}`,
          headers: json,
          payload: { role: 'king' },
        }),
        status: 400,
      },
      {
        op: 'PATCH /admin/v1/users/{id}',
        request: () => ({
          method: 'PATCH',
          url: '/admin/v1/users/nouser',
          headers: json,
          payload: { name: 'x' },
        }),
        status: 404,
      },
      {
        op: 'PATCH /admin/v1/users/{id}',
        request: () => ({
          method: 'PATCH',
          url: `/admin/v1/users/${ownerId}`,
          headers: json,
          payload: JSON.stringify({ name: 'x'.repeat(70_000) }),
        }),
        status: 413,
      },
      {
        op: 'POST /admin/v1/users/{id}/password',
        request: () => ({ method: 'POST', url: `/admin/v1/users/${ownerId}/password`, headers: admin }),
        status: 200,
      },
      {
        op: 'POST /admin/v1/users/{id}/password',
        request: () => ({
          method: 'POST',
          url: `/admin/v1/users/${ownerId}/password`,
          headers: json,
          payload: { password: 'chosen by the operator' },
        }),
        status: 204,
      },
      {
        op: 'POST /admin/v1/users/{id}/password',
        request: () => ({
          method: 'POST',
          url: `/admin/v1/users/${ownerId}/password`,
          headers: json,
          payload: { password: 'short' },
        }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/users/{id}/password',
        request: () => ({ method: 'POST', url: '/admin/v1/users/nouser/password', headers: admin }),
        status: 404,
      },
      {
        op: 'POST /admin/v1/users/{id}/password',
        request: () => ({
          method: 'POST',
          url: `/admin/v1/users/${ownerId}/password`,
          headers: json,
          payload: JSON.stringify({ password: 'x'.repeat(70_000) }),
        }),
        status: 413,
      },
      {
        op: 'DELETE /admin/v1/users/{id}',
        request: () => ({ method: 'DELETE', url: `/admin/v1/users/${ownerId}`, headers: admin }),
        status: 409,
      },
      {
        op: 'DELETE /admin/v1/users/{id}',
        request: () => ({ method: 'DELETE', url: `/admin/v1/users/${memberId}`, headers: admin }),
        status: 204,
      },
      {
        op: 'DELETE /admin/v1/users/{id}',
        request: () => ({ method: 'DELETE', url: `/admin/v1/users/${memberId}`, headers: admin }),
        status: 404,
      },
      {
        op: 'DELETE /admin/v1/users/{id}',
        request: () => ({ method: 'DELETE', url: `/admin/v1/users/${'x'.repeat(65)}`, headers: admin }),
        status: 400,
      },
      {
        op: 'GET /admin/v1/audit',
        request: () => ({ url: '/admin/v1/audit?account=acme&limit=5', headers: admin }),
        status: 200,
      },
      {
        op: 'GET /admin/v1/audit',
        request: () => ({ url: '/admin/v1/audit?limit=0', headers: admin }),
        status: 400,
      },
      {
        op: 'GET /admin/v1/audit',
        request: () => ({ url: '/admin/v1/audit?account=nobody', headers: admin }),
        status: 404,
      },
    );
    // Bounds of path parameters and queries (400), and bodies over the limit wherever one is read (413).
    const long = 'x'.repeat(65);
    const big = () => JSON.stringify({ padding: 'x'.repeat(70_000) });
    cases.push(
      {
        op: 'GET /admin/v1/accounts/{slug}',
        request: () => ({ url: `/admin/v1/accounts/${long}`, headers: admin }),
        status: 400,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/webhook-secret',
        request: () => ({ url: `/admin/v1/accounts/${long}/webhook-secret`, headers: admin }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/webhook-secret/rotate',
        request: () => ({
          method: 'POST',
          url: `/admin/v1/accounts/${long}/webhook-secret/rotate`,
          headers: admin,
        }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/accounts/{slug}/webhook-secret/rotate',
        request: () => ({
          method: 'POST',
          url: '/admin/v1/accounts/acme/webhook-secret/rotate',
          headers: json,
          payload: big(),
        }),
        status: 413,
      },
      {
        op: 'PATCH /admin/v1/accounts/{slug}',
        request: () => ({ method: 'PATCH', url: '/admin/v1/accounts/acme', headers: json, payload: big() }),
        status: 413,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/packs',
        request: () => ({ url: `/admin/v1/accounts/${long}/packs`, headers: admin }),
        status: 400,
      },
      {
        op: 'GET /admin/v1/accounts/{slug}/ledger',
        request: () => ({ url: '/admin/v1/accounts/good/ledger?limit=0', headers: admin }),
        status: 400,
      },
      {
        op: 'GET /admin/v1/keys',
        request: () => ({ url: `/admin/v1/keys?account=${long}`, headers: admin }),
        status: 400,
      },
      {
        op: 'GET /admin/v1/keys/{id}',
        request: () => ({ url: `/admin/v1/keys/${long}`, headers: admin }),
        status: 400,
      },
      {
        op: 'PATCH /admin/v1/keys/{id}',
        request: () => ({ method: 'PATCH', url: `/admin/v1/keys/${keyId}`, headers: json, payload: big() }),
        status: 413,
      },
      {
        op: 'POST /admin/v1/keys/{id}/revoke',
        request: () => ({ method: 'POST', url: `/admin/v1/keys/${long}/revoke`, headers: admin }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/keys/{id}/revoke',
        request: () => ({
          method: 'POST',
          url: `/admin/v1/keys/${keyId}/revoke`,
          headers: json,
          payload: big(),
        }),
        status: 413,
      },
      {
        op: 'POST /admin/v1/keys/{id}/signing-secret',
        request: () => ({ method: 'POST', url: `/admin/v1/keys/${long}/signing-secret`, headers: admin }),
        status: 400,
      },
      {
        op: 'POST /admin/v1/keys/{id}/signing-secret',
        request: () => ({
          method: 'POST',
          url: `/admin/v1/keys/${keyId}/signing-secret`,
          headers: json,
          payload: big(),
        }),
        status: 413,
      },
    );
    for (const c of cases) {
      const res = await drive(c);
      if (c.op === 'POST /admin/v1/keys' && c.status === 201) keyId = res.json().id;
      if (c.op === 'POST /admin/v1/users' && c.status === 201) {
        if (res.json().role === 'owner') ownerId = res.json().id;
        else memberId = res.json().id;
      }
    }
    // Every operation refuses the same request without the admin token (401), before anything else.
    for (const c of cases.filter(({ status }) => status < 300)) {
      const { headers, ...request } = await c.request();
      const { authorization: _token, ...rest } = (headers ?? {}) as Record<string, string>;
      await drive({ op: c.op, request: () => ({ ...request, headers: rest }), status: 401 });
    }
  });

  it('drives the crawl operations', async () => {
    const start = (key: string, body: Record<string, unknown>): InjectOptions => ({
      method: 'POST',
      url: '/v1/crawl',
      payload: body,
      headers: { ...v1(key), 'content-type': 'application/json' },
    });
    const one = { url: page(), limit: 1, sitemap: 'skip' };
    const startCases: Case[] = [
      { op: 'POST /v1/crawl', request: () => start(keys.good, one), status: 202 },
      {
        op: 'GET /v1/crawl',
        request: () => ({ url: '/v1/crawl', query: { url: page(), limit: '1' }, headers: v1(keys.good) }),
        status: 202,
      },
      { op: 'POST /v1/crawl', request: () => start(keys.good, { ...one, bogus: 1 }), status: 400 },
      { op: 'GET /v1/crawl', request: () => ({ url: '/v1/crawl', headers: v1(keys.good) }), status: 400 },
      { op: 'POST /v1/crawl', request: () => start('wc_unknown_key', one), status: 401 },
      { op: 'GET /v1/crawl', request: () => ({ url: '/v1/crawl', query: { url: page() } }), status: 401 },
      { op: 'POST /v1/crawl', request: () => start(keys.broke, one), status: 402 },
      {
        op: 'GET /v1/crawl',
        request: () => ({ url: '/v1/crawl', query: { url: page() }, headers: v1(keys.broke) }),
        status: 402,
      },
      { op: 'POST /v1/crawl', request: () => start(keys.off, one), status: 403 },
      {
        op: 'GET /v1/crawl',
        request: () => ({ url: '/v1/crawl', query: { url: page() }, headers: v1(keys.off) }),
        status: 403,
      },
      {
        op: 'GET /v1/crawl',
        request: () => ({ method: 'HEAD', url: '/v1/crawl', query: { url: page() }, headers: v1(keys.good) }),
        status: 405,
      },
      {
        op: 'POST /v1/crawl',
        request: () => ({ ...start(keys.good, one), method: 'HEAD' as const, payload: undefined }),
        status: 405,
      },
      {
        op: 'POST /v1/crawl',
        request: () => ({
          method: 'POST',
          url: '/v1/crawl',
          payload: bigBody(),
          headers: { ...v1(keys.good), 'content-type': 'application/json' },
        }),
        status: 413,
      },
    ];
    for (const c of startCases) await drive(c);
    const done = (await inject(start(keys.good, one))).json().crawl_id as string;
    for (let i = 0; i < 3000; i += 1) {
      const record = (await inject({ url: `/v1/crawl/${done}`, headers: v1(keys.good) })).json();
      if (record.status !== 'queued' && record.status !== 'running' && record.counts.running === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Its second page (the start page's link) waits a minute for its host's slot: live until cancelled.
    const live = (
      await inject(start(keys.good, { url: page(), limit: 2, sitemap: 'skip', delay: 60 }))
    ).json().crawl_id as string;
    const read = (id: string, key?: string, method: 'GET' | 'DELETE' = 'GET'): InjectOptions => ({
      method,
      url: `/v1/crawl/${id}`,
      headers: key === undefined ? {} : v1(key),
    });
    const recordCases: Case[] = [
      { op: 'GET /v1/crawl/{crawl_id}', request: () => read(done, keys.good), status: 200 },
      { op: 'GET /v1/crawl/{crawl_id}', request: () => read('not%20an%20id', keys.good), status: 400 },
      { op: 'GET /v1/crawl/{crawl_id}', request: () => read(done), status: 401 },
      { op: 'GET /v1/crawl/{crawl_id}', request: () => read(done, keys.off), status: 403 },
      { op: 'GET /v1/crawl/{crawl_id}', request: () => read(done, keys.plain), status: 404 },
      { op: 'DELETE /v1/crawl/{crawl_id}', request: () => read(live, keys.good, 'DELETE'), status: 200 },
      {
        op: 'DELETE /v1/crawl/{crawl_id}',
        request: () => read('not%20an%20id', keys.good, 'DELETE'),
        status: 400,
      },
      { op: 'DELETE /v1/crawl/{crawl_id}', request: () => read(done, undefined, 'DELETE'), status: 401 },
      { op: 'DELETE /v1/crawl/{crawl_id}', request: () => read(done, keys.off, 'DELETE'), status: 403 },
      { op: 'DELETE /v1/crawl/{crawl_id}', request: () => read(done, keys.plain, 'DELETE'), status: 404 },
      { op: 'DELETE /v1/crawl/{crawl_id}', request: () => read(done, keys.good, 'DELETE'), status: 409 },
    ];
    for (const c of recordCases) await drive(c);
  });

  it('drives the batch operations', async () => {
    const start = (key: string, body: Record<string, unknown>): InjectOptions => ({
      method: 'POST',
      url: '/v1/batch',
      payload: body,
      headers: { ...v1(key), 'content-type': 'application/json' },
    });
    const one = { engine: 'content', urls: [page()] };
    const startCases: Case[] = [
      { op: 'POST /v1/batch', request: () => start(keys.good, one), status: 202 },
      { op: 'POST /v1/batch', request: () => start(keys.good, { ...one, bogus: 1 }), status: 400 },
      { op: 'POST /v1/batch', request: () => start('wc_unknown_key', one), status: 401 },
      { op: 'POST /v1/batch', request: () => start(keys.broke, one), status: 402 },
      { op: 'POST /v1/batch', request: () => start(keys.off, one), status: 403 },
      {
        op: 'POST /v1/batch',
        request: () => ({
          method: 'POST',
          url: '/v1/batch',
          payload: bigBody(),
          headers: { ...v1(keys.good), 'content-type': 'application/json' },
        }),
        status: 413,
      },
    ];
    for (const c of startCases) await drive(c);
    const done = (await inject(start(keys.good, one))).json().batch_id as string;
    for (let i = 0; i < 3000; i += 1) {
      const record = (await inject({ url: `/v1/batch/${done}`, headers: v1(keys.good) })).json();
      if (record.status !== 'queued' && record.status !== 'running' && record.counts.running === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Its item's page is held until the test lets go: the batch stays live.
    const live = (await inject(start(keys.good, { engine: 'content', urls: [page('/hold')] }))).json()
      .batch_id as string;
    const read = (id: string, key?: string, method: 'GET' | 'DELETE' = 'GET'): InjectOptions => ({
      method,
      url: `/v1/batch/${id}`,
      headers: key === undefined ? {} : v1(key),
    });
    const recordCases: Case[] = [
      { op: 'GET /v1/batch/{batch_id}', request: () => read(done, keys.good), status: 200 },
      { op: 'GET /v1/batch/{batch_id}', request: () => read('not%20an%20id', keys.good), status: 400 },
      { op: 'GET /v1/batch/{batch_id}', request: () => read(done), status: 401 },
      { op: 'GET /v1/batch/{batch_id}', request: () => read(done, keys.off), status: 403 },
      { op: 'GET /v1/batch/{batch_id}', request: () => read(done, keys.plain), status: 404 },
      { op: 'DELETE /v1/batch/{batch_id}', request: () => read(live, keys.good, 'DELETE'), status: 200 },
      {
        op: 'DELETE /v1/batch/{batch_id}',
        request: () => read('not%20an%20id', keys.good, 'DELETE'),
        status: 400,
      },
      { op: 'DELETE /v1/batch/{batch_id}', request: () => read(done, undefined, 'DELETE'), status: 401 },
      { op: 'DELETE /v1/batch/{batch_id}', request: () => read(done, keys.off, 'DELETE'), status: 403 },
      { op: 'DELETE /v1/batch/{batch_id}', request: () => read(done, keys.plain, 'DELETE'), status: 404 },
      { op: 'DELETE /v1/batch/{batch_id}', request: () => read(done, keys.good, 'DELETE'), status: 409 },
    ];
    for (const c of recordCases) await drive(c);
    releaseHold?.();
  });

  it("names the package's version, and the Idempotency-Key header of every operation that reads it", () => {
    expect(doc.info.version).toBe(VERSION);
    const keyed: string[] = [];
    const submittable: string[] = [];
    for (const [path, ops] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(ops)) {
        const name = `${method.toUpperCase()} ${path}`;
        const header = (op.parameters ?? []).find(
          (p: Json) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
        );
        if (header !== undefined) {
          keyed.push(name);
          expect(header, name).toMatchObject({ required: false, schema: { type: 'string' } });
          expect(header.schema.description ?? header.description, name).toContain('printable ASCII');
        }
        const query = (op.parameters ?? []).some((p: Json) => p.in === 'query' && p.name === 'is_async');
        const body = Object.values<Json>(op.requestBody?.content ?? {}).some(
          (media) => media.schema?.properties?.is_async !== undefined,
        );
        // A call that may be a job reads the key; so do a crawl's and a batch's submissions.
        if (query || body || ['/v1/crawl', '/v1/batch'].includes(path)) submittable.push(name);
      }
    }
    expect(keyed.sort()).toEqual(submittable.sort());
    expect(keyed).toEqual(
      expect.arrayContaining(['POST /v1/content', 'GET /capture', 'POST /v1/crawl', 'POST /v1/batch']),
    );
  });

  it('has driven every documented status of every operation, but those listed as unreached', () => {
    const missing: string[] = [];
    for (const [path, ops] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(ops)) {
        const name = `${method.toUpperCase()} ${path}`;
        for (const status of Object.keys(op.responses ?? {})) {
          if (seen.get(name)?.has(Number(status))) continue;
          if (UNREACHED[status] !== undefined) continue;
          missing.push(`${name} ${status}`);
        }
      }
    }
    if (missing.length > 0) throw new Error(`documented, never driven:\n${missing.join('\n')}`);
    for (const status of Object.keys(UNREACHED)) {
      const documented = Object.values<Json>(doc.paths).some((ops) =>
        Object.values<Json>(ops).some((op) => op.responses?.[status] !== undefined),
      );
      expect(documented, `UNREACHED lists ${status}, which no operation documents`).toBe(true);
    }
  });
});
