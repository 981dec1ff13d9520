import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, reservationsOf, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Request bodies and connections at the HTTP edge, over real connections (issue 19): a key given
 * outside the body is checked before the body is read, bodies are bounded in depth and keys while
 * they arrive, and a request whose headers or body stop arriving gets a 408 and its connection
 * closed, while a call that takes long to answer is not cut.
 */

const PAGE =
  '<!doctype html><html lang="en"><head><title>Plain page</title></head><body><h1>Plain page</h1><p>Some words about widgets.</p></body></html>';
/** How long /slow takes to answer: well past the short REQUEST_TIMEOUT_MS below. */
const SLOW_PAGE_MS = 8000;

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One request on a fresh connection (no keep-alive agent), its answer read to the end. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const json = (answer: Answer) => JSON.parse(answer.body.toString('utf8'));

/**
 * Writes raw bytes and never ends its side; resolves with everything answered once the connection
 * is closed (a reset included: 'close' follows 'error').
 */
function rawUntilClosed(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.lastIndexOf('\r\n\r\n') + 4));

async function listen(t: TestRuntime): Promise<number> {
  await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
  return (t.runtime.app.server.address() as AddressInfo).port;
}

describe('request bodies and connections at the HTTP edge', () => {
  let site: TestServer;
  const page = (pathname: string) => `http://127.0.0.1:${site.port}${pathname}`;

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const answer = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      if (req.url === '/slow') setTimeout(answer, SLOW_PAGE_MS);
      else answer();
    });
  });
  afterAll(() => site?.close());

  const allow = () => ({ WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, BROWSER_CONCURRENCY: '2' });

  describe('bodies', () => {
    let t: TestRuntime;
    let key: string;
    let port: number;

    beforeAll(async () => {
      t = await startTestRuntime('sqlite', { env: allow() });
      key = await newAccountKey(t, 'bodies', 100_000);
      port = await listen(t);
    });
    afterAll(() => t?.close());

    const jsonHeaders = (extra: Record<string, string> = {}) => ({
      'content-type': 'application/json',
      ...extra,
    });
    const formHeaders = (extra: Record<string, string> = {}) => ({
      'content-type': 'application/x-www-form-urlencoded',
      ...extra,
    });
    const nested = (depth: number) => `{"url":"${page('/')}","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;

    it('a body whose key is outside it and wrong or missing is a 401 without being parsed', async () => {
      // 1 MB of '[' that never closes: parsing it would answer 400 "not valid JSON", not 401.
      const deep = '['.repeat(1_000_000);
      const cases: [string, string, Record<string, string>, string][] = [
        ['v1 without a key', '/v1/analyze', jsonHeaders(), deep],
        ['v1 with a wrong key', '/v1/analyze', jsonHeaders({ 'x-api-key': 'wrong-key' }), deep],
        ['v1 with a wrong key in the query', '/v1/analyze?x_api_key=wrong-key', jsonHeaders(), deep],
        ['legacy with a wrong x-access-key', '/analyze', jsonHeaders({ 'x-access-key': 'wrong-key' }), deep],
        ['legacy with a wrong access_key in the query', '/capture?access_key=wrong-key', jsonHeaders(), deep],
        [
          'a legacy form with a wrong x-access-key',
          '/content',
          formHeaders({ 'x-access-key': 'wrong-key' }),
          'url=%zz&'.repeat(10_000),
        ],
      ];
      for (const [name, path, headers, body] of cases) {
        const answer = await send(port, 'POST', path, headers, body);
        expect(answer.status, name).toBe(401);
        expect(json(answer), name).toEqual({ error: 'Invalid API Key' });
      }
      // The connection stays usable: the service is answering.
      expect((await send(port, 'GET', '/healthz', {})).status).toBe(200);
    });

    it('on the earlier endpoints a key outside the body decides, whatever access_key the body holds', async () => {
      // A 400 about the parameters means the key was accepted.
      const headerRight = await send(
        port,
        'POST',
        '/analyze',
        jsonHeaders({ 'x-access-key': key }),
        '{"access_key":"wrong-key"}',
      );
      expect(headerRight.status).toBe(400);
      expect(json(headerRight)).toEqual({
        error: 'Bad Request: url is required, or html or markdown instead (exactly one of them)',
      });
      const headerWrong = await send(
        port,
        'POST',
        '/analyze',
        jsonHeaders({ 'x-access-key': 'wrong-key' }),
        JSON.stringify({ access_key: key }),
      );
      expect(headerWrong.status).toBe(401);
      const bodyOnly = await send(
        port,
        'POST',
        '/analyze',
        jsonHeaders(),
        JSON.stringify({ access_key: key }),
      );
      expect(bodyOnly.status).toBe(400);
      expect(json(bodyOnly)).toEqual({
        error: 'Bad Request: url is required, or html or markdown instead (exactly one of them)',
      });
    });

    it('a body nested deeper than 32 is a 400 naming the limit, whoever sends it', async () => {
      const deeper = await send(port, 'POST', '/v1/analyze', jsonHeaders({ 'x-api-key': key }), nested(32));
      expect(deeper.status).toBe(400);
      expect(json(deeper)).toEqual({ error: 'Bad Request: body: nesting deeper than 32' });
      // 1 MB of nested arrays, the probe's body: refused without being parsed, answered in full.
      const huge = `${'['.repeat(520_000)}${']'.repeat(520_000)}`;
      const probe = await send(port, 'POST', '/v1/analyze', jsonHeaders({ 'x-api-key': key }), huge);
      expect(probe.status).toBe(400);
      expect(json(probe)).toEqual({ error: 'Bad Request: body: nesting deeper than 32' });
      // A legacy key in the body: the body is read first, under the same bound.
      const legacy = await send(
        port,
        'POST',
        '/analyze',
        jsonHeaders(),
        `{"access_key":"${key}","x":${huge}}`,
      );
      expect(legacy.status).toBe(400);
      expect(json(legacy)).toEqual({ error: 'Bad Request: body: nesting deeper than 32' });
      // 32 levels (with the body's own object) pass the bound and meet the schema.
      const within = await send(port, 'POST', '/v1/analyze', jsonHeaders({ 'x-api-key': key }), nested(31));
      expect(within.status).toBe(400);
      expect(json(within)).toEqual({ error: 'Bad Request: x is not a known parameter' });
    });

    it('a body of more than 5000 keys is a 400 naming the limit: JSON members, array items, form fields', async () => {
      const members = Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`k${i}`, i]));
      const items = JSON.stringify({ url: page('/'), block_urls: Array.from({ length: 5000 }, () => 'x') });
      const fields = Array.from({ length: 5001 }, (_, i) => `k${i}=1`).join('&');
      for (const [name, path, headers, body] of [
        ['JSON members', '/v1/analyze', jsonHeaders({ 'x-api-key': key }), JSON.stringify(members)],
        ['array items', '/v1/content', jsonHeaders({ 'x-api-key': key }), items],
        ['form fields, key in the header', '/content', formHeaders({ 'x-access-key': key }), fields],
        ['form fields, key in the body', '/content', formHeaders(), `access_key=${key}&${fields}`],
      ] as const) {
        const answer = await send(port, 'POST', path, headers, body);
        expect(answer.status, name).toBe(400);
        expect(json(answer), name).toEqual({ error: 'Bad Request: body: more than 5000 keys' });
      }
    });

    it('__proto__ and constructor.prototype in a JSON body are still refused', async () => {
      for (const body of [
        `{"url":"${page('/')}","__proto__":{"x":1}}`,
        `{"url":"${page('/')}","constructor":{"prototype":{"x":1}}}`,
      ]) {
        const answer = await send(port, 'POST', '/v1/analyze', jsonHeaders({ 'x-api-key': key }), body);
        expect(answer.status, body).toBe(400);
        expect(json(answer), body).toEqual({ error: 'Bad Request: body is not valid JSON' });
      }
    });

    it('a POST refuses query parameters other than its key, naming them, unbilled; its key there still works', async () => {
      const before = await reservationsOf(t, 'bodies');
      const body = JSON.stringify({ url: page('/') });
      const v1 = await send(
        port,
        'POST',
        '/v1/content?is_async=true',
        jsonHeaders({ 'x-api-key': key }),
        body,
      );
      expect(v1.status).toBe(400);
      expect(json(v1)).toEqual({
        error:
          'Bad Request: is_async was sent in the query string, which POST does not read: send it in the body',
      });
      const legacy = await send(
        port,
        'POST',
        `/content?access_key=${key}&url=${page('/')}`,
        jsonHeaders(),
        '{}',
      );
      expect(legacy.status).toBe(400);
      expect(json(legacy).error).toMatch(/^Bad Request: url was sent in the query string/);
      expect(await reservationsOf(t, 'bodies')).toEqual(before);

      const keyInQuery = await send(port, 'POST', `/v1/content?x_api_key=${key}`, jsonHeaders(), body);
      expect(keyInQuery.status).toBe(200);
      const legacyKeyInQuery = await send(port, 'POST', `/content?access_key=${key}`, jsonHeaders(), body);
      expect(legacyKeyInQuery.status).toBe(200);
      expect(json(legacyKeyInQuery).data.metadata.title).toBe('Plain page');
    });

    it('valid bodies still work: v1 analyze, legacy analyze, content and capture by JSON and form', async () => {
      const v1 = await send(
        port,
        'POST',
        '/v1/analyze',
        jsonHeaders({ 'x-api-key': key }),
        JSON.stringify({ url: page('/'), custom_response: { colour: 'the colour of the widgets' } }),
      );
      expect(v1.status).toBe(200);
      expect(json(v1).data.colour).toEqual(expect.any(String));
      const legacyJson = await send(
        port,
        'POST',
        '/analyze',
        jsonHeaders(),
        JSON.stringify({ access_key: key, url: page('/') }),
      );
      expect(legacyJson.status).toBe(200);
      expect(json(legacyJson).success).toBe(true);
      const legacyForm = await send(
        port,
        'POST',
        '/content',
        formHeaders(),
        new URLSearchParams({ access_key: key, url: page('/') }).toString(),
      );
      expect(legacyForm.status).toBe(200);
      expect(json(legacyForm).data.metadata.title).toBe('Plain page');
      const capture = await send(
        port,
        'POST',
        '/capture',
        jsonHeaders({ 'x-access-key': key }),
        JSON.stringify({ url: page('/') }),
      );
      expect(capture.status).toBe(200);
      expect(capture.headers['content-type']).toMatch(/^image\//);
    });
  });

  describe('deadlines', () => {
    let t: TestRuntime;
    let key: string;
    let port: number;

    beforeAll(async () => {
      t = await startTestRuntime('sqlite', {
        env: { ...allow(), REQUEST_TIMEOUT_MS: '3000', HEADERS_TIMEOUT_MS: '2000' },
      });
      key = await newAccountKey(t, 'deadlines', 100_000);
      port = await listen(t);
    });
    afterAll(() => t?.close());

    it('a body that stops arriving gets a 408 and its connection closed', async () => {
      const head = (extra: string) =>
        `POST /v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n${extra}\r\n{"url":`;
      const answer = await rawUntilClosed(port, head(`X-Api-Key: ${key}\r\n`));
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(bodyOf(answer)).toEqual({ error: 'Request Timeout' });
      // Without a key the 401 comes at once; the connection still goes at the deadline.
      const unauthenticated = await rawUntilClosed(port, head(''));
      expect(unauthenticated).toMatch(/^HTTP\/1\.1 401 /);
    });

    it('headers that stop arriving get a 408 and the connection closed', async () => {
      const answer = await rawUntilClosed(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(bodyOf(answer)).toEqual({ error: 'Request Timeout' });
    });

    it('a call that takes longer than REQUEST_TIMEOUT_MS to answer is not cut: capture by GET, analyze by POST', async () => {
      const [capture, analyze] = await Promise.all([
        send(port, 'GET', `/v1/capture?${new URLSearchParams({ url: page('/slow') })}`, { 'x-api-key': key }),
        send(
          port,
          'POST',
          '/v1/analyze',
          { 'content-type': 'application/json', 'x-api-key': key },
          JSON.stringify({ url: page('/slow') }),
        ),
      ]);
      expect(capture.status).toBe(200);
      expect(capture.headers['content-type']).toMatch(/^image\//);
      expect(analyze.status).toBe(200);
      expect(json(analyze).success).toBe(true);
    });
  });

  describe('connections per client address', () => {
    let t: TestRuntime;
    let port: number;

    beforeAll(async () => {
      t = await startTestRuntime('sqlite', { env: { MAX_CONNECTIONS_PER_CLIENT: '2' } });
      port = await listen(t);
    });
    afterAll(() => t?.close());

    /** A connection that has sent nothing; resolves once it is open. */
    const idle = () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        socket.on('error', reject);
      });

    it('past MAX_CONNECTIONS_PER_CLIENT a new connection is closed unanswered; a freed slot is usable again', async () => {
      const held = [await idle(), await idle()];
      const refused = await rawUntilClosed(
        port,
        'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(refused).toBe('');
      held[0]?.destroy();
      // The server learns of the closed connection in its own time: retry until the slot is free.
      let answer = '';
      while (answer === '') {
        answer = await rawUntilClosed(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      }
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      held[1]?.destroy();
    });
  });
});
