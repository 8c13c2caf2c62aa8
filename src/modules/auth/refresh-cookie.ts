import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';

/** The cookie that carries a browser console's refresh token. */
export const REFRESH_COOKIE = 'envoy_refresh';

/**
 * Beside it, a cookie the page may read that holds no secret ("1"): it tells a reloaded console
 * that a refresh cookie exists, so a signed-out browser is not sent on a refresh bound to fail.
 */
export const SESSION_HINT_COOKIE = 'envoy_session';

/**
 * The refresh token of a browser session lives in an HttpOnly cookie the page's scripts cannot
 * read, sent only with the refresh request (its Path), never with a request started by another
 * site (SameSite=Strict), and only over HTTPS when the request came over HTTPS (Secure; plain
 * http://localhost still works in development). It lasts as long as its session.
 */
export function setRefreshCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  token: string,
  maxAgeSeconds: number,
) {
  const secure = request.protocol === 'https';
  reply.setCookie(REFRESH_COOKIE, token, {
    path,
    httpOnly: true,
    sameSite: 'strict',
    secure,
    maxAge: maxAgeSeconds,
  });
  reply.setCookie(SESSION_HINT_COOKIE, '1', { path: '/', sameSite: 'strict', secure, maxAge: maxAgeSeconds });
}

/** Removes the cookie (sign-out, or a refused refresh). */
export function clearRefreshCookie(request: FastifyRequest, reply: FastifyReply, path: string) {
  const secure = request.protocol === 'https';
  reply.clearCookie(REFRESH_COOKIE, { path, httpOnly: true, sameSite: 'strict', secure });
  reply.clearCookie(SESSION_HINT_COOKIE, { path: '/', sameSite: 'strict', secure });
}

const crossSite = (message: string) => new AppError(403, 'cross_site_request', message);

/**
 * A refresh by cookie must come from a page of this very origin: the browser's `Origin` must name
 * this server, and `Sec-Fetch-Site`, when sent, must say same-origin. SameSite=Strict already keeps
 * the cookie off cross-site requests; this refuses them even from a browser that ignores it.
 */
export function requireSameOrigin(request: FastifyRequest) {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === '') {
    throw crossSite('A refresh by cookie needs the Origin header of a page of this server');
  }
  const own = `${request.protocol}://${request.host}`;
  if (origin.toLowerCase() !== own.toLowerCase()) {
    throw crossSite(`Origin '${origin}' may not refresh a session of ${own}`);
  }
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin') {
    throw crossSite('A refresh by cookie must come from a page of this server');
  }
}
