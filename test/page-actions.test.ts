import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCanary, startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Acting on a page before it is read (docs/capture.md, "Acting on the page"): real Chromium
 * behind the egress proxy, against pages served on 127.0.0.1 whose text shows what was done to
 * them; a canary on another loopback port that the policy does not allow.
 */

const APP = `<!doctype html><html><head><title>app</title><style>
  body { margin: 0; background: rgb(255, 255, 255); min-height: 4000px }
  body.red { background: rgb(255, 0, 0) }
</style></head><body>
<button id="more" onclick="document.body.classList.add('red');
  document.getElementById('log').insertAdjacentHTML('beforeend', '<p>clicked more</p>')">More</button>
<button class="many" onclick="log('pressed ' + this.dataset.n)" data-n="1">one</button>
<button class="many" onclick="log('pressed ' + this.dataset.n)" data-n="2">two</button>
<input id="q" oninput="document.getElementById('echo').textContent = 'typed: ' + this.value"
  onkeydown="if (event.key === 'Enter') document.getElementById('log').insertAdjacentHTML('beforeend', '<p>pressed Enter</p>')">
<p id="echo"></p>
<span id="hover" onmouseover="log('tooltip shown')">hover me</span>
<a id="go" href="/second">go</a>
<div id="log"></div>
<p id="far" style="position: absolute; top: 3000px">far away</p>
<script>
  function log(text) { document.getElementById('log').insertAdjacentHTML('beforeend', '<p>' + text + '</p>') }
  addEventListener('scroll', () => { document.getElementById('echo').dataset.y = String(scrollY) });
</script>
</body></html>`;

