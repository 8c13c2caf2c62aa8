import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  agentEnv,
  agentLoad,
  externalIdOf,
  inbound,
  laneCarrier,
  messagesOf,
  nextEmail,
  sentContact,
  tenant,
} from '../helpers/agent-factories.js';
import { useTestApp } from '../helpers/app.js';
import { postmarkInbound } from '../helpers/postmark-payloads.js';
import { signWhatsApp, whatsappStandIn, whatsappWebhook } from '../helpers/whatsapp-stand-in.js';

const { env: whatsappEnv } = await whatsappStandIn();

// Providers deliver at least once: a repeat, in a row or at the same time, is the same turn.
describe('a carrier message delivered more than once', () => {
  const t = useTestApp({ env: { ...agentEnv, ...whatsappEnv } });

  /** What one carrier's turn left: inbound messages, offers, answers and negotiation rounds. */
  const traces = async (h: Record<string, string>, outreachId: string, loadId: string) => {
    const messages = await messagesOf(t, h, outreachId);
    const offers = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })
    ).json().data;
    const rounds = await t.database.db.execute<{ rounds: number }>(
      sql`SELECT rounds FROM negotiations WHERE load_id = ${loadId}`,
    );
    return {
      inbound: messages.filter((m) => m.direction === 'inbound').length,
      answers: messages.filter((m) => m.direction === 'outbound').length - 1,
      offers: offers.length,
      rounds: rounds.rows.map((r) => r.rounds),
    };
  };

  for (const how of ['in a row', 'concurrently'] as const) {
    it(`answers a Postmark inbound reply delivered twice ${how} once, with the same outcome`, async () => {
      const { h } = await tenant(t, { channel_order: ['email'] });
      const email = nextEmail();
      await laneCarrier(t, h, { email });
      const loadId = await agentLoad(t, h);
      const o = await sentContact(t, h, loadId);
      const outreach = defined(o, 'the contact');
      const to = `reply+${outreach.conversation_id}@reply.envoy.local`;
      const payload = postmarkInbound(
        email,
        to,
        outreach.conversation_id ?? '',
        'We can do it for 2,300 all in',
        {
          MessageID: `pm-${how}-${loadId}`,
        },
      );
      const [first, second] =
        how === 'in a row'
          ? [await inbound(t, payload), await inbound(t, payload)]
          : await Promise.all([inbound(t, payload), inbound(t, payload)]);
      expect(first?.statusCode, first?.body).toBe(200);
      expect(second?.statusCode, second?.body).toBe(200);
      expect(first?.json()).toMatchObject({
        status: 'replied',
        reason: 'counter',
        offer_id: expect.any(String),
      });
      expect(second?.json()).toEqual(first?.json());
      expect(await traces(h, outreach.id, loadId)).toEqual({
        inbound: 1,
        answers: 1,
        offers: 1,
        rounds: [1],
      });
    });

    it(`answers a WhatsApp Cloud API text delivered twice ${how} once; its status updates change nothing`, async () => {
      const { h } = await tenant(t, { channel_order: ['whatsapp'] });
      const phone = how === 'in a row' ? '14155550141' : '14155550142';
      await laneCarrier(t, h, { email: null, phone: `+${phone}` });
      const loadId = await agentLoad(t, h);
      const o = await sentContact(t, h, loadId);
      const outreach = defined(o, 'the contact');
      // The opening template's id, as the Cloud API answered it.
      const opening = { id: await externalIdOf(t, outreach.id) };
      const body = whatsappWebhook({
        contacts: [{ profile: { name: 'Dispatch' }, wa_id: phone }],
        messages: [
          {
            from: phone,
            id: `wamid.${how.replace(' ', '')}${loadId}`,
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'text',
            text: { body: '2300 all in' },
            context: { from: '15550001111', id: opening.id },
          },
        ],
      });
      const post = (payload: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/integrations/whatsapp/webhook',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsApp(payload) },
          payload,
        });
      const [first, second] =
        how === 'in a row'
          ? [await post(body), await post(body)]
          : await Promise.all([post(body), post(body)]);
      expect(first?.statusCode, first?.body).toBe(200);
      expect(second?.json()).toEqual(first?.json());
      expect(first?.json().results).toEqual([
        expect.objectContaining({ status: 'replied', reason: 'counter', offer_id: expect.any(String) }),
      ]);
      // The delivered and read statuses of our answer, delivered twice too.
      const statuses = whatsappWebhook({
        statuses: ['delivered', 'read'].map((status) => ({
          id: opening.id,
          status,
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: phone,
        })),
      });
      expect((await post(statuses)).statusCode).toBe(200);
      expect((await post(statuses)).statusCode).toBe(200);
      expect(await traces(h, outreach.id, loadId)).toEqual({
        inbound: 1,
        answers: 1,
        offers: 1,
        rounds: [1],
      });
    });
  }
});
