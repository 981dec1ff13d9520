import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebcapError } from '../src/errors.js';
import { NetworkPolicy, parseAllowList } from '../src/net/address-policy.js';
import { GuardedFetcher, type GuardedFetchOptions } from '../src/net/guarded-fetch.js';
import { pinnedLookup } from '../src/net/resolve.js';
import {
  closedPort,
  startCanary,
  startServer,
  type TestServer,
  tableResolver,
} from './helpers/net-fixtures.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The guarded fetch against servers of its own on loopback. The fixture server is the one
 * destination the allow list lets through (127.0.0.1/32:<its port>); the canaries listen on
 * another loopback port (IPv4 and IPv6) and on 127.0.0.2 at the fixture's port: every attack must
 * end in an error with not one TCP connection reaching a canary.
 */

const MiB = 1024 * 1024;

let fixture: TestServer;
let canary: TestServer;
let canary6: TestServer;
let rebindCanary: TestServer;
let refusedPort: number;
let policy: NetworkPolicy;
const opened: GuardedFetcher[] = [];

// 1 GiB of zeros as 256 gzip members of 4 MiB: a valid gzip body of ~1 MiB on the wire.
const bomb = Buffer.concat(Array<Buffer>(256).fill(zlib.gzipSync(Buffer.alloc(4 * MiB))));
const page = '<!doctype html><title>fixture</title><p>hello from the fixture</p>';

function canaryHits(): number {
  return canary.connections() + canary6.connections() + rebindCanary.connections();
}

function fixtureHandler(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://fixture');
  const hops = /^\/redirect\/(\d+)$/.exec(url.pathname);
  if (hops !== null) {
    const left = Number(hops[1]);
    res.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : '/page' });
    res.end();
    return;
  }
  const redirectTo = (location: string) => {
    res.writeHead(301, { location });
    res.end('moved');
  };
  switch (url.pathname) {
    case '/page':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-multi': ['a', 'b'] });
      res.end(page);
      return;
    case '/missing':
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such page');
      return;
    case '/gzip':
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync(page));
      return;
    case '/br':
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' });
      res.end(zlib.brotliCompressSync(page));
      return;
    case '/to-canary':
      return redirectTo(`http://127.0.0.1:${canary.port}/`);
    case '/to-canary-hex':
      return redirectTo(`http://0x7f.1:${canary.port}/`);
    case '/to-canary-v6':
      return redirectTo(`http://[::ffff:7f00:1]:${canary.port}/`);
    case '/to-internal-name':
      return redirectTo(`http://internal.test:${canary.port}/`);
    case '/to-metadata':
      return redirectTo('http://169.254.169.254/latest/meta-data/');
    case '/to-file':
      return redirectTo('file:///etc/passwd');
    case '/bomb':
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(bomb);
      return;
    case '/huge-declared':
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(50 * MiB) });
      res.write(Buffer.alloc(64 * 1024));
      return; // never finished: the fetch must not wait for it
    case '/huge-chunked': {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < 8 * MiB && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    case '/drip': {
      // One byte at a time, often enough that no idle timeout ever fires.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 100);
      res.once('close', () => clearInterval(timer));
      return;
    }
    case '/stall':
      return; // no headers, ever
    default:
      res.writeHead(404);
      res.end();
  }
}

beforeAll(async () => {
  fixture = await startServer(fixtureHandler);
  canary = await startCanary();
  canary6 = await startCanary('::1', canary.port);
  rebindCanary = await startCanary('127.0.0.2', fixture.port);
  refusedPort = await closedPort();
  policy = new NetworkPolicy(parseAllowList(`127.0.0.1/32:${fixture.port},127.0.0.1/32:${refusedPort}`));
});

afterAll(async () => {
  await Promise.all(opened.map((fetcher) => fetcher.close()));
  await Promise.all([fixture, canary, canary6, rebindCanary].map((server) => server?.close()));
});

