import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, pngSize, startFixtureServer } from './helpers/chromium.js';
import { browserPool, newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * The service on Debian's full browser (CHROMIUM_PATH=/usr/lib/chromium/chromium) instead of the
 * headless shell. Its windows keep room for the browser's UI, so a fresh page is shorter than the
 * window it asks for: the pool measures that, and a default capture is still 1280 × 1024.
 */
describe('capture on the full browser', () => {
  let site: FixtureServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startFixtureServer();
    t = await startTestRuntime('sqlite', {
      env: {
        CHROMIUM_PATH: '/usr/lib/chromium/chromium',
        WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`,
        BROWSER_CONCURRENCY: '1',
      },
    });
    key = await newAccountKey(t, 'full', 100);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('captures the default viewport at 1280 × 1024, whatever room the window leaves', async () => {
    const opened = await browserPool(t.runtime).run(null, async (lease) => lease.windowSize);
    expect(opened.width).toBe(1280);
    expect(opened.height).toBeLessThan(1024);
    const res = await t.runtime.app.inject({
      url: `/v1/capture?${new URLSearchParams({ url: site.url('/capture.html') })}`,
      headers: { 'x-api-key': key },
    });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1280, height: 1024 });
  });
});
