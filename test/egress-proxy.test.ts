import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, DEFAULT_CHROMIUM_PATH } from '../src/browser/chromium-args.js';
import { WebcapError } from '../src/errors.js';
import { NetworkPolicy, parseAllowList } from '../src/net/address-policy.js';
import { EgressProxy, type ProxyRoute } from '../src/net/egress-proxy.js';
import { parseUpstreamProxy, type UpstreamProxy } from '../src/net/upstream-proxy.js';
import { tempDir } from './helpers/databases.js';
import { startCanary, startServer, type TestServer, tableResolver } from './helpers/net-fixtures.js';
import { type Socks5Server, startSocks5 } from './helpers/socks5-server.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * The egress proxy, first spoken to directly, then as a real Chromium's only way out. The fixture
 * server is the one destination the allow list lets through; the canaries (IPv4 and IPv6 loopback,
 * at a port the policy refuses) must never see a single TCP connection.
 */

let fixture: TestServer;
let canary: TestServer;
let canary6: TestServer;
let proxy: EgressProxy;
let upstream: EgressProxy;
let relay: Relay;
let socks: Socks5Server;
let tlsServer: https.Server;
const fixtureRequests: string[] = [];

interface Relay {
  readonly port: number;
  /** The first bytes of each connection, in order. */
  readonly heads: string[];
  /** The port new connections are relayed to. */
  target: number;
  close(): Promise<void>;
}

const canaryHits = () => canary.connections() + canary6.connections();

function attackPage(c: number): string {
  const target = `http://127.0.0.1:${c}`;
  return `<!doctype html>
<html><head><title>guarded page</title>
<link rel="stylesheet" href="${target}/style.css">
<link rel="preconnect" href="${target}">
<link rel="preconnect" href="https://127.0.0.1:${c}">
<link rel="dns-prefetch" href="//canary.invalid">
<style>#box { width: 400px; height: 120px; background: #c00 url(${target}/bg.png); }</style>
</head><body>
<h1 id="greeting">rendered despite the blocks</h1>
<div id="box"></div>
<img src="${target}/img.png">
<img src="http://169.254.169.254/latest/meta-data/">
<img src="http://10.0.0.1/internal.png">
<iframe src="${target}/iframe"></iframe>
<iframe name="sink"></iframe>
<form id="form" method="post" action="${target}/form" target="sink"><input name="a" value="1"></form>
<script>
const settle = [];
settle.push(fetch('${target}/fetch').catch(() => {}));
settle.push(fetch('https://127.0.0.1:${c}/tls').catch(() => {}));
settle.push(new Promise((done) => {
  const xhr = new XMLHttpRequest();
  xhr.open('GET', '${target}/xhr');
  xhr.onloadend = done;
  xhr.send();
}));
settle.push(new Promise((done) => {
  const ws = new WebSocket('ws://127.0.0.1:${c}/ws');
  ws.onerror = ws.onclose = done;
}));
settle.push(new Promise((done) => {
  const events = new EventSource('${target}/sse');
  events.onerror = () => { events.close(); done(); };
}));
navigator.sendBeacon('${target}/beacon', 'x');
settle.push(new Promise((done) => {
  const worker = new Worker('/worker.js');
  worker.onmessage = worker.onerror = done;
}));
document.getElementById('form').submit();
Promise.all(settle).then(() => { window.settled = true; });
</script>
</body></html>`;
}

beforeAll(async () => {
  canary = await startCanary();
  canary6 = await startCanary('::1', canary.port);
  fixture = await startServer((req, res) => {
    fixtureRequests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://fixture');
    if (url.pathname === '/attack') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(attackPage(canary.port));
    } else if (url.pathname === '/worker.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(
        `fetch('http://127.0.0.1:${canary.port}/worker').catch(() => {}).finally(() => postMessage('done'));`,
      );
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`fixture says hi to ${url.pathname}`);
    }
  });
  // WebSocket-style upgrades on the fixture: answer 101 and echo.
  fixture.server.on('upgrade', (_req, socket: net.Socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n');
    socket.pipe(socket);
  });
  upstream = await EgressProxy.start({
    policy: new NetworkPolicy(parseAllowList(`127.0.0.1/32:${fixture.port}`)),
  });
  socks = await startSocks5(
    { username: 'sock', password: 's3cret' },
    { [`fixture.test:${fixture.port}`]: fixture.port, [`127.0.0.1:${fixture.port}`]: fixture.port },
  );
  const dir = tempDir('webcap-tls-');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-days',
      '1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  tlsServer = https.createServer({
    key: fs.readFileSync(path.join(dir, 'key.pem')),
    cert: fs.readFileSync(path.join(dir, 'cert.pem')),
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', () => resolve()));
  relay = await startRelay();
  const allowed = [fixture.port, relay.port, socks.port, (tlsServer.address() as AddressInfo).port];
  proxy = await EgressProxy.start({
    policy: new NetworkPolicy(parseAllowList(allowed.map((port) => `127.0.0.1/32:${port}`).join(','))),
    resolver: tableResolver({
      'fixture.test': ['127.0.0.1'],
      'internal.test': ['127.0.0.1'],
      'mixed.test': ['93.184.216.34', '127.0.0.1'],
    }),
    connectTimeoutMs: 2000,
  });
});

