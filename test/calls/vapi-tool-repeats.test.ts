import { describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { registryFile } from '../helpers/carrier-factories.js';
import { sendVapi, toolAnswersOf, toolCalls, useVapiStandIn, vapiEnv } from '../helpers/vapi-stand-in.js';
import { placeOfferCall } from './offer-call.js';

type Headers = Record<string, string>;

/**
 * Vapi delivers a `tool-calls` server message at least once: one it found slow comes again with the
 * same toolCallId. A tool that writes is answered once: the repeat gets the first answer, nothing more.
 */
describe('a tool call Vapi delivers again', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registryFile([]) }) });

  const offersOf = async (headers: Headers, loadId: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/offers?load_id=${loadId}`, headers })).json().data;

  const roundsOf = async (t: TestApp, loadId: string) =>
    (
      await t.database.pool.query<{ rounds: number }>('SELECT rounds FROM negotiations WHERE load_id = $1', [
        loadId,
      ])
    ).rows.map((r) => r.rounds);

  it('records a submit_offer delivered twice in a row once, and answers both alike', async () => {
    const { headers, loadId, call } = await placeOfferCall(t, standIn, '+14155550241');
    const message = toolCalls(call, [
      { id: 'call_rpt_1', name: 'submit_offer', args: { offer_amount: 2300 } },
    ]);
    const first = await sendVapi(t, message);
    const again = await sendVapi(t, message);
    expect(first.statusCode, first.body).toBe(200);
    expect(again.body).toBe(first.body);
    expect(toolAnswersOf(first)[0]).toMatchObject({ metadata: { decision: 'counter' } });
    expect(await offersOf(headers, loadId)).toHaveLength(1);
    expect(await roundsOf(t, loadId)).toEqual([1]);
    // A new id is a new offer: the next round. So is an id a model reuses for another rate.
    await sendVapi(
      t,
      toolCalls(call, [{ id: 'call_rpt_2', name: 'submit_offer', args: { offer_amount: 2250 } }]),
    );
    expect(await offersOf(headers, loadId)).toHaveLength(2);
    expect(await roundsOf(t, loadId)).toEqual([2]);
    await sendVapi(
      t,
      toolCalls(call, [{ id: 'call_rpt_2', name: 'submit_offer', args: { offer_amount: 2200 } }]),
    );
    expect(await offersOf(headers, loadId)).toHaveLength(3);
  });

  it('records a submit_offer delivered twice at once once, and answers both alike', async () => {
    const { headers, loadId, call } = await placeOfferCall(t, standIn, '+14155550242');
    const message = toolCalls(call, [
      { id: 'call_rpt_3', name: 'submit_offer', args: { offer_amount: 2300 } },
    ]);
    const [a, b] = await Promise.all([sendVapi(t, message), sendVapi(t, message)]);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.body).toBe(a.body);
    expect(toolAnswersOf(a)[0]).toMatchObject({
      toolCallId: 'call_rpt_3',
      metadata: { decision: 'counter' },
    });
    expect(await offersOf(headers, loadId)).toHaveLength(1);
    expect(await roundsOf(t, loadId)).toEqual([1]);
  });

  it('answers a read-only tool again, and leaves no claim behind a tool that failed', async () => {
    const { call } = await placeOfferCall(t, standIn, '+14155550243');
    const details = toolCalls(call, [{ id: 'call_rpt_4', name: 'get_load_details' }]);
    const [a, b] = [await sendVapi(t, details), await sendVapi(t, details)];
    expect(b.body).toBe(a.body);
    const failing = toolCalls(call, [
      { id: 'call_rpt_5', name: 'submit_offer', args: { offer_amount: 'lots' } },
    ]);
    expect(toolAnswersOf(await sendVapi(t, failing))[0]?.error).toMatch(/^offer_amount must be/);
    const claims = await t.database.pool.query(
      "SELECT message_id FROM inbound_receipts WHERE provider = 'vapi_tool' AND message_id LIKE $1",
      [`%:call_rpt_%`],
    );
    const claimed = claims.rows.map((r) => String(r.message_id).split(':')[1]);
    expect(claimed).not.toContain('call_rpt_5');
    expect(claimed).not.toContain('call_rpt_4');
  });
});
