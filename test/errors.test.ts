import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/* Every error body is {"error": "..."} with the spec's status; no input produces a 500. */
describe('error responses', () => {
  let t: TestRuntime;
  const admin = { authorization: 'Bearer test-admin-token-0123456789' };

  beforeAll(async () => {
    t = await startTestRuntime('sqlite', { env: { BODY_LIMIT_BYTES: '4096' } });
    t.runtime.app.route({
      method: ['GET', 'POST'],
      url: '/legacy-probe',
      config: { auth: 'legacy' },
      handler: async () => ({ ok: true }),
    });
  });
  afterAll(() => t?.close());

  it('404 Not Found for an unknown route or method', async () => {
    for (const res of [
      await t.runtime.app.inject({ url: '/v1/nothing-here' }),
      await t.runtime.app.inject({ method: 'DELETE', url: '/healthz' }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Not Found' });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('413 Payload Too Large for a JSON or form body over the limit', async () => {
    const json = await t.runtime.app.inject({
      method: 'POST',
      url: '/legacy-probe',
      payload: { access_key: 'x', padding: 'a'.repeat(10_000) },
    });
    expect(json.statusCode).toBe(413);
    expect(json.json()).toEqual({ error: 'Payload Too Large' });
    const form = await t.runtime.app.inject({
      method: 'POST',
      url: '/legacy-probe',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `access_key=x&padding=${'a'.repeat(10_000)}`,
    });
    expect(form.statusCode).toBe(413);
    expect(form.json()).toEqual({ error: 'Payload Too Large' });
  });

  it('400 for malformed JSON, an empty JSON body and an unsupported content type', async () => {
    const malformed = await t.runtime.app.inject({
      method: 'POST',
      url: '/legacy-probe',
      headers: { 'content-type': 'application/json' },
      payload: '{"access_key": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({ error: 'Bad Request: body is not valid JSON' });
    const empty = await t.runtime.app.inject({
      method: 'POST',
      url: '/legacy-probe',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toMatch(/^Bad Request: /);
    const xml = await t.runtime.app.inject({
      method: 'POST',
      url: '/legacy-probe',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(xml.statusCode).toBe(400);
    expect(xml.json()).toEqual({ error: 'Bad Request: unsupported Content-Type; send JSON or a form' });
  });

  it('400 names the parameter that is missing, of the wrong type or not allowed', async () => {
    const missing = await t.runtime.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: admin,
      payload: { name: 'No slug' },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ error: 'Bad Request: slug is required' });

    const wrongType = await t.runtime.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: admin,
      payload: { name: 'A', slug: 'a', monthly_quota: 'lots' },
    });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().error).toMatch(/^Bad Request: monthly_quota /);

    const unknown = await t.runtime.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: admin,
      payload: { name: 'A', slug: 'a', colour: 'red' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ error: 'Bad Request: colour is not a known parameter' });

    const badSlug = await t.runtime.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: admin,
      payload: { name: 'A', slug: 'Not A Slug!' },
    });
    expect(badSlug.statusCode).toBe(400);
    expect(badSlug.json().error).toMatch(/^Bad Request: slug must be/);
  });

  it('never answers 500 to odd input', async () => {
    const odd = [
      { url: '/legacy-probe?access_key=%E0%A4%A' },
      { url: '/legacy-probe?access_key[]=a&access_key[]=b' },
      { url: `/legacy-probe?access_key=${'k'.repeat(5000)}` },
      { method: 'POST' as const, url: '/legacy-probe', payload: [1, 2, 3] },
      {
        method: 'POST' as const,
        url: '/legacy-probe',
        payload: 'null',
        headers: { 'content-type': 'application/json' },
      },
      { url: '/%', headers: {} },
    ];
    for (const request of odd) {
      const res = await t.runtime.app.inject(request);
      expect(res.statusCode, request.url).toBeLessThan(500);
      expect(typeof res.json().error).toBe('string');
    }
  });
});
