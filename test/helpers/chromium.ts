import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser } from 'puppeteer-core';
import { DEFAULT_CHROMIUM_PATH } from '../../src/browser/chromium-args.js';

/** The browser the service drives by default. */
export const CHROMIUM_PATH = DEFAULT_CHROMIUM_PATH;

const PAGES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/pages');

/**
 * Launches headless Chromium with the flags our machines need: no sandbox only as root (it needs
 * user namespaces), /tmp instead of a small /dev/shm, and nothing that phones home.
 */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

export interface ServedRequest {
  /** The Host header without the port. */
  readonly host: string;
  readonly path: string;
  readonly userAgent: string;
}

export interface FixtureServer {
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: readonly ServedRequest[];
  /** `http://<host>:<port><pathname>`; host defaults to 127.0.0.1. */
  url(pathname: string, host?: string): string;
  /** How many requests asked for this path (any host). */
  hits(pathname: string): number;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.gif': 'image/gif',
};

// A 1×1 transparent GIF: the answer to any image path that has no file.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * Serves test/fixtures/pages on 127.0.0.1 and records every request. `{{PORT}}` in a served
 * file becomes the server's port, so a page can name other hosts that the test browser maps to
 * 127.0.0.1. Paths without a file answer an empty script, stylesheet or pixel by extension.
 */
export async function startFixtureServer(): Promise<FixtureServer> {
  const requests: ServedRequest[] = [];
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://fixture').pathname;
    requests.push({
      host: (req.headers.host ?? '').replace(/:\d+$/, ''),
      path: pathname,
      userAgent: req.headers['user-agent'] ?? '',
    });
    const ext = path.extname(pathname);
    const file = path.join(PAGES_DIR, path.normalize(pathname));
    res.setHeader('cache-control', 'no-store');
    res.setHeader('content-type', CONTENT_TYPES[ext] ?? 'application/octet-stream');
    if (file.startsWith(PAGES_DIR) && fs.existsSync(file) && fs.statSync(file).isFile()) {
      const body = fs.readFileSync(file);
      res.end(ext === '.html' ? body.toString('utf8').replaceAll('{{PORT}}', String(port)) : body);
    } else if (ext === '.gif' || ext === '.png') {
      res.setHeader('content-type', 'image/gif');
      res.end(PIXEL);
    } else if (ext === '.js' || ext === '.css') {
      res.end('');
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    url: (pathname, host = '127.0.0.1') => `http://${host}:${port}${pathname}`,
    hits: (pathname) => requests.filter((r) => r.path === pathname).length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Width and height from a PNG's IHDR chunk (bytes 16-23), without decoding the image. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const bytes = Buffer.from(png);
  if (bytes.toString('latin1', 1, 4) !== 'PNG' || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG');
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Whether a process with this pid exists (a zombie counts until it is reaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
