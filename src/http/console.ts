import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../domain/errors.js';

/**
 * The console's own policy: its scripts, styles, images and API calls all come from this origin,
 * and nothing inline runs (the page has no inline script or style). It may not be framed.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The paths the console answers with its page, so a bookmark or a reload of any screen works: the
 * screens and their sub-pages. Everything else keeps its own answer (the API's 404 included).
 */
export const CONSOLE_PAGES = [
  '/',
  '/sign-in',
  '/loads',
  '/loads/*',
  '/review',
  '/carriers',
  '/carriers/*',
  '/calls',
  '/calls/*',
  '/results',
  '/settings',
  '/accept-invitation',
  '/settings/*',
] as const;

export interface ConsoleOptions {
  /** The folder `npm run build` writes the console to (index.html and assets/). */
  dir: string;
}

const notBuilt = (dir: string) =>
  new AppError(
    503,
    'console_not_built',
    `The console has not been built (no ${path.join(dir, 'index.html')}): run npm run build`,
  );

/**
 * Serves the built console: its page (no-store, so a new build is picked up at once, under the
 * console's CSP) at each screen's path, and its hashed assets under /assets/ for a year, immutable
 * (a new build has new names), pre-compressed (brotli or gzip, as the browser accepts).
 */
export async function serveConsole(app: FastifyInstance, { dir }: ConsoleOptions) {
  const indexFile = path.join(dir, 'index.html');
  const page = existsSync(indexFile) ? readFileSync(indexFile) : null;
  if (!page) app.log.warn({ dir }, 'console: not built; / answers 503 until `npm run build` has run');

  const sendPage = (reply: FastifyReply) => {
    if (!page) throw notBuilt(dir);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', CONSOLE_CSP)
      .send(page);
  };
  for (const url of CONSOLE_PAGES) {
    app.get(url, { schema: { hide: true } }, (_request, reply) => sendPage(reply));
  }

  const assets = path.join(dir, 'assets');
  if (existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      index: false,
      list: false,
      dotfiles: 'deny',
      preCompressed: true,
      immutable: true,
      maxAge: '365d',
      // A missing asset is the API's 404, not the plugin's own page.
      wildcard: true,
    });
  }
}
