import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { portOf } from './listening.js';

export interface Received {
  headers: Record<string, string>;
  body: string;
  json: {
    id: string;
    type: string;
    created_at: string;
    organization_id: string;
    data: Record<string, unknown>;
  };
  at: number;
}

/**
 * A local HTTP server standing in for an integration's webhook receiver. `respond` decides each
 * answer (default 200); every request is kept in `received`.
 */
export async function startReceiver(
  respond: (req: Received, res: ServerResponse, index: number) => void | Promise<void> = (_r, res) => {
    res.writeHead(200).end('ok');
  },
) {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
      );
      const entry: Received = { headers, body, json: JSON.parse(body), at: Date.now() };
      received.push(entry);
      void respond(entry, res, received.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = portOf(server);
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Registers a webhook endpoint at `url` for `eventTypes` in the organization of `headers`: its body. */
export async function subscribeEndpoint(
  t: TestApp,
  headers: Record<string, string>,
  url: string,
  eventTypes: string[],
) {
  const ep = await t.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/endpoints',
    headers,
    payload: { url, event_types: eventTypes },
  });
  expect(ep.statusCode, ep.body).toBe(201);
  return ep.json();
}
