import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** One year, the value browsers' preload lists expect. */
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * Response headers for an API: nothing of ours is meant to be framed, sniffed or run as a page
 * (`Content-Security-Policy: default-src 'none'`); the interactive reference under /docs sends a
 * policy of its own that lets its scripts and styles load. Every API answer may carry credentials
 * or personal data, so none is stored by a cache unless its route said otherwise. HSTS is sent
 * only on requests that arrived over HTTPS: directly, or at a proxy we trust (TRUST_PROXY) that
 * says so in X-Forwarded-Proto.
 */
async function securityHeadersPlugin(app: FastifyInstance) {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] },
    },
    frameguard: { action: 'deny' },
    // Sent below, only when the request came over HTTPS.
    hsts: false,
    // A cross-origin dashboard reads the API with CORS; the resource policy must not block it.
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
    if (!reply.hasHeader('cache-control') && !request.url.startsWith('/docs')) {
      reply.header('cache-control', 'no-store');
    }
    return payload;
  });
}

export const securityHeaders = fp(securityHeadersPlugin, { name: 'security-headers' });
