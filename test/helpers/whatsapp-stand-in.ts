import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll } from 'vitest';
import { agentEnv } from './agent-factories.js';
import type { TestApp } from './app.js';
import { portOf } from './listening.js';

export type GraphBody = {
  to?: string;
  type?: string;
  template?: { components?: unknown };
  text?: { body: string };
};

/**
 * A stand-in for the WhatsApp Cloud API's messages endpoint, listening for the test file: records
 * requests, answers each with a new wamid. `env` points the app at it.
 */
export async function whatsappStandIn() {
  const requests: { url: string; authorization: string; body: GraphBody; id: string }[] = [];
  /** Run on each message before it is answered (what the platform could see then). */
  const hooks: { onMessage: ((body: GraphBody) => Promise<void>) | null } = { onMessage: null };
  const graph = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const id = `wamid.TEST${requests.length}`;
      requests.push({ url: req.url ?? '', authorization: req.headers.authorization ?? '', body, id });
      if (hooks.onMessage) await hooks.onMessage(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          messaging_product: 'whatsapp',
          contacts: [{ input: body.to, wa_id: body.to }],
          messages: [{ id }],
        }),
      );
    });
  });
  await new Promise<void>((r) => graph.listen(0, '127.0.0.1', r));
  afterAll(() => new Promise<void>((r) => graph.close(() => r())));
  const env = {
    ...agentEnv,
    WHATSAPP_PROVIDER: 'cloud_api',
    WHATSAPP_API_BASE_URL: `http://127.0.0.1:${portOf(graph)}/v21.0`,
    WHATSAPP_ACCESS_TOKEN: 'graph-token',
    WHATSAPP_PHONE_NUMBER_ID: '1098765',
    WHATSAPP_APP_SECRET: WHATSAPP_APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: 'verify-me',
  };
  return { requests, env, hooks };
}

export const WHATSAPP_APP_SECRET = 'whatsapp-app-secret';

export const signWhatsApp = (body: string, secret = WHATSAPP_APP_SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** A Cloud API webhook delivery with the given messages or statuses. */
export function whatsappWebhook(value: Record<string, unknown>) {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550001111', phone_number_id: '1098765' },
              ...value,
            },
          },
        ],
      },
    ],
  });
}

/** A carrier's text message answering our message `contextId`, posted signed to the webhook. */
export function postWhatsAppText(t: TestApp, from: string, id: string, text: string, contextId: string) {
  const body = whatsappWebhook({
    contacts: [{ profile: { name: 'Dispatch' }, wa_id: from }],
    messages: [
      {
        from,
        id,
        timestamp: String(Math.floor(Date.now() / 1000)),
        type: 'text',
        text: { body: text },
        context: { from: '15550001111', id: contextId },
      },
    ],
  });
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/integrations/whatsapp/webhook',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsApp(body) },
    payload: body,
  });
}
