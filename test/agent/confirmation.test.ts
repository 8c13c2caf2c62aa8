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
import { carrierAfterChecks, goodStanding, registryFile } from '../helpers/carrier-factories.js';
import { postWhatsAppText, whatsappStandIn } from '../helpers/whatsapp-stand-in.js';

const { requests: graphRequests, env: whatsappEnv } = await whatsappStandIn();
// Carriers in good standing: automatic booking is for carriers that passed vetting.
const MCS = ['642001', '642002', '642003'];
const registry = registryFile(
  MCS.map((mc) => goodStanding(mc, `7${mc.slice(1)}`, { liability_usd: 1_000_000 })),
);
const booking = { auto_accept_at_or_under_posted_rate: true };

// Nothing books on an amount the carrier has not confirmed; nothing uncertain is countered.
describe('confirmed before it books', () => {
  const t = useTestApp({ env: { ...agentEnv, ...whatsappEnv, COMPLIANCE_REGISTRY_FILE: registry } });
  /** A carrier on the lane that passed vetting. */
  const vetted = async (h: Record<string, string>, mc: string, contact: Record<string, unknown>) => {
    const id = await laneCarrier(t, h, { mc_number: mc, ...contact });
    expect(await carrierAfterChecks(t, h, id)).toMatchObject({ compliance_status: 'PASSED' });
    return id;
  };
  const offersOf = async (h: Record<string, string>, loadId: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })).json().data;

  it('e-mail: a range is asked to be confirmed, never recorded nor countered; the yes books it', async () => {
    const { h } = await tenant(t, { channel_order: ['email'], ...booking });
    const email = nextEmail();
    await vetted(h, '642001', { email });
    const loadId = await agentLoad(t, h);
    const o = await sentContact(t, h, loadId);
    const contact = defined(o, 'the contact');
    const range = await reply(t, contact, email, 'probably 1900-2000 depending on the appointment time');
    expect(range.json()).toMatchObject({ status: 'replied', offer_id: null, reason: 'confirm' });
    expect(await offersOf(h, loadId)).toEqual([]);
    const asked = defined((await messagesOf(t, h, contact.id)).at(-1), 'the question');
    expect(asked).toMatchObject({ direction: 'outbound', intent: 'confirm' });
    expect(asked.body).toMatch(/To confirm: load \S+ at \$1,900 all in\?/);
    const yes = await reply(t, contact, email, 'Yes, 1900 works');
    expect(yes.json()).toMatchObject({ status: 'replied', offer_id: expect.any(String), reason: 'accept' });
    expect(await offersOf(h, loadId)).toEqual([
      expect.objectContaining({ offer_amount: 1900, status: 'accepted' }),
    ]);
  });

  it('e-mail: an uncertain amount over the ask is asked to be confirmed, not countered', async () => {
    const { h } = await tenant(t, { channel_order: ['email'], ...booking });
    const email = nextEmail();
    await vetted(h, '642002', { email });
    const loadId = await agentLoad(t, h);
    const o = await sentContact(t, h, loadId);
    const res = await reply(
      t,
      defined(o, 'the contact'),
      email,
      'around 2,600 or so, let me check with my driver',
    );
    expect(res.json()).toMatchObject({ offer_id: null, reason: 'confirm' });
    const asked = defined((await messagesOf(t, h, defined(o, 'the contact').id)).at(-1), 'the question');
    expect(asked.body).not.toMatch(/We can do/);
    expect(await offersOf(h, loadId)).toEqual([]);
  });

  it('WhatsApp: a firm quote at the posted rate is confirmed first, in Spanish when the carrier writes Spanish', async () => {
    const { h } = await tenant(t, { channel_order: ['whatsapp'], ...booking });
    const phone = '14155550171';
    await vetted(h, '642003', { email: null, phone: `+${phone}` });
    const loadId = await agentLoad(t, h);
    const texted = await sentContact(t, h, loadId);
    const opening = { id: await externalIdOf(t, defined(texted, 'the WhatsApp contact').id) };
    const quote = await postWhatsAppText(
      t,
      phone,
      'wamid.CONF1',
      'Hola, tenemos camión. 1,950 todo incluido',
      opening.id,
    );
    expect(quote.json().results).toEqual([expect.objectContaining({ reason: 'confirm' })]);
    expect(await offersOf(h, loadId)).toEqual([
      expect.objectContaining({ offer_amount: 1950, status: 'pending', held_for: 'confirmation' }),
    ]);
    const asked = defined(
      graphRequests.findLast((r) => r.body.to === phone),
      'the question',
    );
    expect(asked.body.text?.body).toMatch(/Para confirmar: ¿carga \S+ a \$1,950 todo incluido\?/);
    const yes = await postWhatsAppText(t, phone, 'wamid.CONF2', 'sí, confirmado', asked.id ?? opening.id);
    expect(yes.json().results).toEqual([expect.objectContaining({ reason: 'accept' })]);
    expect(await offersOf(h, loadId)).toEqual([
      expect.objectContaining({ offer_amount: 1950, status: 'accepted' }),
    ]);
  });
});
