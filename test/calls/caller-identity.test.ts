import type { Vapi } from '@vapi-ai/server-sdk';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { SimulatedEmailSender } from '../../src/integrations/email/simulated-email-sender.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, goodStanding, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import {
  sendVapi,
  type ToolAnswer,
  toolCalls,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';

type Headers = Record<string, string>;

const registry = registryFile([
  goodStanding('556677', '4455667', {
    legal_name: 'Lakeshore Freight LLC',
    phone: '312-555-0600',
    email: 'dispatch@lakeshore.example',
  }),
]);

let serial = 0;
function incoming(from: string) {
  serial += 1;
  const call = vapiCall(`vapi-id-${serial}`, undefined, {
    type: 'inboundPhoneCall',
    customer: { number: from },
    phoneNumberId: 'pn_envoy',
    monitor: { controlUrl: `https://control.vapi.example/vapi-id-${serial}` },
  });
  const message = {
    message: {
      type: 'assistant-request',
      timestamp: Date.now(),
      call,
      customer: { number: from },
      phoneNumber: { provider: 'twilio', number: '+18005550100', twilioAccountSid: 'AC123' },
    },
  } satisfies Vapi.ServerMessage;
  return { call, message };
}

async function tool(t: TestApp, call: Vapi.Call, name: string, args: Record<string, unknown> = {}) {
  const res = await sendVapi(t, toolCalls(call, [{ id: `tc-${name}-${Math.random()}`, name, args }]));
  expect(res.statusCode, res.body).toBe(200);
  return ((res.json() as Vapi.ServerMessageResponseToolCalls).results as ToolAnswer[])[0]!;
}

const get = async (t: TestApp, headers: Headers, url: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers })).json();

describe("an inbound caller's identity", () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registry }) });
  const mail = () => t.services.channels.email as SimulatedEmailSender;
  const lastCode = () => /code for your call with us is (\d{6})/.exec(mail().sent.at(-1)!.text)![1]!;

  async function callAbout(orgId: string, from: string, loadNumber: string) {
    const { call, message } = incoming(from);
    const answered = await sendVapi(t, message, { query: `?organization_id=${orgId}` });
    expect(answered.statusCode, answered.body).toBe(200);
    await tool(t, call, 'find_load', { load_number: loadNumber });
    return call;
  }

  it('links a caller whose number is on file; another number is not linked until it reads the right code', async () => {
    const { orgId, user } = await createTenant(t);
    const loadId = await createLoad(t, user.headers, { load_number: `ID-${Date.now()}`, posted_rate: 2000 });
    const load = await get(t, user.headers, `/loads/${loadId}`);
    const known = await createCarrier(t, user.headers, { mc_number: '556677', phone: '+13125550700' });
    expect(known.compliance_status).toBe('PASSED');

    // Its own dispatcher line (a phone on file): linked at once.
    const own = await callAbout(orgId, '+13125550700', load.load_number);
    expect(await tool(t, own, 'identify_carrier', { mc_number: '556677' })).toMatchObject({
      metadata: { carrier_id: known.id, identity_verified: true, available: true },
    });

    // Someone else naming the same MC from another number.
    const impostor = await callAbout(orgId, '+13125559999', load.load_number);
    const said = await tool(t, impostor, 'identify_carrier', { mc_number: 'MC 556677' });
    expect(said.result).toMatch(/^The number you are calling from is not on file for /);
    expect(said.metadata).toMatchObject({ carrier_id: null, identity_verified: false });
    const offer = await tool(t, impostor, 'submit_offer', { offer_amount: 1500 });
    expect(offer.error).toMatch(/identify_carrier/);
    const details = await tool(t, impostor, 'get_load_details');
    expect(JSON.parse(details.result!)).not.toHaveProperty('posted_rate');
    // Verifying without a code sent first.
    expect((await tool(t, impostor, 'verify_code', { code: '123456' })).metadata).toMatchObject({
      reason: 'none',
    });

    // The code goes to the census e-mail, never to the caller.
    const sent = await tool(t, impostor, 'send_verification_code');
    expect(sent.metadata).toMatchObject({ sent: true, sent_to: 'd***@lakeshore.example' });
    expect(mail().sent.at(-1)!.to).toBe('dispatch@lakeshore.example');
    const code = lastCode();
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await tool(t, impostor, 'verify_code', { code: wrong })).metadata).toMatchObject({
      identity_verified: false,
      reason: 'wrong',
    });
    await tool(t, impostor, 'verify_code', { code: wrong });
    expect((await tool(t, impostor, 'verify_code', { code: wrong })).metadata).toMatchObject({
      reason: 'too_many_attempts',
    });
    // Three wrong codes: even the right one no longer works.
    expect((await tool(t, impostor, 'verify_code', { code })).metadata).toMatchObject({
      identity_verified: false,
      reason: 'too_many_attempts',
    });

    // A new code that expires before it is read.
    await tool(t, impostor, 'send_verification_code');
    const late = lastCode();
    await t.database.db.execute(
      sql`UPDATE caller_verifications SET expires_at = now() - interval '1 second' WHERE code_hash IS NOT NULL AND verified_at IS NULL`,
    );
    expect((await tool(t, impostor, 'verify_code', { code: late })).metadata).toMatchObject({
      identity_verified: false,
      reason: 'expired',
    });
    expect((await get(t, user.headers, `/offers?load_id=${loadId}`)).data).toEqual([]);

    // The right code, in time: linked, and its offer is taken.
    await tool(t, impostor, 'send_verification_code');
    const linked = await tool(t, impostor, 'verify_code', { code: lastCode() });
    expect(linked.metadata).toMatchObject({ carrier_id: known.id, identity_verified: true, available: true });
    const taken = await tool(t, impostor, 'submit_offer', { offer_amount: 1950 });
    expect(taken.metadata).toMatchObject({ offer_id: expect.any(String) });
    expect((await get(t, user.headers, `/offers?load_id=${loadId}`)).data).toHaveLength(1);
  });

  it('takes no offer from a carrier not vetted yet (strict mode), though its number is on file', async () => {
    const { orgId, user } = await createTenant(t);
    const loadId = await createLoad(t, user.headers, { load_number: `SM-${Date.now()}`, posted_rate: 2000 });
    const load = await get(t, user.headers, `/loads/${loadId}`);
    // Not in the registry: UNVERIFIED; its own phone is on file.
    const unvetted = await createCarrier(t, user.headers, { mc_number: '909090', phone: '+13125550808' });
    expect(unvetted.compliance_status).toBe('UNVERIFIED');
    const call = await callAbout(orgId, '+13125550808', load.load_number);
    expect((await tool(t, call, 'identify_carrier', { mc_number: '909090' })).metadata).toMatchObject({
      carrier_id: unvetted.id,
      identity_verified: true,
    });
    const offer = await tool(t, call, 'submit_offer', { offer_amount: 1800 });
    expect(offer.metadata).toMatchObject({ decision: 'vetting_pending' });
    expect(JSON.parse((await tool(t, call, 'get_load_details')).result!)).not.toHaveProperty('posted_rate');
    expect((await get(t, user.headers, `/offers?load_id=${loadId}`)).data).toEqual([]);
  });
});
