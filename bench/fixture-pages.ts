import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import sharp from 'sharp';

/** The pages the benchmark captures, by path. */
export const PAGES = [
  { name: 'small', path: '/small.html' },
  { name: 'article', path: '/article.html' },
  { name: 'app', path: '/app.html' },
] as const;

export type PageName = (typeof PAGES)[number]['name'];

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

// A real TrueType file served as a web font, so the article page waits for a font download.
const FONT_FILE = '/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf';

/** An SVG picture with gradients and shapes: compresses like a photo-ish illustration, not like noise. */
function pictureSvg(width: number, height: number, seed: number): string {
  let state = seed * 2_654_435_761;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const shapes: string[] = [];
  for (let i = 0; i < 40; i++) {
    const hue = Math.floor(random() * 360);
    const x = Math.floor(random() * width);
    const y = Math.floor(random() * height);
    const r = Math.floor(10 + random() * height * 0.3);
    shapes.push(`<circle cx="${x}" cy="${y}" r="${r}" fill="hsl(${hue},70%,55%)" fill-opacity="0.55"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
<stop offset="0" stop-color="hsl(${seed * 37},60%,80%)"/><stop offset="1" stop-color="hsl(${seed * 71},60%,30%)"/>
</linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>${shapes.join('')}</svg>`;
}

const LOREM = `Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut
labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut
aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore
eu fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt
mollit anim id est laborum.`;

const SMALL_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Small</title>
<link rel="stylesheet" href="/small.css"></head>
<body><header><h1>Acme widgets</h1><nav><a href="#">Home</a><a href="#">Pricing</a><a href="#">Docs</a></nav></header>
<main><img class="hero" src="/logo.png" width="600" height="300" alt="">
<p>${LOREM}</p><p>${LOREM}</p><button>Get started</button></main></body></html>`;

const SMALL_CSS = `body { margin: 0; font-family: sans-serif; color: #222; background: #fafafa; }
header { display: flex; justify-content: space-between; align-items: center; padding: 16px 32px;
  background: linear-gradient(90deg, #1d3557, #457b9d); color: white; box-shadow: 0 2px 6px rgba(0,0,0,.3); }
nav a { color: white; margin-left: 24px; text-decoration: none; }
main { max-width: 800px; margin: 32px auto; padding: 0 16px; }
.hero { display: block; margin: 0 auto 24px; border-radius: 12px; box-shadow: 0 8px 24px rgba(0,0,0,.2); }
button { padding: 12px 24px; border: 0; border-radius: 6px; background: #e63946; color: white; font-size: 18px; }`;

/** The article's images come from a second host, as from a CDN; `{{CDN}}` becomes http://host:port. */
function articleHtml(): string {
  const sections: string[] = [];
  for (let i = 1; i <= 6; i++) {
    sections.push(`<h2>Section ${i}</h2><p>${LOREM}</p>
<figure><img src="{{CDN}}/photo-${i}.jpg" width="720" height="405" alt=""><figcaption>Figure ${i}</figcaption></figure>
<p>${LOREM}</p><blockquote>${LOREM.slice(0, 160)}</blockquote>`);
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Article</title>
<link rel="stylesheet" href="/article.css"></head>
<body><article><h1>A long read about rendering pages</h1><p class="byline">By A. Writer · 12 min read</p>
${sections.join('\n')}</article><aside><h3>Related</h3><ul>${'<li><a href="#">Another story</a></li>'.repeat(8)}</ul></aside>
</body></html>`;
}

const ARTICLE_CSS = `@font-face { font-family: "Bench Serif"; src: url("/serif.ttf") format("truetype"); font-display: block; }
body { margin: 0; display: grid; grid-template-columns: 1fr 280px; gap: 40px; padding: 40px 64px;
  font-family: "Bench Serif", serif; font-size: 19px; line-height: 1.6; color: #1a1a1a; }
h1 { font-size: 44px; line-height: 1.1; } h2 { margin-top: 48px; }
.byline { color: #666; font-style: italic; }
figure { margin: 24px 0; } figure img { width: 100%; height: auto; border-radius: 4px; }
figcaption { font-size: 14px; color: #777; }
blockquote { border-left: 4px solid #c00; margin: 16px 0; padding: 4px 20px; color: #444; }
aside { position: sticky; top: 40px; align-self: start; background: #f3f3f3; padding: 16px 24px; border-radius: 8px; }`;

const APP_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dashboard</title>
<style>
body { margin: 0; font: 14px system-ui, sans-serif; background: #eef1f5; }
#top { height: 56px; background: #222831; color: #fff; display: flex; align-items: center; padding: 0 24px; }
#cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 16px; padding: 16px 24px; }
.card { background: #fff; border-radius: 8px; padding: 16px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
.card b { display: block; font-size: 28px; margin-top: 8px; }
canvas { background: #fff; margin: 0 24px; border-radius: 8px; }
table { margin: 16px 24px; border-collapse: collapse; background: #fff; width: calc(100% - 48px); }
td, th { padding: 6px 10px; border-bottom: 1px solid #e3e3e3; text-align: left; }
tr:nth-child(even) td { background: #f8f9fb; }
</style></head>
<body><div id="top">Dashboard</div><div id="cards"></div><canvas id="chart" width="1200" height="260"></canvas>
<table id="rows"><thead><tr><th>#</th><th>Customer</th><th>Plan</th><th>Usage</th><th>Status</th></tr></thead><tbody></tbody></table>
<script src="/app.js"></script></body></html>`;

const APP_JS = `(() => {
  let seed = 7;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const cards = document.getElementById('cards');
  for (const name of ['Revenue', 'Users', 'Captures', 'Errors', 'Latency', 'Queue', 'Cache', 'Uptime']) {
    const card = document.createElement('div');
    card.className = 'card';
    card.innerHTML = name + '<b>' + Math.floor(random() * 100000).toLocaleString('en') + '</b>';
    cards.appendChild(card);
  }
  const ctx = document.getElementById('chart').getContext('2d');
  for (let series = 0; series < 3; series++) {
    ctx.beginPath();
    ctx.strokeStyle = ['#e63946', '#457b9d', '#2a9d8f'][series];
    ctx.lineWidth = 2;
    let y = 130;
    for (let x = 0; x <= 1200; x += 8) {
      y = Math.max(10, Math.min(250, y + (random() - 0.5) * 30));
      if (x === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    }
    ctx.stroke();
  }
  const body = document.querySelector('#rows tbody');
  const plans = ['free', 'basic', 'pro', 'business'];
  for (let i = 1; i <= 400; i++) {
    const row = document.createElement('tr');
    const cells = [i, 'Customer ' + Math.floor(random() * 1e6), plans[i % 4], Math.floor(random() * 5000), random() > 0.1 ? 'active' : 'late'];
    for (const value of cells) {
      const cell = document.createElement('td');
      cell.textContent = String(value);
      row.appendChild(cell);
    }
    body.appendChild(row);
  }
})();`;

/** Every file the site serves, built once (the images are rendered by sharp from SVG). */
export async function buildAssets(): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  const text = (type: string, body: string) => ({ type, body: Buffer.from(body) });
  assets.set('/small.html', text('text/html; charset=utf-8', SMALL_HTML));
  assets.set('/small.css', text('text/css', SMALL_CSS));
  assets.set('/article.html', text('text/html; charset=utf-8', articleHtml()));
  assets.set('/article.css', text('text/css', ARTICLE_CSS));
  assets.set('/app.html', text('text/html; charset=utf-8', APP_HTML));
  assets.set('/app.js', text('text/javascript', APP_JS));
  assets.set('/serif.ttf', { type: 'font/ttf', body: readFileSync(FONT_FILE) });
  assets.set('/logo.png', {
    type: 'image/png',
    body: await sharp(Buffer.from(pictureSvg(600, 300, 1)))
      .png()
      .toBuffer(),
  });
  for (let i = 1; i <= 6; i++) {
    assets.set(`/photo-${i}.jpg`, {
      type: 'image/jpeg',
      body: await sharp(Buffer.from(pictureSvg(720, 405, i + 1)))
        .jpeg({ quality: 80 })
        .toBuffer(),
    });
  }
  return assets;
}

/**
 * The request handler of every host. Nothing may be cached (`no-store`): a reused page in the
 * floor baseline must fetch every resource again, like a fresh context does.
 */
export function siteHandler(assets: ReadonlyMap<string, Asset>, cdnOf: (host: string) => string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const pathname = new URL(req.url ?? '/', 'http://fixture').pathname;
    const asset = assets.get(pathname);
    if (asset === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const host = req.headers.host ?? '';
    const body =
      pathname === '/article.html'
        ? Buffer.from(asset.body.toString().replaceAll('{{CDN}}', cdnOf(host)))
        : asset.body;
    res.writeHead(200, {
      'content-type': asset.type,
      'content-length': body.length,
      'cache-control': 'no-store',
    });
    res.end(body);
  };
}
