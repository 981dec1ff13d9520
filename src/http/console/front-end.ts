import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { WebcapError } from '../../errors.js';

/** Where `npm run build` writes the console (dist/console), from src/http/console and dist/http/console alike. */
export const BUILT_CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

const NOT_BUILT =
  'The console is not built. Run `npm run build` (it builds the console into dist/console/), then reload.\n';

/**
 * The console's Content-Security-Policy (docs/console.md, "The front end"): nothing from
 * elsewhere, no inline script or style; images and recordings (animated captures) also from the
 * published origin, where `screenshot_url` links point.
 */
export function consoleCsp(publicBaseUrl: string | null): string {
  const images = [
    "'self'",
    'data:',
    'blob:',
    ...(publicBaseUrl === null ? [] : [new URL(publicBaseUrl).origin]),
  ];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${images.join(' ')}`,
    `media-src ${images.join(' ')}`,
    "connect-src 'self'",
    "font-src 'self'",
    "frame-src 'self' blob:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every console answer, pages, assets and API alike. */
export function consoleHeaders(publicBaseUrl: string | null): Record<string, string> {
  return {
    'content-security-policy': consoleCsp(publicBaseUrl),
    'x-content-type-options': 'nosniff',
    // An invitation link carries its token in the path: no Referer takes it anywhere.
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
}

/** Hashed names never change content: a year, immutable. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the built front end: `/console/assets/*` (hashed names) with a year's caching, and every
 * other `/console` path the app's index.html, revalidated on each load, so that a new build is
 * picked up at once. Without a build (running from the sources), a short page says how to make one.
 */
export async function frontEndRoutes(app: FastifyInstance, dir: string): Promise<void> {
  const assets = path.join(dir, 'assets');
  if (fs.existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/console/assets/',
      decorateReply: false,
      index: false,
      list: false,
      dotfiles: 'deny',
      cacheControl: false,
      setHeaders: (res) => {
        res.setHeader('cache-control', IMMUTABLE);
      },
      schemaHide: true,
    });
  } else {
    app.get('/console/assets/*', { schema: { hide: true } }, async () => {
      throw new WebcapError('not_found');
    });
  }
  const index = path.join(dir, 'index.html');
  const page = async (_request: unknown, reply: FastifyReply) => {
    let html: Buffer;
    try {
      html = await fs.promises.readFile(index);
    } catch {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(NOT_BUILT);
    }
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };
  app.get('/console', { schema: { hide: true } }, page);
  app.get('/console/*', { schema: { hide: true } }, page);
}
