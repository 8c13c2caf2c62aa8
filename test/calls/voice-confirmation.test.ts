import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import {
  carrierAfterChecks,
  createCarrier,
  goodStanding,
  registryFile,
} from '../helpers/carrier-factories.js';
import { createTenant, setStrictMode } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import {
  sendVapi,
  toolAnswersOf,
  toolCalls,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';

const registry = registryFile([
  goodStanding('643001', '743001', { liability_usd: 1_000_000 }),
  goodStanding('643002', '743002', { liability_usd: 1_000_000 }),
]);

// On a call as in writing: an amount is read back and confirmed before it books, and the gate
// refuses with the same reasons.
describe('submit_offer: confirmed before it books, through the one gate', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registry }) });

  /** A call to a vetted carrier about a load, in an organization that books at the posted rate. */
  const offerCall = async (phone: string, mc: string) => {
    const { user } = await createTenant(t);
    await setStrictMode(t, user.headers, false);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/agent/settings',
      headers: user.headers,
      payload: { auto_accept_at_or_under_posted_rate: true },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const carrier = await createCarrier(t, user.headers, { phone, mc_number: mc, name: 'Read Back Freight' });
    expect(await carrierAfterChecks(t, user.headers, carrier.id)).toMatchObject({
      compliance_status: 'PASSED',
    });
    const loadId = await createLoad(t, user.headers, { posted_rate: 2000, max_buy_rate: 2400 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers: user.headers,
      payload: { phone_number: phone, load_id: loadId, call_type: 'LOAD_BOOKING' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const call = vapiCall(standIn.lastCall().vapiId, res.json().id);
    return { headers: user.headers, loadId, carrierId: carrier.id, call };
  };
  const offersOf = async (headers: Record<string, string>, loadId: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/offers?load_id=${loadId}`, headers })).json().data;

  it('reads the amount back, and books it only on the carrier’s yes', async () => {
    const { headers, loadId, call } = await offerCall('+14155550251', '643001');
    const quoted = toolAnswersOf(
      await sendVapi(
        t,
        toolCalls(call, [{ id: 'conf_1', name: 'submit_offer', args: { offer_amount: '$1,950' } }]),
      ),
    )[0];
    expect(quoted).toMatchObject({ metadata: { decision: 'confirm', status: 'pending' } });
    expect(quoted?.result).toMatch(/To confirm: load .+ at .+ all in\?/);
    expect(await offersOf(headers, loadId)).toEqual([
      expect.objectContaining({ offer_amount: 1950, status: 'pending', held_for: 'confirmation' }),
    ]);
    const yes = toolAnswersOf(
      await sendVapi(
        t,
        toolCalls(call, [
          { id: 'conf_2', name: 'submit_offer', args: { offer_amount: 1950, confirmed: true } },
        ]),
      ),
    )[0];
    expect(yes).toMatchObject({ metadata: { decision: 'accept', status: 'accepted' } });
    expect(await offersOf(headers, loadId)).toEqual([
      expect.objectContaining({ offer_amount: 1950, status: 'accepted', held_for: null }),
    ]);
  });

  // The same states and reason codes as the e-mail and WhatsApp gate test.
  const REFUSALS = [
    ['stop_contact_requested', sql`stop_contact_requested_at = now()`],
    ['inactive', sql`is_active = false`],
    ['compliance_blocked', sql`compliance_status = 'BLOCKED'`],
    ['risk_high', sql`risk_level = 'high'`],
    ['insurance_expired', sql`insurance_expiration = (envoy_now() - interval '1 day')::date`],
  ] as const;
  for (const [i, [reason, state]] of REFUSALS.entries()) {
    it(`refuses a carrier whose state became ${reason}, with the gate's reason, and records nothing`, async () => {
      const { headers, loadId, carrierId, call } = await offerCall(`+1415555026${i}`, '643002');
      await t.database.db.execute(sql`UPDATE carriers SET ${state} WHERE id = ${carrierId}`);
      const refused = toolAnswersOf(
        await sendVapi(
          t,
          toolCalls(call, [{ id: `gate_${reason}`, name: 'submit_offer', args: { offer_amount: 1900 } }]),
        ),
      )[0];
      expect(refused).toMatchObject({ metadata: { decision: 'not_available', reason } });
      expect(await offersOf(headers, loadId)).toEqual([]);
    });
  }
});
