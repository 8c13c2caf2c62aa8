import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';

/** How often Node looks for requests past their header or request timeout (its default is 30 s). */
const TIMEOUT_CHECK_MS = 1000;

/**
 * Fastify's server options for slow clients: the whole request must arrive within the request
 * timeout and its headers within the header timeout (a slow-header or slow-body client is answered
 * 408 and closed), an idle keep-alive connection closes after the keep-alive timeout, and any
 * socket silent for the idle timeout is destroyed.
 */
export function serverTimeouts(http: Config['http']) {
  return {
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionTimeout: http.idleTimeoutMs,
    http: { headersTimeout: http.headersTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
  };
}

/**
 * Closes a new connection at once when its address already holds `max` open ones, so one client
 * cannot take every socket the process may open. Off (0) behind a proxy, where every connection
 * comes from the proxy's address.
 */
export function capConnectionsPerAddress(server: Server, max: number, log: FastifyBaseLogger): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      log.warn({ address, max }, 'connection refused: too many open connections from one address');
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