const resolver = () =>
  tableResolver({
    'fixture.test': ['127.0.0.1'],
    'internal.test': ['127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'mixed6.test': ['2606:2800:220:1::1', '::1'],
  });

function fetcher(options: Partial<GuardedFetchOptions> = {}): GuardedFetcher {
  const created = new GuardedFetcher({
    policy,
    resolver: resolver(),
    maxBytes: MiB,
    // Only the deadline tests below give deadlines a fetch can reach; a loaded machine must not.
    headersTimeoutMs: HANG_MS,
    timeoutMs: HANG_MS,
    ...options,
  });
  opened.push(created);
  return created;
}

async function failure(attempt: Promise<unknown>): Promise<WebcapError> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof WebcapError) return error;
  throw new Error(`expected a WebcapError, got ${String(error)}`);
}

describe('guarded fetch: happy', () => {
  it('fetches the allowed fixture by address and by a name resolving to it', async () => {
    const result = await fetcher().fetch(`http://127.0.0.1:${fixture.port}/page`);
    expect(result).toMatchObject({
      url: `http://127.0.0.1:${fixture.port}/page`,
      finalUrl: `http://127.0.0.1:${fixture.port}/page`,
      status: 200,
      redirects: [],
      contentType: 'text/html; charset=utf-8',
    });
    expect(result.body.toString()).toBe(page);
    expect(result.headers['x-multi']).toBe('a, b');
    const byName = await fetcher().fetch(`http://fixture.test:${fixture.port}/page`);
    expect(byName.body.toString()).toBe(page);
  });

  it('follows redirects by hand and reports each hop', async () => {
    const result = await fetcher().fetch(`http://127.0.0.1:${fixture.port}/redirect/3`);
    const base = `http://127.0.0.1:${fixture.port}`;
    expect(result.redirects).toEqual([
      { url: `${base}/redirect/3`, status: 302 },
      { url: `${base}/redirect/2`, status: 302 },
      { url: `${base}/redirect/1`, status: 302 },
    ]);
    expect(result.finalUrl).toBe(`${base}/page`);
    expect(result.body.toString()).toBe(page);
  });

  it('follows exactly 10 redirects', async () => {
    const result = await fetcher().fetch(`http://127.0.0.1:${fixture.port}/redirect/10`);
    expect(result.redirects).toHaveLength(10);
    expect(result.status).toBe(200);
  });

  it('returns the first response as is when not following redirects', async () => {
    const result = await fetcher().fetch(`http://127.0.0.1:${fixture.port}/to-canary`, {
      followRedirects: false,
    });
    expect(result).toMatchObject({ status: 301, redirects: [], headers: { location: expect.any(String) } });
    expect(result.body.toString()).toBe('moved');
  });

  it('returns a 404 as a result, and decodes gzip and br bodies', async () => {
    expect((await fetcher().fetch(`http://127.0.0.1:${fixture.port}/missing`)).status).toBe(404);
    expect((await fetcher().fetch(`http://127.0.0.1:${fixture.port}/gzip`)).body.toString()).toBe(page);
    expect((await fetcher().fetch(`http://127.0.0.1:${fixture.port}/br`)).body.toString()).toBe(page);
  });

  it('connects to the address it checked: the name is resolved once and never again for that connection', async () => {
    // The first answer is the fixture, every later one a canary on 127.0.0.2 at the same port.
    const rebinding = tableResolver({
      'rebind.test': (call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']),
    });
    const result = await fetcher({ resolver: rebinding }).fetch(`http://rebind.test:${fixture.port}/page`);
    expect(result.body.toString()).toBe(page);
    expect(rebinding.calls).toEqual(['rebind.test']);
    // A new connection resolves again, gets the rebound answer, and is refused.
    const error = await failure(
      fetcher({ resolver: rebinding }).fetch(`http://rebind.test:${fixture.port}/page`),
    );
    expect(error).toMatchObject({
      code: 'blocked',
      detail: `rebind.test resolves to a loopback address; allow that address on port ${fixture.port} with WEBCAP_ALLOW_PRIVATE`,
    });
    expect(rebindCanary.connections()).toBe(0);
  });

  it('pinnedLookup makes net.connect use the checked address, not a new lookup', async () => {
    const socket = net.connect({
      host: 'pinned.test',
      port: fixture.port,
      lookup: pinnedLookup('pinned.test', [{ address: '127.0.0.1', family: 4 }]),
    });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    expect(socket.remoteAddress).toBe('127.0.0.1');
    socket.destroy();
  });
});

describe('guarded fetch: errors', () => {
  it('names the network error of an unreachable target', async () => {
    expect(await failure(fetcher().fetch(`http://127.0.0.1:${refusedPort}/`))).toMatchObject({
      code: 'target_unreachable',
      detail: 'connection refused (ECONNREFUSED)',
    });
    expect(await failure(fetcher().fetch('http://nx.test/'))).toMatchObject({
      code: 'target_unreachable',
      detail: 'host not found (ENOTFOUND)',
    });
    // TLS to a plain HTTP port fails the handshake.
    const tls = await failure(fetcher().fetch(`https://127.0.0.1:${fixture.port}/page`));
    expect(tls.code).toBe('target_unreachable');
    expect(tls.detail).toMatch(/TLS error|EPROTO|ECONNRESET/);
  });

  it('refuses a URL that is not http(s) as a bad request', async () => {
    expect(await failure(fetcher().fetch('file:///etc/passwd'))).toMatchObject({
      code: 'bad_request',
      detail: 'url must be an http or https URL (got scheme file)',
    });
  });
});

describe('guarded fetch: security (the canaries see nothing)', () => {
  afterEach(() => {
    expect(canaryHits()).toBe(0);
  });

  it.each([
    'http://127.0.0.1:{canary}/',
    'http://127.1:{canary}/',
    'http://2130706433:{canary}/',
    'http://0x7f000001:{canary}/',
    'http://0x7f.1:{canary}/',
    'http://0177.0.0.1:{canary}/',
    'http://127.000.000.001:{canary}/',
    'http://[::1]:{canary}/',
    'http://[::ffff:127.0.0.1]:{canary}/',
    'http://[::ffff:7f00:1]:{canary}/',
    'http://[64:ff9b::7f00:1]:{canary}/',
    'http://0.0.0.0:{canary}/',
    'http://0:{canary}/',
    'https://127.0.0.1:{canary}/',
    'http://a@127.0.0.1:{canary}/',
    'http://fixture.test:{fixture}@127.0.0.1:{canary}/',
    'http://127.0.0.1:{fixture}@127.0.0.1:{canary}/',
    'http://127.0.0.2:{fixture}/',
    'http://2852039166/latest/meta-data/',
    'http://0xa9fea9fe/latest/meta-data/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/',
    'http://[2002:a9fe:a9fe::]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2001:0:4136:e378:8000:63bf:5601:5601]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://10.0.0.1/',
    'http://192.168.0.1/',
    'http://100.64.0.1/',
  ])('refuses %s', async (template) => {
    const url = template
      .replaceAll('{canary}', String(canary.port))
      .replaceAll('{fixture}', String(fixture.port));
    const error = await failure(fetcher().fetch(url));
    expect(error.code).toBe('blocked');
  });

  it('refuses localhost through the system resolver', async () => {
    const { systemResolver } = await import('../src/net/resolve.js');
    const error = await failure(
      fetcher({ resolver: systemResolver }).fetch(`http://localhost:${canary.port}/`),
    );
    // /etc/hosts decides whether 127.0.0.1 (listed on other ports) or ::1 (not listed) comes first.
    expect(error.code).toBe('blocked');
    expect([
      `localhost resolves to an address allowed by WEBCAP_ALLOW_PRIVATE but not on port ${canary.port}; add that address with :${canary.port}`,
      `localhost resolves to a loopback address; allow that address on port ${canary.port} with WEBCAP_ALLOW_PRIVATE`,
    ]).toContain(error.detail);
  });

  it('refuses a public-looking name resolving to a private address, and one with a private record among public ones', async () => {
    const listed = `an address allowed by WEBCAP_ALLOW_PRIVATE but not on port ${canary.port}; add that address with :${canary.port}`;
    const allow = `allow that address on port ${canary.port} with WEBCAP_ALLOW_PRIVATE`;
    for (const [host, detail] of [
      ['internal.test', `internal.test resolves to ${listed}`],
      [
        'metadata.test',
        `metadata.test resolves to a link-local address (cloud metadata services live here); ${allow}`,
      ],
      ['mixed.test', `mixed.test resolves to ${listed}`],
      ['mixed6.test', `mixed6.test resolves to a loopback address; ${allow}`],
    ]) {
      expect(await failure(fetcher().fetch(`http://${host}:${canary.port}/`))).toMatchObject({
        code: 'blocked',
        detail,
      });
    }
  });

  it('refuses a redirect chain from the allowed fixture that ends on a refused address', async () => {
    for (const path of [
      '/to-canary',
      '/to-canary-hex',
      '/to-canary-v6',
      '/to-internal-name',
      '/to-metadata',
    ]) {
      const error = await failure(fetcher().fetch(`http://127.0.0.1:${fixture.port}${path}`));
      expect(error.code).toBe('blocked');
    }
    expect(await failure(fetcher().fetch(`http://127.0.0.1:${fixture.port}/to-file`))).toMatchObject({
      code: 'blocked',
      detail: 'redirect to a file URL',
    });
  });

  it('gives up on an over-long redirect chain (11 hops)', async () => {
    expect(await failure(fetcher().fetch(`http://127.0.0.1:${fixture.port}/redirect/11`))).toMatchObject({
      code: 'target_unreachable',
      detail: 'too many redirects (more than 10)',
    });
  });

  it('refuses a gzip bomb at the decoded cap, without inflating it', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const error = await failure(fetcher().fetch(`http://127.0.0.1:${fixture.port}/bomb`));
    expect(error).toMatchObject({
      code: 'bad_request',
      detail: "the page's decoded response body is larger than the limit of 1048576 bytes",
    });
    // Inflating the bomb would take 1 GiB; what is held stays near the 1 MiB cap.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * MiB);
  });

  it('refuses a huge body, declared or streamed, at the cap', async () => {
    // The declared body is never finished: refused on its Content-Length, or the fetch would hang.
    expect(await failure(fetcher().fetch(`http://127.0.0.1:${fixture.port}/huge-declared`))).toMatchObject({
      code: 'bad_request',
      detail: "the page's response body is larger than the limit of 1048576 bytes",
    });
    expect(await failure(fetcher().fetch(`http://127.0.0.1:${fixture.port}/huge-chunked`))).toMatchObject({
      code: 'bad_request',
    });
  });

  // The drip and the stall never end: which deadline ended the fetch is in the error's detail.
  it('stops a slow-drip body at the total deadline', async () => {
    const error = await failure(
      fetcher({ timeoutMs: 800, headersTimeoutMs: 5000 }).fetch(`http://127.0.0.1:${fixture.port}/drip`),
    );
    expect(error).toMatchObject({ code: 'timeout', detail: 'the page did not load within 800 ms' });
  });

  it('stops waiting for headers that never come', async () => {
    const error = await failure(
      fetcher({ timeoutMs: 5000, headersTimeoutMs: 500 }).fetch(`http://127.0.0.1:${fixture.port}/stall`),
    );
    expect(error).toMatchObject({ code: 'timeout', detail: 'the page sent nothing for 500 ms' });
  });
});
