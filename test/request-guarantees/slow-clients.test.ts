import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { portOf } from '../helpers/listening.js';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
const KEEP_ALIVE_TIMEOUT_MS = 1000;
const MAX_PER_IP = 4;

interface Probe {
  socket: net.Socket;
  received: () => string;
  /** Resolves once the server closed the socket. */
  closed: Promise<void>;
}

function connect(port: number): Promise<Probe> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = net.connect(port, '127.0.0.1');
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('data', (chunk) => {
      data += chunk.toString();
    });
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

/** Writes one byte every `everyMs` until the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs: number) {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(defined(text[i++], 'text[i++]'));
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

describe('slow and greedy clients', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        WORKERS_ENABLED: 'false',
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
        MAX_CONNECTIONS_PER_IP: String(MAX_PER_IP),
      },
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = portOf(t.app.server);
  });
  afterAll(async () => {
    await t.close();
  });

  // Node's server enforces its timeouts on its own timers: what is ours is that the configured
  // values reach it, and that the client is answered in the API's error body.
  it('gives the server the configured header, request and keep-alive timeouts', () => {
    expect(t.app.server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
    expect(t.app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(t.app.server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
  });

  it('closes a client that sends its headers too slowly, with 408', async () => {
    const probes = await Promise.all([1, 2, 3].map(() => connect(port)));
    for (const p of probes) {
      p.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      trickle(p.socket, `X-Slow: ${'a'.repeat(10_000)}`, 100);
    }
    for (const p of probes) {
      await p.closed;
      expect(p.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(p.received()).toContain('"code":"request_timeout"');
    }
  });

  it('closes a client that sends its body too slowly, with 408', async () => {
    const probes = await Promise.all([1, 2, 3].map(() => connect(port)));
    for (const p of probes) {
      p.socket.write(
        'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{',
      );
      trickle(p.socket, `"email":"${'a'.repeat(4990)}`, 100);
    }
    for (const p of probes) {
      await p.closed;
      expect(p.received()).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('closes an idle keep-alive connection, telling the client how long it is kept', async () => {
    const p = await connect(port);
    p.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await p.closed;
    expect(p.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(p.received()).toContain('Connection: keep-alive');
    expect(p.received()).toContain(`Keep-Alive: timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
  });

  it('refuses connections from one address beyond the cap, and takes them again once one closes', async () => {
    const held = await Promise.all(Array.from({ length: MAX_PER_IP }, () => connect(port)));
    const extra = await connect(port);
    await extra.closed;
    expect(extra.received()).toBe('');
    // The held ones still work.
    defined(held[0], 'held[0]').socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await defined(held[0], 'held[0]').closed;
    expect(defined(held[0], 'held[0]').received()).toMatch(/^HTTP\/1\.1 200 /);
    // One closed: a new connection is accepted.
    const again = await connect(port);
    again.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await again.closed;
    expect(again.received()).toMatch(/^HTTP\/1\.1 200 /);
    for (const p of held) p.socket.destroy();
  });
});