afterAll(async () => {
  await Promise.all([proxy?.stop(), upstream?.stop(), relay?.close(), socks?.close(), fixture?.close()]);
  await Promise.all([canary?.close(), canary6?.close()]);
  tlsServer?.closeAllConnections();
  await new Promise((resolve) => tlsServer?.close(resolve));
});

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The port of a route's own listener, where its traffic goes in. */
const portOf = (route: ProxyRoute) => Number(new URL(route.proxyServer).port);

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A plain request to a proxy listener in absolute form, as a browser sends it. */
function viaProxy(target: string, port: number, headers: http.OutgoingHttpHeaders = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      path: target,
      headers: { host: URL.canParse(target) ? new URL(target).host : 'x', ...headers },
    });
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/** Writes a raw request head to a proxy listener and reads the answer's head; the socket stays open. */
async function rawExchange(
  head: string,
  port: number,
): Promise<{ status: number; head: string; socket: net.Socket }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(head);
  let buffered = '';
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', function onData(chunk: Buffer) {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      resolve({ status: Number(buffered.slice(9, 12)), head: buffered.slice(0, end), socket });
    });
  });
}

function connectHead(authority: string): string {
  return `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`;
}

function upgradeHead(url: string): string {
  return `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`;
}

/**
 * A TCP relay on 127.0.0.1 to `target`'s port, read as each connection arrives, keeping the first
 * bytes of each connection (a request's head): what a caller's proxy behind it is sent.
 */
async function startRelay(): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const target = net.connect(relay.target, '127.0.0.1');
    for (const socket of [client, target]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        target.destroy();
      });
    }
    client.once('data', (chunk: Buffer) => relay.heads.push(chunk.toString('latin1')));
    client.pipe(target);
    target.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    heads: [],
    target: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A route of the proxy under test to the caller's proxy `upstream`, as the pool leases one: opened, then bound. */
async function routeVia(upstream: UpstreamProxy): Promise<ProxyRoute> {
  const route = await proxy.addRoute();
  route.use(upstream);
  return route;
}

/**
 * A caller's proxy for a test: a new route of the upstream proxy, reached through the relay (at a
 * port the proxy under test allows; the upstream's route listeners take free ports), with `userinfo`.
 */
async function callerProxy(userinfo = ''): Promise<UpstreamProxy> {
  relay.target = portOf(await upstream.addRoute());
  relay.heads.length = 0;
  return parseUpstreamProxy(`http://${userinfo}127.0.0.1:${relay.port}`);
}

