import type { Vapi } from '@vapi-ai/server-sdk';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { simulatedEmail, type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, goodStanding, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import {
  firstToolAnswer,
  scriptOf,
  sendVapi,
  statusUpdate,
  toolCalls,
  toolNamesOf,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';

type Headers = Record<string, string>;

const registry = registryFile([
  goodStanding('778899', '3344556', { legal_name: 'Prairie Haulers LLC', phone: '(312) 555-0111' }),
  goodStanding('665544', '2233445', {
    legal_name: 'Shady Lines Inc',
    authorized_for_hire: false,
    phone: '312-555-0222',
  }),
  goodStanding('556677', '4455667', {
    legal_name: 'Lakeshore Freight LLC',
    phone: '312-555-0600',
    email: 'dispatch@lakeshore.example',
  }),
]);

let serial = 0;

/** A carrier calling the brokerage's Vapi number: the assistant-request Vapi sends first. */
function incoming(from: string) {
  serial += 1;
  const call = vapiCall(`vapi-in-${serial}`, undefined, {
    type: 'inboundPhoneCall',
    customer: { number: from },
    phoneNumberId: 'pn_envoy',
    monitor: { controlUrl: `https://control.vapi.example/vapi-in-${serial}` },
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
  return firstToolAnswer(res);
}

const get = async (t: TestApp, headers: Headers, url: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers })).json();

describe('inbound carrier calls on Vapi', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registry }) });

  it('answers an unknown MC calling about a posted load, makes the carrier, and takes its offer on that load', async () => {
    const { orgId, user } = await createTenant(t);
    const loadId = await createLoad(t, user.headers, {
      load_number: `IN-${Date.now()}`,
      posted_rate: 2000,
      max_buy_rate: 2600,
      customer_rate: 3300,
    });
    const load = await get(t, user.headers, `/loads/${loadId}`);
    await createLoad(t, user.headers, { posted_rate: 1800 }); // a second load on the same lane

    const { call, message } = incoming('+13125550111');
    const answered = await sendVapi(t, message, { query: `?organization_id=${orgId}` });
    expect(answered.statusCode, answered.body).toBe(200);
    const { assistant } = answered.json<Vapi.ServerMessageResponseAssistantRequest>();
    expect(assistant?.firstMessage).toMatch(/^Thanks for calling Brokerage /);
    expect(toolNamesOf(assistant)).toEqual([
      'find_load',
      'identify_carrier',
      'send_verification_code',
      'verify_code',
      'get_load_details',
      'answer_question',
      'submit_offer',
      'request_stop_contact',
      'transferCall',
      'endCall',
    ]);
    expect(scriptOf({ assistant })).toContain('find_load');
    const callId = z.string().parse(defined(assistant, 'assistant').metadata?.envoy_call_id);
    expect(await get(t, user.headers, `/calls/${callId}`)).toMatchObject({
      call_direction: 'INBOUND',
      call_type: 'LOAD_BOOKING',
      status: 'AGENT_ASSIGNED',
      from_number: '+13125550111',
      phone_number: '+13125550111',
      to_number: '+18005550100',
      load_id: null,
      purpose: 'inbound_sales',
    });
    // Vapi asking again for the same call gets the same call.
    const again = await sendVapi(t, message, { query: `?organization_id=${orgId}` });
    expect(
      again.json<{ assistant: { metadata: { envoy_call_id: string } } }>().assistant.metadata.envoy_call_id,
    ).toBe(callId);

    await sendVapi(t, statusUpdate(call, 'in-progress', Date.now()));
    // By lane: two open loads, so the caller is asked which.
    const byLane = await tool(t, call, 'find_load', { origin_state: 'il', destination_state: 'TX' });
    expect(byLane.result).toMatch(/^Several loads match: /);
    expect(byLane.metadata).toMatchObject({ found: 2 });
    // Before the carrier is known (strict mode), only the lane, dates and equipment are said, and no offer is taken.
    const early = await tool(t, call, 'find_load', { load_number: load.load_number.toLowerCase() });
    expect(JSON.parse(defined(early.result, 'early.result'))).toMatchObject({
      load_number: load.load_number,
      equipment_type: 'VAN',
    });
    expect(early.result).not.toMatch(/2000|3300|2600|rate/);
    const noCarrier = await tool(t, call, 'submit_offer', { offer_amount: 1950 });
    expect(noCarrier.error).toMatch(/identify_carrier/);

    const identified = await tool(t, call, 'identify_carrier', { mc_number: 'MC-0778899' });
    expect(identified).toMatchObject({
      result: 'Thank you, Prairie Haulers LLC is on file.',
      metadata: { available: true, identity_verified: true, carrier_id: expect.stringMatching(/^car_/) },
    });
    // Identified and vetted: the load's details now include its rate.
    const details = await tool(t, call, 'get_load_details');
    expect(JSON.parse(defined(details.result, 'details.result'))).toMatchObject({ posted_rate: 2000 });
    const carrierId = defined(identified.metadata, 'identified.metadata').carrier_id;
    expect(await get(t, user.headers, `/carriers/${carrierId}`)).toMatchObject({
      name: 'Prairie Haulers LLC',
      mc_number: '778899',
      dot_number: null,
      phone: '+13125550111',
      compliance_status: 'PASSED',
    });

    const offer = await tool(t, call, 'submit_offer', { offer_amount: 1950 });
    expect(offer).toMatchObject({
      result: expect.stringContaining('nineteen hundred fifty dollars'),
      metadata: { decision: 'review', status: 'pending' },
    });
    const report = await sendVapi(t, {
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        startedAt: new Date(Date.now() - 60_000).toISOString(),
        endedAt: new Date().toISOString(),
        call,
        analysis: { summary: 'Inbound carrier offered 1950.' },
        artifact: { messages: [] },
      },
    } satisfies Vapi.ServerMessage);
    expect(report.statusCode).toBe(200);

    expect(await get(t, user.headers, `/calls/${callId}`)).toMatchObject({
      status: 'COMPLETED',
      call_direction: 'INBOUND',
      load_id: loadId,
      load_number: load.load_number,
    });
    const offers = await get(t, user.headers, `/offers?load_id=${loadId}`);
    expect(offers.data).toEqual([
      expect.objectContaining({
        offer_amount: 1950,
        status: 'pending',
        channel: 'voice',
        carrier_id: carrierId,
        call_id: callId,
      }),
    ]);
    const outreaches = await get(t, user.headers, `/outreaches?load_id=${loadId}`);
    expect(outreaches.data).toEqual([
      expect.objectContaining({
        carrier_id: carrierId,
        modality: 'call',
        direction: 'inbound',
        status: 'completed',
        call_id: callId,
        carrier_engaged: true,
      }),
    ]);
  });

  it('does not offer the load to a carrier the guard refuses (BLOCKED, stop contact), and records nothing for it', async () => {
    const { orgId, user } = await createTenant(t);
    const loadId = await createLoad(t, user.headers, { load_number: `BL-${Date.now()}`, posted_rate: 2000 });
    const load = await get(t, user.headers, `/loads/${loadId}`);

    // An unknown MC the registry says is not authorized for hire: made, BLOCKED, told no.
    const blocked = incoming('+13125550222');
    await sendVapi(t, blocked.message, { query: `?organization_id=${orgId}` });
    const found = await tool(t, blocked.call, 'find_load', { load_number: load.load_number });
    expect(found.metadata).toMatchObject({ found: 1, load_id: loadId });
    const who = await tool(t, blocked.call, 'identify_carrier', { mc_number: '665544' });
    expect(who).toMatchObject({
      result: 'I am sorry, this load is not available for you. Thank you for calling.',
      metadata: { available: false },
    });
    const shady = await get(t, user.headers, `/carriers/${defined(who.metadata, 'who.metadata').carrier_id}`);
    expect(shady).toMatchObject({ name: 'Shady Lines Inc', compliance_status: 'BLOCKED' });
    const tried = await tool(t, blocked.call, 'submit_offer', { offer_amount: 1500 });
    expect(tried).toMatchObject({
      result: expect.stringMatching(/not available/),
      metadata: { decision: 'not_available' },
    });

    // A known carrier that asked not to be contacted, calling itself.
    const stopped = await createCarrier(t, user.headers, { mc_number: '445566', phone: '+13125550333' });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${stopped.id}/stop-contact`,
      headers: user.headers,
    });
    const caller = incoming('+13125550333');
    await sendVapi(t, caller.message, { query: `?organization_id=${orgId}` });
    const identified = await tool(t, caller.call, 'identify_carrier', { mc_number: '445566' });
    expect(identified).toMatchObject({ metadata: { available: false, carrier_id: stopped.id } });
    const thenLoad = await tool(t, caller.call, 'find_load', { load_number: load.load_number });
    expect(thenLoad.result).toMatch(/not available/);

    expect((await get(t, user.headers, `/offers?load_id=${loadId}`)).data).toEqual([]);
    expect((await get(t, user.headers, `/outreaches?load_id=${loadId}`)).data).toEqual([]);
  });

  it('turns away a call to a number of no organization', async () => {
    const { message } = incoming('+13125550444');
    const none = await sendVapi(t, message);
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ error: 'Sorry, this number is not taking calls right now.' });
    const unknown = await sendVapi(t, incoming('+13125550445').message, {
      query: '?organization_id=org_nope',
    });
    expect(unknown.json()).toEqual({ error: 'Sorry, this number is not taking calls right now.' });
  });
});

describe("an inbound caller's identity", () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registry }) });
  const mail = () => simulatedEmail(t);
  const lastCode = () =>
    defined(
      defined(
        /code for your call with us is (\d{6})/.exec(defined(mail().sent.at(-1), 'mail().sent.at(-1)').text),
        '/code for your call with us is (\\d{6})/.exec(mail().sent.at(-1).text)',
      )[1],
      '/code for your call with us is (\\d{6})/.exec(mail().sent.at(-1).text)[1]',
    );

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
    expect(JSON.parse(defined(details.result, 'details.result'))).not.toHaveProperty('posted_rate');
    // Verifying without a code sent first.
    expect((await tool(t, impostor, 'verify_code', { code: '123456' })).metadata).toMatchObject({
      reason: 'none',
    });

    // The code goes to the census e-mail, never to the caller.
    const sent = await tool(t, impostor, 'send_verification_code');
    expect(sent.metadata).toMatchObject({ sent: true, sent_to: 'd***@lakeshore.example' });
    expect(defined(mail().sent.at(-1), 'mail().sent.at(-1)').to).toBe('dispatch@lakeshore.example');
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

  it('keeps an unvetted carrier’s quote held for vetting (strict mode), and says no rate, though its number is on file', async () => {
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
    expect(
      JSON.parse(
        defined(
          (await tool(t, call, 'get_load_details')).result,
          "(await tool(t, call, 'get_load_details')).result",
        ),
      ),
    ).not.toHaveProperty('posted_rate');
    expect((await get(t, user.headers, `/offers?load_id=${loadId}`)).data).toEqual([
      expect.objectContaining({ offer_amount: 1800, status: 'pending', held_for: 'vetting' }),
    ]);
  });
});
