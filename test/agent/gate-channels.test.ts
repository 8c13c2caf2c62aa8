import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  agentEnv,
  agentLoad,
  externalIdOf,
  laneCarrier,
  messagesOf,
  nextEmail,
  reply,
  sentContact,
  tenant,
} from '../helpers/agent-factories.js';
import { useTestApp } from '../helpers/app.js';
import { postWhatsAppText, whatsappStandIn } from '../helpers/whatsapp-stand-in.js';

const { env: whatsappEnv } = await whatsappStandIn();

/** A carrier's state after its first contact, and the reason code the gate gives for it. */
const REFUSALS = [
  ['stop_contact_requested', sql`stop_contact_requested_at = now()`],
  ['inactive', sql`is_active = false`],
  ['compliance_blocked', sql`compliance_status = 'BLOCKED'`],
  ['risk_high', sql`risk_level = 'high'`],
  ['insurance_expired', sql`insurance_expiration = (envoy_now() - interval '1 day')::date`],
] as const;

// One gate for every channel: the same carriers refused for the same reasons, nothing recorded.
describe('the offer gate on e-mail and WhatsApp', () => {
  const t = useTestApp({ env: { ...agentEnv, ...whatsappEnv } });

  for (const [reason, state] of REFUSALS) {
    it(`refuses a quote from a carrier whose state became ${reason}, on both channels, silently`, async () => {
      const email = nextEmail();
      const e = await tenant(t, { channel_order: ['email'] });
      const byEmail = await laneCarrier(t, e.h, { email });
      const emailLoad = await agentLoad(t, e.h);
      const mailed = await sentContact(t, e.h, emailLoad);

      const phone = `14155550${reason.length + 120}`;
      const w = await tenant(t, { channel_order: ['whatsapp'] });
      const byPhone = await laneCarrier(t, w.h, { email: null, phone: `+${phone}` });
      const phoneLoad = await agentLoad(t, w.h);
      const texted = await sentContact(t, w.h, phoneLoad);
      const opening = { id: await externalIdOf(t, defined(texted, 'the WhatsApp contact').id) };

      for (const id of [byEmail, byPhone])
        await t.database.db.execute(sql`UPDATE carriers SET ${state} WHERE id = ${id}`);
      const viaEmail = await reply(t, defined(mailed, 'the e-mail contact'), email, 'We can do 1,900 all in');
      const viaWhatsApp = await postWhatsAppText(t, phone, `wamid.gate-${reason}`, '1900 all in', opening.id);
      expect(viaEmail.json(), viaEmail.body).toMatchObject({ status: 'recorded', offer_id: null, reason });
      expect(viaWhatsApp.json().results).toEqual([
        expect.objectContaining({ status: 'recorded', offer_id: null, reason }),
      ]);
      for (const [h, loadId, o] of [
        [e.h, emailLoad, mailed],
        [w.h, phoneLoad, texted],
      ] as const) {
        const offers = (
          await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })
        ).json();
        expect(offers.data).toEqual([]);
        // Kept on the conversation, and not answered.
        const messages = await messagesOf(t, h, defined(o, 'contact').id);
        expect(messages.map((m) => m.direction)).toEqual(['outbound', 'inbound']);
      }
    });
  }
});
