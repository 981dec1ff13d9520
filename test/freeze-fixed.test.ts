import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * freeze_fixed (docs/capture.md, "Fixed and sticky elements on a full page"): a page that has
 * scrolled itself down, as one opened at an anchor or restoring its place does, with a fixed
 * header and bottom bar, a sticky band and a fixed badge inside a shadow root whose host is
 * positioned further down. Real Chromium, pixels read down two columns of the full-page image.
 */

const PAGE = `<!doctype html><html><head><style>
  body { margin: 0; background: rgb(255, 255, 255) }
  #header { position: fixed; top: 0; left: 0; right: 0; height: 40px; background: rgb(255, 0, 0) }
  #bar { position: fixed; bottom: 0; left: 0; right: 0; height: 30px; background: rgb(0, 0, 255) }
  #sticky { position: sticky; top: 40px; height: 20px; margin-top: 1000px; background: rgb(0, 160, 0) }
  #host { position: relative; top: 500px; margin-left: 10px }
  #tall { height: 2000px }
</style></head><body>
<div id="header"></div><div id="sticky"></div><div id="host"></div><div id="tall"></div><div id="bar"></div>
<script>
  document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
    '<div style="position: fixed; top: 60px; left: 0; width: 100px; height: 20px; background: rgb(255, 0, 255)"></div>';
  scrollTo(0, 1500);
</script>
</body></html>`;

const RED = '255,0,0';
const BLUE = '0,0,255';
const GREEN = '0,160,0';
const MAGENTA = '255,0,255';
const WHITE = '255,255,255';

describe('freeze_fixed: fixed and sticky elements drawn once on a full page', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(PAGE);
    });
    t = await startTestRuntime('sqlite', {
      env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, BROWSER_CONCURRENCY: '1' },
    });
    key = await newAccountKey(t, 'freeze-fixed', 1000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const capture = (query: Record<string, string>) =>
    t.runtime.app.inject({
      url: '/v1/capture',
      query: {
        url: `http://127.0.0.1:${site.port}/`,
        viewport_width: '400',
        viewport_height: '300',
        ...query,
      },
      headers: { 'x-api-key': key },
    });

  /** The image's height and, down column x, each run of one colour as `start-end:r,g,b` (end exclusive). */
  const runs = async (image: Buffer, x: number) => {
    const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
    const found: string[] = [];
    let colour = '';
    let start = 0;
    for (let y = 0; y <= info.height; y++) {
      const at = (y * info.width + x) * info.channels;
      const here = y === info.height ? '' : `${data[at]},${data[at + 1]},${data[at + 2]}`;
      if (here === colour) continue;
      if (colour !== '') found.push(`${start}-${y}:${colour}`);
      colour = here;
      start = y;
    }
    return { height: info.height, found };
  };

  const fullPage = async (query: Record<string, string>) => {
    const res = await capture({ full_page: 'true', ...query });
    expect(res.statusCode, res.body).toBe(200);
    return { wide: await runs(res.rawPayload, 200), badge: await runs(res.rawPayload, 50) };
  };

  it('by default draws them as it always has: where the scrolled page shows them', async () => {
    const { wide, badge } = await fullPage({});
    expect(wide).toEqual({
      height: 3020,
      found: [
        `0-1500:${WHITE}`,
        `1500-1540:${RED}`,
        `1540-1560:${GREEN}`,
        `1560-1770:${WHITE}`,
        `1770-1800:${BLUE}`,
        `1800-3020:${WHITE}`,
      ],
    });
    expect(badge.found).toContain(`1560-1580:${MAGENTA}`);
  });

  it('with freeze_fixed=true draws each once, where the first viewport shows it', async () => {
    const { wide, badge } = await fullPage({ freeze_fixed: 'true' });
    expect(wide).toEqual({
      height: 3020,
      found: [
        `0-40:${RED}`,
        `40-270:${WHITE}`,
        `270-300:${BLUE}`,
        `300-1000:${WHITE}`,
        `1000-1020:${GREEN}`,
        `1020-3020:${WHITE}`,
      ],
    });
    // The badge inside the shadow root, whose host is positioned 500 px further down, stays at 60.
    expect(badge.found).toEqual([
      `0-40:${RED}`,
      `40-60:${WHITE}`,
      `60-80:${MAGENTA}`,
      `80-270:${WHITE}`,
      `270-300:${BLUE}`,
      `300-1000:${WHITE}`,
      `1000-1020:${GREEN}`,
      `1020-3020:${WHITE}`,
    ]);
  });

  it.each([
    [{ freeze_fixed: 'true' }, 'Bad Request: freeze_fixed needs full_page=true and an image format'],
    [
      { freeze_fixed: 'true', full_page: 'true', format: 'pdf' },
      'Bad Request: freeze_fixed needs full_page=true and an image format',
    ],
    [{ freeze_fixed: 'maybe', full_page: 'true' }, /^Bad Request: freeze_fixed /],
  ] as const)('%j is a 400 naming it', async (query, message) => {
    const res = await capture(query);
    expect(res.statusCode, res.body).toBe(400);
    if (typeof message === 'string') expect(res.json().error).toBe(message);
    else expect(res.json().error).toMatch(message);
  });
});