describe('egress proxy: happy', () => {
  it('forwards a plain request at the route’s own listener, without credentials', async () => {
    const route = await proxy.addRoute();
    const port = portOf(route);
    expect(port).not.toBe(proxy.port);
    const answer = await viaProxy(`http://127.0.0.1:${fixture.port}/plain`, port);
    expect(answer).toMatchObject({ status: 200, body: 'fixture says hi to /plain' });
    expect(route.stats).toEqual({ refusals: [] });
    expect((await viaProxy(`http://fixture.test:${fixture.port}/named`, port)).status).toBe(200);
  });

  it('switches a route’s upstream on use()', async () => {
    const route = await proxy.addRoute();
    const port = portOf(route);
    const via = await callerProxy();
    route.use(via);
    expect((await viaProxy(`http://127.0.0.1:${fixture.port}/switched`, port)).status).toBe(200);
    expect(relay.heads).toHaveLength(1);
    route.use(null);
    expect((await viaProxy(`http://127.0.0.1:${fixture.port}/direct-again`, port)).status).toBe(200);
    expect(relay.heads).toHaveLength(1);
    expect(fixtureRequests).toEqual(expect.arrayContaining(['/switched', '/direct-again']));
    await route.close();
  });

  it('keeps a direct route’s connection to a target for the requests that follow, until the route closes', async () => {
    const target = await startServer((_req, res) => res.end('kept'));
    const keeping = await EgressProxy.start({
      policy: new NetworkPolicy(parseAllowList(`127.0.0.1/32:${target.port}`)),
    });
    const route = await keeping.addRoute();
    for (let i = 0; i < 3; i++) {
      expect((await viaProxy(`http://127.0.0.1:${target.port}/${i}`, portOf(route))).body).toBe('kept');
    }
    expect(target.connections()).toBe(1);
    await route.close();
    const other = await keeping.addRoute();
    expect((await viaProxy(`http://127.0.0.1:${target.port}/again`, portOf(other))).body).toBe('kept');
    expect(target.connections()).toBe(2);
    await Promise.all([keeping.stop(), target.close()]);
  });

  it('sends a GET again on a new connection when the target reset the kept one', async () => {
    // Answers the first request of each connection and resets the connection on the second.
    const seen: number[] = [];
    const target = net.createServer((socket) => {
      let requests = 0;
      socket.on('data', () => {
        requests += 1;
        seen.push(requests);
        if (requests === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        else socket.resetAndDestroy();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
    const port = (target.address() as AddressInfo).port;
    const keeping = await EgressProxy.start({
      policy: new NetworkPolicy(parseAllowList(`127.0.0.1/32:${port}`)),
    });
    const route = await keeping.addRoute();
    for (const path of ['/first', '/second']) {
      expect(await viaProxy(`http://127.0.0.1:${port}${path}`, portOf(route))).toMatchObject({
        status: 200,
        body: 'ok',
      });
    }
    expect(seen).toEqual([1, 2, 1]);
    await keeping.stop();
    await new Promise((resolve) => target.close(resolve));
  });

  it('opens a CONNECT tunnel and an upgrade to the allowed fixture', async () => {
    const route = await proxy.addRoute();
    const tunnel = await rawExchange(connectHead(`127.0.0.1:${fixture.port}`), portOf(route));
    expect(tunnel.status).toBe(200);
    tunnel.socket.write('GET /through-tunnel HTTP/1.1\r\nHost: fixture\r\nConnection: close\r\n\r\n');
    const body = await new Promise<string>((resolve) => {
      let text = '';
      tunnel.socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      tunnel.socket.on('end', () => resolve(text));
    });
    expect(body).toContain('fixture says hi to /through-tunnel');
    const upgrade = await rawExchange(upgradeHead(`ws://127.0.0.1:${fixture.port}/socket`), portOf(route));
    expect(upgrade.status).toBe(101);
    upgrade.socket.destroy();
  });

  it('chains an http upstream proxy with its credentials, for plain requests and tunnels', async () => {
    const via = await callerProxy('user:s3cret@');
    const route = await routeVia(via);
    expect((await viaProxy(`http://127.0.0.1:${fixture.port}/chained`, portOf(route))).body).toBe(
      'fixture says hi to /chained',
    );
    const tunnel = await rawExchange(connectHead(`127.0.0.1:${fixture.port}`), portOf(route));
    expect(tunnel.status).toBe(200);
    tunnel.socket.destroy();
    const sent = relay.heads.map((head) => /\r\nproxy-authorization: ([^\r]*)\r\n/i.exec(head)?.[1]);
    expect(sent).toEqual([basic('user', 's3cret'), basic('user', 's3cret')]);
    // The upstream's own policy still applies at its end.
    expect((await viaProxy(`http://fixture.test:${canary.port}/`, portOf(route))).status).toBe(502);
  });

  it('chains a socks5 upstream with user and password, sending names for it to resolve', async () => {
    const route = await routeVia(parseUpstreamProxy(`socks5://sock:s3cret@127.0.0.1:${socks.port}`));
    expect((await viaProxy(`http://fixture.test:${fixture.port}/socks`, portOf(route))).body).toBe(
      'fixture says hi to /socks',
    );
    const tunnel = await rawExchange(connectHead(`127.0.0.1:${fixture.port}`), portOf(route));
    expect(tunnel.status).toBe(200);
    tunnel.socket.destroy();
    expect(socks.requests).toEqual([`fixture.test:${fixture.port}`, `127.0.0.1:${fixture.port}`]);
    const wrong = await routeVia(parseUpstreamProxy(`socks5://sock:wrong@127.0.0.1:${socks.port}`));
    expect((await viaProxy(`http://fixture.test:${fixture.port}/`, portOf(wrong))).status).toBe(502);
  });

  it('speaks TLS to an https upstream and verifies its certificate', async () => {
    const port = (tlsServer.address() as AddressInfo).port;
    const route = await routeVia(parseUpstreamProxy(`https://u:p@127.0.0.1:${port}`));
    const answer = await viaProxy(`http://fixture.test:${fixture.port}/`, portOf(route));
    expect(answer.status).toBe(502);
    expect(answer.body).toMatch(/TLS error \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/);
  });
});

describe('egress proxy: errors', () => {
  it('lets nothing out of the shared port (407, credentials or not), and closes a removed route’s listener', async () => {
    const none = await viaProxy(`http://127.0.0.1:${fixture.port}/shared`, proxy.port);
    expect(none.status).toBe(407);
    expect(none.headers['proxy-authenticate']).toBe('Basic realm="webcap"');
    const credentials = { 'proxy-authorization': basic('user', 'password') };
    expect((await viaProxy(`http://127.0.0.1:${fixture.port}/shared`, proxy.port, credentials)).status).toBe(
      407,
    );
    for (const head of [
      connectHead(`127.0.0.1:${fixture.port}`),
      upgradeHead(`ws://127.0.0.1:${fixture.port}/shared`),
    ]) {
      const refused = await rawExchange(head, proxy.port);
      expect(refused.status).toBe(407);
      refused.socket.destroy();
    }
    expect(fixtureRequests).not.toContain('/shared');
    const route = await proxy.addRoute();
    await route.close();
    await expect(viaProxy(`http://127.0.0.1:${fixture.port}/`, portOf(route))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('answers 400 to what is not a proxy request, and 502 to an unreachable target', async () => {
    const route = await proxy.addRoute();
    const port = portOf(route);
    expect((await viaProxy('/relative', port)).status).toBe(400);
    expect((await viaProxy(`https://127.0.0.1:${fixture.port}/`, port)).status).toBe(400);
    const bad = await rawExchange(connectHead('no-port'), port);
    expect(bad.status).toBe(400);
    bad.socket.destroy();
    const missing = await viaProxy('http://nx.test/', port);
    expect(missing).toMatchObject({
      status: 502,
      body: 'Could not reach http://nx.test/: host not found (ENOTFOUND)\n',
    });
    expect(route.answerFor('http://nx.test/')).toEqual({
      kind: 'unreachable',
      reason: 'host not found (ENOTFOUND)',
    });
  });

  it('refuses an upstream proxy whose own host the policy refuses', async () => {
    const unchecked = await proxy.addRoute();
    unchecked.use(parseUpstreamProxy(`http://127.0.0.1:${canary.port}`));
    const answer = await viaProxy(`http://fixture.test:${fixture.port}/`, portOf(unchecked));
    expect(answer).toMatchObject({
      status: 403,
      headers: {
        'x-webcap-blocked': `127.0.0.1 is allowed by WEBCAP_ALLOW_PRIVATE but not on port ${canary.port}; add 127.0.0.1/32:${canary.port}`,
      },
    });
    await expect(
      proxy.checkUpstream(parseUpstreamProxy(`http://127.0.0.1:${canary.port}`)),
    ).rejects.toMatchObject({
      code: 'blocked',
      detail: `proxy 127.0.0.1 is allowed by WEBCAP_ALLOW_PRIVATE but not on port ${canary.port}; add 127.0.0.1/32:${canary.port}`,
    });
    for (const raw of [
      `socks5://u:p@0x7f.1:${canary.port}`,
      'http://169.254.169.254:3128',
      `https://internal.test:${canary.port}`,
    ]) {
      const error = await proxy.checkUpstream(parseUpstreamProxy(raw)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WebcapError);
      expect(error).toMatchObject({ code: 'blocked', detail: expect.stringMatching(/^proxy /) });
    }
    expect(canaryHits()).toBe(0);
  });
});

describe('egress proxy: security (the canaries see nothing)', () => {
  let route: ProxyRoute;
  beforeAll(async () => {
    route = await proxy.addRoute();
  });
  afterEach(() => {
    expect(canaryHits()).toBe(0);
  });

  it.each([
    'http://127.0.0.1:{c}/',
    'http://127.1:{c}/',
    'http://2130706433:{c}/',
    'http://0x7f.1:{c}/',
    'http://0177.0.0.1:{c}/',
    'http://[::1]:{c}/',
    'http://[::ffff:127.0.0.1]:{c}/',
    'http://0.0.0.0:{c}/',
    'http://internal.test:{c}/',
    'http://mixed.test:{c}/',
    'http://a@127.0.0.1:{c}/',
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://10.0.0.1/',
  ])('answers 403 to a plain request for %s', async (template) => {
    const target = template.replace('{c}', String(canary.port));
    const before = route.stats.refusals.length;
    const answer = await viaProxy(target, portOf(route));
    expect(answer.status).toBe(403);
    expect(answer.headers['x-webcap-blocked']).toMatch(/ (is|resolves to) /);
    expect(answer.body).toMatch(/^Blocked by the webcap network guard: /);
    expect(route.stats.refusals).toHaveLength(before + 1);
    expect(route.stats.refusals.at(-1)?.reason).toBe(answer.headers['x-webcap-blocked']);
  });

  it.each([
    '127.0.0.1:{c}',
    '127.1:{c}',
    '0x7f000001:{c}',
    '[::1]:{c}',
    '[::ffff:7f00:1]:{c}',
    '0.0.0.0:{c}',
    'internal.test:{c}',
    '169.254.169.254:443',
    '[2002:a9fe:a9fe::]:443',
  ])('answers 403 to CONNECT %s', async (template) => {
    const answer = await rawExchange(
      connectHead(template.replace('{c}', String(canary.port))),
      portOf(route),
    );
    expect(answer.status).toBe(403);
    expect(answer.head).toMatch(/\r\nX-Webcap-Blocked: /);
    answer.socket.destroy();
  });

  it('answers 403 to localhost resolved by the system resolver', async () => {
    const system = await EgressProxy.start({ policy: new NetworkPolicy() });
    try {
      const local = await system.addRoute();
      expect((await viaProxy(`http://localhost:${canary.port}/`, portOf(local))).status).toBe(403);
      const reason = `localhost resolves to a loopback address; allow that address on port ${canary.port} with WEBCAP_ALLOW_PRIVATE`;
      expect(local.stats.refusals).toEqual([{ target: `http://localhost:${canary.port}/`, reason }]);
      expect(local.answerFor(`http://localhost:${canary.port}/`)).toEqual({ kind: 'blocked', reason });
      expect(local.answerFor(`http://localhost:${canary.port}/other`)).toBeUndefined();
    } finally {
      await system.stop();
    }
  });

  it('answers 403 to a WebSocket upgrade for the canary', async () => {
    const answer = await rawExchange(upgradeHead(`ws://127.0.0.1:${canary.port}/ws`), portOf(route));
    expect(answer.status).toBe(403);
    answer.socket.destroy();
  });

  it('refuses a refused IP literal even through a chained upstream', async () => {
    const via = await callerProxy();
    const chained = await routeVia(via);
    expect((await viaProxy('http://169.254.169.254/', portOf(chained))).status).toBe(403);
    const tunnel = await rawExchange(connectHead(`127.0.0.1:${canary.port}`), portOf(chained));
    expect(tunnel.status).toBe(403);
    tunnel.socket.destroy();
    expect(relay.heads).toEqual([]);
  });

  it('records each refusal on its route', () => {
    expect(route.stats.refusals.at(-1)).toEqual({
      target: `ws://127.0.0.1:${canary.port}/ws`,
      reason: `127.0.0.1 is allowed by WEBCAP_ALLOW_PRIVATE but not on port ${canary.port}; add 127.0.0.1/32:${canary.port}`,
    });
  });
});

describe('egress proxy: real Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await puppeteer.launch({
      executablePath: DEFAULT_CHROMIUM_PATH,
      args: chromiumArgs({ proxyPort: proxy.port, sandbox: 'auto' }),
      headless: true,
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A page in a new context routed by the route's own listener; with no route, by the shared port. */
  async function contextPage(route: ProxyRoute | null): Promise<Page> {
    // As the pool does: a context's proxy replaces the launch flag's, so the bypass rule is repeated.
    const context = await browser.createBrowserContext({
      proxyServer: route === null ? `http://127.0.0.1:${proxy.port}` : route.proxyServer,
      proxyBypassList: ['<-loopback>'],
    });
    return context.newPage();
  }

  /**
   * How a navigation ended: Chromium's error, or the status of the page it showed. A proxy's 407
   * is either an auth error (the full browser) or shown as the page (the headless shell).
   */
  async function outcome(page: Page, url: string): Promise<string> {
    return page.goto(url).then(
      (response) => `status ${response?.status()}`,
      (error: unknown) => String(error),
    );
  }
  const PROXY_REFUSAL = /^(Error: net::ERR_INVALID_AUTH_CREDENTIALS|status 407)/;

  /** Distinct colours in a screenshot (sampled) and how many of those samples are the page's red box. */
  async function colours(page: Page, png: Uint8Array): Promise<{ distinct: number; red: number }> {
    return page.evaluate(async (base64: string) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      if (context === null) return { distinct: 0, red: 0 };
      context.drawImage(image, 0, 0);
      const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
      const seen = new Set<number>();
      let red = 0;
      for (let i = 0; i < data.length; i += 4 * 31) {
        const [r = 0, g = 0, b = 0] = [data[i], data[i + 1], data[i + 2]];
        seen.add((r << 16) | (g << 8) | b);
        if (r > 180 && g < 40 && b < 40) red += 1;
      }
      return { distinct: seen.size, red };
    }, Buffer.from(png).toString('base64'));
  }

  it('sends every kind of request to the proxy, which refuses the canary, and the page still renders', async () => {
    const route = await proxy.addRoute();
    const page = await contextPage(route);
    const response = await page.goto(`http://127.0.0.1:${fixture.port}/attack`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.waitForFunction('window.settled === true', { timeout: HANG_MS });
    // Each attempt names its own path: wait until the proxy has refused every one of them.
    const expected = [
      '/style.css',
      '/bg.png',
      '/img.png',
      '/iframe',
      '/form',
      '/fetch',
      '/xhr',
      '/sse',
      '/beacon',
      '/worker',
    ];
    const refusedPaths = () =>
      route.stats.refusals.map((refusal) =>
        URL.canParse(refusal.target) ? new URL(refusal.target).pathname : refusal.target,
      );
    const deadline = Date.now() + HANG_MS;
    while (expected.some((item) => !refusedPaths().includes(item)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refusedPaths()).toEqual(expect.arrayContaining([...expected, `127.0.0.1:${canary.port}`]));
    expect(refusedPaths()).toEqual(expect.arrayContaining(['/latest/meta-data/', '/internal.png']));
    expect(canaryHits()).toBe(0);

    expect(await page.title()).toBe('guarded page');
    expect(await page.$eval('#greeting', (element) => element.textContent)).toBe(
      'rendered despite the blocks',
    );
    const shot = await page.screenshot({ type: 'png' });
    const { distinct, red } = await colours(page, shot);
    expect(distinct).toBeGreaterThan(2);
    expect(red).toBeGreaterThan(100);
    await page.browserContext().close();
  });

  it('routes each browser context by its own listener, chained upstream included', async () => {
    const direct = await proxy.addRoute();
    const via = await callerProxy();
    const chained = await routeVia(via);
    const [directPage, chainedPage, anonymousPage] = await Promise.all([
      contextPage(direct),
      contextPage(chained),
      contextPage(null),
    ]);
    // The direct context's request reaches the fixture without passing the caller's proxy...
    expect((await directPage.goto(`http://127.0.0.1:${fixture.port}/direct`))?.status()).toBe(200);
    expect(fixtureRequests).toContain('/direct');
    expect(relay.heads).toEqual([]);
    // ...and the chained one's goes through it.
    expect((await chainedPage.goto(`http://127.0.0.1:${fixture.port}/chained`))?.status()).toBe(200);
    expect(await chainedPage.evaluate(() => document.body.textContent)).toBe('fixture says hi to /chained');
    expect(relay.heads.some((head) => head.startsWith(`GET http://127.0.0.1:${fixture.port}/chained `))).toBe(
      true,
    );
    // The shared port lets nothing out.
    expect(await outcome(anonymousPage, `http://127.0.0.1:${fixture.port}/anonymous`)).toMatch(PROXY_REFUSAL);
    expect(fixtureRequests).not.toContain('/anonymous');
    for (const page of [directPage, chainedPage, anonymousPage]) await page.browserContext().close();
    await Promise.all([direct.close(), chained.close()]);
    expect(canaryHits()).toBe(0);
  });

  it('confines the default context by the launch flags alone', async () => {
    const page = await browser.newPage();
    for (const target of [
      `http://127.0.0.1:${canary.port}/default`,
      `http://127.0.0.1:${fixture.port}/default`,
    ]) {
      expect(await outcome(page, target)).toMatch(PROXY_REFUSAL);
    }
    expect(fixtureRequests).not.toContain('/default');
    expect(canaryHits()).toBe(0);
  });
});