describe('acting on the page', () => {
  let site: TestServer;
  let canary: TestServer;
  let t: TestRuntime;
  let key: string;
  const siteHits: string[] = [];

  const page = (path: string) => `http://127.0.0.1:${site.port}${path}`;

  beforeAll(async () => {
    canary = await startCanary();
    site = await startServer((req, res) => {
      siteHits.push(req.url ?? '');
      res.setHeader('content-type', 'text/html');
      if (req.url === '/second')
        return res.end('<!doctype html><title>second</title><h1>the second page</h1>');
      if (req.url === '/strict') {
        // Inline code is forbidden to the page itself; the caller's script is not the page's.
        res.setHeader('content-security-policy', "default-src 'none'; script-src 'none'");
        return res.end('<!doctype html><title>strict</title><p id="p">as served</p>');
      }
      if (req.url === '/control') return res.end('ok');
      res.end(APP);
    });
    t = await startTestRuntime('sqlite', {
      env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, BROWSER_CONCURRENCY: '1' },
    });
    key = await newAccountKey(t, 'actions', 10_000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    await canary?.close();
  });

  const call = (route: string, query: Record<string, string>) =>
    t.runtime.app.inject({ url: route, query, headers: { 'x-api-key': key } });
  const markdown = async (query: Record<string, string>) => {
    const res = await call('/v1/content', { include_markdown: 'true', ...query });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { markdown: string; warnings?: string[]; url: string };
  };
  const used = async () =>
    (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json()
      .total_used as number;

  it('clicks, types and presses in order, and what they changed is extracted', async () => {
    const actions = [
      { type: 'click', selector: '#more' },
      { type: 'type', selector: '#q', text: 'hello' },
      { type: 'press', key: 'Enter' },
      { type: 'click', selector: '.many', all: true },
    ];
    const data = await markdown({ url: page('/app'), actions: JSON.stringify(actions) });
    expect(data.markdown).toContain('clicked more');
    expect(data.markdown).toContain('typed: hello');
    expect(data.markdown).toContain('pressed Enter');
    expect(data.markdown).toContain('pressed 1');
    expect(data.markdown).toContain('pressed 2');
    expect(data.warnings ?? []).toEqual([]);
  });

  it('a POST body takes the steps as a JSON list', async () => {
    const res = await t.runtime.app.inject({
      method: 'POST',
      url: '/v1/content',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: { url: page('/app'), include_markdown: true, actions: [{ type: 'click', selector: '#more' }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.markdown).toContain('clicked more');
  });

  it('a click changes the pixels captured', async () => {
    const pixel = async (query: Record<string, string>) => {
      const res = await call('/v1/capture', {
        url: page('/app'),
        viewport_width: '400',
        viewport_height: '300',
        ...query,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { data } = await sharp(res.rawPayload).raw().toBuffer({ resolveWithObject: true });
      return [...data.subarray(0, 3)];
    };
    const bottomRight = async (query: Record<string, string>) => {
      const res = await call('/v1/capture', {
        url: page('/app'),
        viewport_width: '400',
        viewport_height: '300',
        ...query,
      });
      const { data, info } = await sharp(res.rawPayload).raw().toBuffer({ resolveWithObject: true });
      const at = (info.height * info.width - 1) * info.channels;
      return [...data.subarray(at, at + 3)];
    };
    expect(await bottomRight({})).toEqual([255, 255, 255]);
    expect(await bottomRight({ click: '#more' })).toEqual([255, 0, 0]);
    expect(await pixel({ click: '#more' })).not.toEqual(await pixel({}));
  });

  it('hover, scroll and scroll_into_view act as a visitor would', async () => {
    expect((await markdown({ url: page('/app'), hover: '#hover' })).markdown).toContain('tooltip shown');
    expect((await markdown({ url: page('/app') })).markdown).not.toContain('tooltip shown');
    const scrolled = await call('/v1/content', {
      url: page('/app'),
      include_html: 'true',
      actions: JSON.stringify([{ type: 'scroll', direction: 'down', amount: 1000 }]),
    });
    expect(scrolled.json().data.html).toContain('data-y="1000"');
    const intoView = await call('/v1/content', {
      url: page('/app'),
      include_html: 'true',
      actions: JSON.stringify([{ type: 'scroll', selector: '#far' }]),
    });
    expect(Number(/data-y="(\d+)"/.exec(intoView.json().data.html)?.[1])).toBeGreaterThan(2000);
  });

  it('a step that navigates is followed; the next steps act on the new page', async () => {
    const data = await markdown({
      url: page('/app'),
      actions: JSON.stringify([
        { type: 'click', selector: '#go' },
        { type: 'wait_for_selector', selector: 'h1' },
      ]),
    });
    expect(data.url).toBe(page('/second'));
    expect(data.markdown).toContain('the second page');
  });

  it('scripts run on a page whose policy forbids inline code; one that throws is a warning', async () => {
    const ran = await markdown({
      url: page('/strict'),
      scripts: "document.getElementById('p').textContent = 'changed by the caller'",
    });
    expect(ran.markdown).toContain('changed by the caller');
    const awaited = await markdown({
      url: page('/strict'),
      scripts:
        "new Promise((resolve) => setTimeout(() => { document.getElementById('p').textContent = 'after a promise'; resolve(); }, 50))",
    });
    expect(awaited.markdown).toContain('after a promise');
    const threw = await markdown({ url: page('/strict'), scripts: "throw new Error('caller bug')" });
    expect(threw.markdown).toContain('as served');
    expect(threw.warnings).toEqual([expect.stringMatching(/^scripts: the script threw: .*caller bug/)]);
  });

  it('an evaluate step that throws fails the call naming the step, unbilled', async () => {
    const before = await used();
    const res = await call('/v1/content', {
      url: page('/app'),
      actions: JSON.stringify([
        { type: 'wait', milliseconds: 1 },
        { type: 'evaluate', script: "throw new Error('boom')" },
      ]),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^Bad Request: actions\[1\] \(evaluate\): the script threw: .*boom/);
    expect(await used()).toBe(before);
  });

  it("the caller's script reaches the network only through the guard", async () => {
    siteHits.length = 0;
    const data = await markdown({
      url: page('/app'),
      scripts: `Promise.allSettled([
        fetch(${JSON.stringify(`http://127.0.0.1:${canary.port}/fetch`)}),
        fetch('/control'),
      ]).then(() => new Promise((resolve) => {
        const socket = new WebSocket(${JSON.stringify(`ws://127.0.0.1:${canary.port}/ws`)});
        socket.onerror = socket.onclose = resolve;
      }))`,
    });
    expect(data.warnings ?? []).toEqual([]);
    expect(siteHits).toContain('/control');
    expect(canary.connections()).toBe(0);
  });

  describe('a selector that matches nothing', () => {
    it('is a 400 naming the parameter or the step, unbilled', async () => {
      const before = await used();
      const direct = await call('/v1/capture', { url: page('/app'), click: '#nope' });
      expect(direct.statusCode).toBe(400);
      expect(direct.json().error).toBe('Bad Request: click matched no element');
      const step = await call('/v1/content', {
        url: page('/app'),
        actions: JSON.stringify([
          { type: 'hover', selector: '#more' },
          { type: 'click', selector: '#nope' },
        ]),
      });
      expect(step.statusCode).toBe(400);
      expect(step.json().error).toBe('Bad Request: actions[1] (click): no element matches "#nope"');
      expect(await used()).toBe(before);
    });

    it('is skipped with a warning under ignore_missing_selectors', async () => {
      const data = await markdown({
        url: page('/app'),
        ignore_missing_selectors: 'true',
        actions: JSON.stringify([
          { type: 'click', selector: '#nope' },
          { type: 'click', selector: '#more' },
        ]),
      });
      expect(data.markdown).toContain('clicked more');
      expect(data.warnings).toEqual([
        'actions[0] (click): no element matches "#nope"; skipped (ignore_missing_selectors)',
      ]);
    });
  });

  it('analyze reads the page after its actions', async () => {
    const res = await call('/v1/analyze', {
      url: page('/app'),
      actions: JSON.stringify([
        {
          type: 'evaluate',
          script: "document.body.insertAdjacentHTML('beforeend', '<p>Write to sales@acme-anvils.com</p>')",
        },
      ]),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.emails).toEqual(['sales@acme-anvils.com']);
  });

  describe('screenshot steps', () => {
    const CLICK_BETWEEN = JSON.stringify([
      { type: 'screenshot' },
      { type: 'click', selector: '#more' },
      { type: 'screenshot' },
    ]);
    const small = { viewport_width: '400', viewport_height: '300' };

    /** A hosted link fetched through the files endpoint, as its holder would, without a key. */
    const fetched = async (link: string) => {
      const url = new URL(link);
      expect(url.pathname).toMatch(/^\/v1\/files\/[A-Za-z0-9_-]+\.png$/);
      const res = await t.runtime.app.inject({ url: url.pathname + url.search });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      return res.rawPayload;
    };
    const bottomRight = async (png: Buffer) => {
      const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      const at = (info.height * info.width - 1) * info.channels;
      return { width: info.width, height: info.height, rgb: [...data.subarray(at, at + 3)] };
    };

    it('capture answers their hosted images in its own format, in order, before and after the click', async () => {
      const res = await call('/v1/capture', {
        url: page('/app'),
        ...small,
        format: 'jpeg',
        response_type: 'json',
        actions: JSON.stringify([
          { type: 'screenshot' },
          { type: 'click', selector: '#more' },
          { type: 'screenshot', full_page: true },
        ]),
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.actions.screenshots).toHaveLength(2);
      // The capture's own format: JPEG, whose colours are near, not exact.
      const [before, after] = await Promise.all(
        (body.actions.screenshots as string[]).map(async (link) => {
          const url = new URL(link);
          expect(url.pathname).toMatch(/\.jpeg$/);
          const file = await t.runtime.app.inject({ url: url.pathname + url.search });
          expect(file.headers['content-type']).toBe('image/jpeg');
          return bottomRight(file.rawPayload);
        }),
      );
      expect(before).toMatchObject({ width: 400, height: 300 });
      expect(before?.rgb.every((value) => value > 245)).toBe(true);
      // full_page: the whole 4000 px page, red once clicked.
      expect(after).toMatchObject({ width: 400, height: 4000 });
      const [r, g, b] = after?.rgb ?? [];
      expect([r ?? 0, 255 - (g ?? 255), 255 - (b ?? 255)].every((value) => value > 245)).toBe(true);
    });

    it('content carries them in data.actions.screenshots, PNGs whose pixels show the click', async () => {
      const res = await call('/v1/content', { url: page('/app'), actions: CLICK_BETWEEN });
      expect(res.statusCode, res.body).toBe(200);
      const links = res.json().data.actions.screenshots as string[];
      expect(links).toHaveLength(2);
      const [before, after] = await Promise.all(links.map(async (link) => bottomRight(await fetched(link))));
      expect(before).toEqual({ width: 1280, height: 1024, rgb: [255, 255, 255] });
      expect(after).toEqual({ width: 1280, height: 1024, rgb: [255, 0, 0] });
    });

    it('an async capture answered as an image carries them in its job result', async () => {
      const accepted = await call('/v1/capture', {
        url: page('/app'),
        ...small,
        actions: CLICK_BETWEEN,
        is_async: 'true',
      });
      expect(accepted.statusCode, accepted.body).toBe(202);
      const id = accepted.json().job_id as string;
      const deadline = Date.now() + HANG_MS;
      let record = { status: 'queued', result: null as { actions: { screenshots: string[] } } | null };
      while (record.status !== 'completed' && record.status !== 'failed' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        record = (await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } })).json();
      }
      expect(record.status).toBe('completed');
      const links = record.result?.actions.screenshots ?? [];
      expect(
        await Promise.all(links.map(async (link) => (await bottomRight(await fetched(link))).rgb)),
      ).toEqual([
        [255, 255, 255],
        [255, 0, 0],
      ]);
    });

    it('a result with them is not cached: each call renders and hosts anew', async () => {
      const query = {
        url: page('/app'),
        ...small,
        response_type: 'json',
        actions: CLICK_BETWEEN,
        cache: 'true',
      };
      const first = await call('/v1/capture', query);
      const second = await call('/v1/capture', query);
      expect([first.headers['x-webcap-cache'], second.headers['x-webcap-cache']]).toEqual(['miss', 'miss']);
      expect(second.json().actions.screenshots).not.toEqual(first.json().actions.screenshots);
      const content = { url: page('/app'), actions: CLICK_BETWEEN, cache: 'true' };
      await call('/v1/content', content);
      expect((await call('/v1/content', content)).headers['x-webcap-cache']).toBe('miss');
    });

    it('a call without them answers as it always did: no actions member', async () => {
      const res = await call('/v1/capture', {
        url: page('/app'),
        ...small,
        response_type: 'json',
        click: '#more',
      });
      expect(res.json()).not.toHaveProperty('actions');
      const content = await call('/v1/content', { url: page('/app'), click: '#more' });
      expect(content.json().data).not.toHaveProperty('actions');
    });

    it.each([
      [
        '/v1/content',
        { actions: JSON.stringify(Array(11).fill({ type: 'screenshot' })) },
        'Bad Request: actions takes more than 10 screenshots',
      ],
      [
        '/v1/capture',
        { actions: CLICK_BETWEEN },
        'Bad Request: actions[0] (screenshot): needs a JSON answer (response_type=json or base64): with response_type=image the answer is the image alone',
      ],
      [
        '/v1/analyze',
        { actions: CLICK_BETWEEN },
        'Bad Request: actions[0] (screenshot): is not taken by analyze: its answer has no place for images',
      ],
      [
        '/v1/content',
        { actions: '[{"type":"screenshot","full_page":"yes"}]' },
        /^Bad Request: actions\[0\] \(screenshot\) full_page /,
      ],
    ] as const)('%s %j is a 400 naming it, unbilled', async (route, query, message) => {
      const before = await used();
      const res = await call(route, { url: page('/app'), ...query });
      expect(res.statusCode, res.body).toBe(400);
      if (typeof message === 'string') expect(res.json().error).toBe(message);
      else expect(res.json().error).toMatch(message);
      expect(await used()).toBe(before);
    });
  });

  it.each([
    [{ actions: '[{' }, 'Bad Request: actions is not valid JSON'],
    [{ actions: '{"type":"click"}' }, /^Bad Request: actions must be array/],
    [{ actions: '[{"type":"dance"}]' }, /^Bad Request: actions\[0\]\.type is "dance"; allowed: wait, /],
    [{ actions: '[{"type":"constructor"}]' }, /^Bad Request: actions\[0\]\.type is "constructor"; allowed: /],
    [{ actions: '[{"type":"__proto__"}]' }, /^Bad Request: actions\[0\]\.type is "__proto__"; allowed: /],
    [{ actions: '[{"type":"click"}]' }, /^Bad Request: actions\[0\] \(click\) /],
    [{ actions: '[{"type":"click","selector":"#more","extra":1}]' }, /^Bad Request: actions\[0\] \(click\) /],
    [
      { actions: '[{"type":"wait","milliseconds":20000}]' },
      /^Bad Request: actions\[0\] \(wait\) milliseconds /,
    ],
    [
      { actions: JSON.stringify(Array(4).fill({ type: 'wait', milliseconds: 9000 })) },
      'Bad Request: actions waits more than 30000 ms in all',
    ],
    [
      { actions: JSON.stringify(Array(51).fill({ type: 'wait', milliseconds: 0 })) },
      /^Bad Request: actions /,
    ],
    [
      { actions: '[{"type":"scroll","selector":"#far","amount":3}]' },
      /^Bad Request: actions\[0\] \(scroll\) takes a selector/,
    ],
    [
      { actions: '[{"type":"press","key":"NoSuchKey"}]' },
      'Bad Request: actions[0] (press) has an unknown key "NoSuchKey"',
    ],
    [{ click: '' }, /^Bad Request: click /],
    [{ click: 'a['.repeat(1) }, /^Bad Request: click is not a valid CSS selector/],
    [
      { actions: '[{"type":"click","selector":"<<"}]' },
      /^Bad Request: actions\[0\] \(click\) is not a valid CSS selector/,
    ],
  ] as const)('%j is a 400 naming it, unbilled', async (query, message) => {
    const before = await used();
    const res = await call('/v1/content', { url: page('/app'), ...query });
    expect(res.statusCode, res.body).toBe(400);
    if (typeof message === 'string') expect(res.json().error).toBe(message);
    else expect(res.json().error).toMatch(message);
    expect(await used()).toBe(before);
  });
});
