import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';

/** What a dashboard sends besides the CORS-safelisted headers. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-API-Key',
  'X-Organization-ID',
  'Idempotency-Key',
  'Last-Event-ID',
  'X-Request-ID',
] as const;

/** Response headers a dashboard's script may read (beyond the CORS-safelisted ones). */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-ID',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'Location',
] as const;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
// Browsers cap this themselves (Chromium at 2 hours); ten minutes keeps a changed setting quick to take.
const PREFLIGHT_MAX_AGE_SECONDS = 600;
/** A development server on this machine: any port of localhost, 127.0.0.1 or [::1], over http. */
const LOCAL_DEV_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** The allowed origins as @fastify/cors takes them: exact strings, plus the local pattern in development. */
export function allowedOrigins(cors: Config['cors']): string | (string | RegExp)[] {
  if (cors.any) return '*';
  return cors.localDevelopment ? [...cors.origins, LOCAL_DEV_ORIGIN] : [...cors.origins];
}

/**
 * CORS for browser dashboards. Registered before authentication and rate limiting: its onRequest
 * hook answers a preflight (OPTIONS with Origin and Access-Control-Request-Method) at once, so a
 * preflight needs no credentials and never counts against a limit. A disallowed origin's preflight
 * is answered too, without `Access-Control-Allow-Origin`, so the browser refuses the call and
 * nothing else runs. Any other OPTIONS is no preflight: it is a 404 like any unknown route.
 * Credentials travel in headers (Authorization, X-API-Key), never in cookies, so credentialed CORS
 * stays off.
 */
async function corsPlugin(app: FastifyInstance, opts: { cors: Config['cors'] }) {
  const options = {
    origin: allowedOrigins(opts.cors),
    methods: METHODS,
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  };
  await app.register(fastifyCors, {
    delegator: (request, callback) => {
      const preflight =
        request.method === 'OPTIONS' &&
        request.headers.origin !== undefined &&
        request.headers['access-control-request-method'] !== undefined;
      callback(null, { ...options, preflight });
    },
  });
}

export const cors = fp(corsPlugin, { name: 'cors' });
