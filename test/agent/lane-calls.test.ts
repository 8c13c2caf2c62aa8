import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { newId } from '../../src/domain/ids.js';
import { defined } from '../../src/lib/defined.js';
import { outreaches } from '../../src/modules/outreaches/outreaches-tables.js';
import {
  agentEnv,
  agentLoad,
  agentRound,
  CHICAGO_EVENING,
  CHICAGO_MORNING,
  type Headers,
  hoursBegin,
  laneCarrier,
  outreachesOf,
  QUIET_NIGHT,
  tenant,
} from '../helpers/agent-factories.js';
import { useTestApp } from '../helpers/app.js';
import { stopPayload } from '../helpers/load-factories.js';
import {
  endOfCallReport,
  scriptOf,
  sendVapi,
  statusUpdate,
  toolAnswersOf,
  toolCalls,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';

const env = { ...agentEnv, WORKERS_ENABLED: 'false' };
const offerList = z.object({
  data: z.array(z.object({ load_id: z.string(), offer_amount: z.number(), call_id: z.string().nullable() })),
});

// On a manual clock at an evening in Chicago: quiet hours hold there for the test that needs them.
describe('one call offers a carrier the open loads of its lanes', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, env), clock: CHICAGO_EVENING });

  const numberOf = async (h: Headers, id: string) =>
    z
      .object({ load_number: z.string() })
      .parse((await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers: h })).json())
      .load_number;

  it('places one call for a carrier reached only by phone, takes an offer on each load it names, and ends every load’s outreach with the call', async () => {
    const { h } = await tenant(t, { channel_order: ['call'] });
    const carrier = await laneCarrier(t, h, { phone: '+14155550941', email: null });
    const loads = [
      await agentLoad(t, h),
      await agentLoad(t, h, { posted_rate: 2100 }),
      await agentLoad(t, h, { posted_rate: 2200 }),
    ];
    const numbers = await Promise.all(loads.map((id) => numberOf(h, id)));
    const before = standIn.callBodies().length;
    await agentRound(t);

    // One call, carrying the three loads' outreaches.
    expect(standIn.callBodies()).toHaveLength(before + 1);
    const contacts = (await Promise.all(loads.map((id) => outreachesOf(t, h, id)))).flat();
    expect(contacts.map((o) => [o.carrier_id, o.modality])).toEqual(loads.map(() => [carrier, 'call']));
    const callId = defined(contacts[0]?.call_id, 'the call of the first outreach');
    expect(new Set(contacts.map((o) => o.call_id))).toEqual(new Set([callId]));

    // The script names every load; the first message says how many, numbers spoken.
    const { body } = standIn.lastCall();
    const script = scriptOf(body);
    for (const n of numbers) expect(script).toContain(n);
    expect(body.assistant?.firstMessage).toMatch(/^Hi, this is .* I am calling about 3 loads: /);
    for (const rate of ['$2,000', '$2,100', '$2,200']) expect(script).toContain(rate);
    for (const secret of ['2,400', '2400', '2,900', '2900']) expect(script).not.toContain(secret);

    const call = vapiCall(standIn.lastCall().vapiId, callId);
    await sendVapi(t, statusUpdate(call, 'in-progress', Date.now()));
    const ask = async (name: string, args: Record<string, unknown>) => {
      const res = await sendVapi(t, toolCalls(call, [{ id: `tc-${name}`, name, args }]));
      expect(res.statusCode, res.body).toBe(200);
      return defined(toolAnswersOf(res)[0], 'the tool answer');
    };

    // The details list the three loads, with their posted rates and nothing internal.
    const details = await ask('get_load_details', {});
    const listed = z
      .object({ loads: z.array(z.object({ load_number: z.string(), posted_rate: z.number() })) })
      .parse(JSON.parse(defined(details.result, 'details.result')));
    // The call's own load first, then the lane's others (whichever load the wave was planned for).
    const byNumber = (a: [string, number], b: [string, number]) => a[0].localeCompare(b[0]);
    const expected: [string, number][] = [
      [defined(numbers[0], 'numbers[0]'), 2000],
      [defined(numbers[1], 'numbers[1]'), 2100],
      [defined(numbers[2], 'numbers[2]'), 2200],
    ];
    expect(listed.loads.map((l): [string, number] => [l.load_number, l.posted_rate]).sort(byNumber)).toEqual(
      expected.sort(byNumber),
    );
    const order = listed.loads.map((l) => l.load_number);
    const onCall = order.join(', ');
    // Offers go on the two loads the call is not about; its own load gets a question only.
    const [own, other, last] = order.map((n) => defined(n, 'a load number of the call'));
    const idOf = (n: string | undefined) => loads[numbers.indexOf(defined(n, 'n'))];
    expect(details.result).not.toMatch(/max_buy_rate|customer_rate|margin|2400|2900/);
    // One load's details when the number names it.
    const one = await ask('get_load_details', { load_number: numbers[1] });
    expect(JSON.parse(defined(one.result, 'one.result'))).toMatchObject({ load_number: numbers[1] });

    // An offer must say which load; an unknown load is refused, naming the call's loads.
    const unnamed = await ask('submit_offer', { offer_amount: 2100 });
    expect(unnamed.error).toBe(
      `This call offers several loads (${onCall}): give load_number, the load the carrier means`,
    );
    const unknown = await ask('submit_offer', { offer_amount: 2100, load_number: 'NOPE-1' });
    expect(unknown.error).toBe(`Load NOPE-1 is not on this call: it offers ${onCall}`);

    // The second load by its number, the third by its digits alone (as a number is heard).
    const second = await ask('submit_offer', { offer_amount: 2100, load_number: other });
    expect(second.metadata).toMatchObject({ load_number: other });
    const digits = defined(last, 'last').replace(/\D/g, '');
    const third = await ask('submit_offer', { offer_amount: 2150, load_number: digits });
    expect(third.metadata).toMatchObject({ load_number: last });
    const question = await ask('answer_question', { topics: 'weight', load_number: own });
    expect(question.metadata).toMatchObject({ load_number: own });

    const offers = offerList.parse(
      (await t.app.inject({ method: 'GET', url: '/api/v1/offers?page_size=100', headers: h })).json(),
    ).data;
    expect(
      offers
        .map((o) => [o.load_id, o.offer_amount, o.call_id])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual(
      [
        [idOf(other), 2100, callId],
        [idOf(last), 2150, callId],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );

    // The call ends: every load's outreach follows it. An amount the post-call analysis heard names
    // no load, so on this call it is recorded on none.
    await sendVapi(
      t,
      endOfCallReport(call, 'customer-ended-call', { analysis: { structuredData: { offer_amount: 1900 } } }),
    );
    const after = (await Promise.all(loads.map((id) => outreachesOf(t, h, id)))).flat();
    expect(after.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
    const afterReport = offerList.parse(
      (await t.app.inject({ method: 'GET', url: '/api/v1/offers?page_size=100', headers: h })).json(),
    ).data;
    expect(afterReport).toHaveLength(2);
  });

  const toGeorgia = {
    stops: [stopPayload('Pickup'), stopPayload('Dropoff', { city: 'Atlanta', state: 'GA' })],
  };
  const alsoGeorgia = async (h: Headers, carrier: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier}/lane-preferences`,
      headers: h,
      payload: { origin: { state: 'IL' }, destination: { state: 'GA' } },
    });
    expect(res.statusCode, res.body).toBe(201);
  };

  it('offers the loads of both lanes of a carrier on two lanes in one call, each with its lane', async () => {
    const { h } = await tenant(t, { channel_order: ['call'] });
    const carrier = await laneCarrier(t, h, { phone: '+14155550943', email: null });
    await alsoGeorgia(h, carrier);
    const texas = await agentLoad(t, h);
    const georgia = await agentLoad(t, h, { ...toGeorgia, posted_rate: 1800 });
    const before = standIn.callBodies().length;
    await agentRound(t);

    expect(standIn.callBodies()).toHaveLength(before + 1);
    const contacts = [...(await outreachesOf(t, h, texas)), ...(await outreachesOf(t, h, georgia))];
    expect(contacts.map((o) => o.modality)).toEqual(['call', 'call']);
    const callId = defined(contacts[0]?.call_id, 'the call');
    expect(contacts[1]?.call_id).toBe(callId);

    // The first message names both lanes, the first load's first; the script lists the other load
    // with its own lane. Either load may be the call's first.
    const { body } = standIn.lastCall();
    const numbers = { [texas]: await numberOf(h, texas), [georgia]: await numberOf(h, georgia) };
    const callRes = await t.app.inject({ method: 'GET', url: `/api/v1/calls/${callId}`, headers: h });
    const primary = z.object({ load_id: z.string() }).parse(callRes.json()).load_id;
    const lanes = ['Chicago, Illinois to Dallas, Texas', 'Chicago, Illinois to Atlanta, Georgia'];
    expect(body.assistant?.firstMessage).toMatch(/I am calling about 2 loads: /);
    expect(body.assistant?.firstMessage).toContain(
      `, ${(primary === texas ? lanes : lanes.reverse()).join(' and ')}. Do you have a truck?`,
    );
    const [other, lane] =
      primary === texas ? [numbers[georgia], 'Atlanta, GA'] : [numbers[texas], 'Dallas, TX'];
    expect(scriptOf(body)).toContain(`${other}: Chicago, IL to ${lane}, VAN, pickup `);

    // An offer on the Georgia load is taken on that load.
    const georgiaNumber = defined(numbers[georgia], 'the Georgia load number');
    const call = vapiCall(standIn.lastCall().vapiId, callId);
    const res = await sendVapi(
      t,
      toolCalls(call, [
        { id: 'tc1', name: 'submit_offer', args: { offer_amount: 1700, load_number: georgiaNumber } },
      ]),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(toolAnswersOf(res)[0]?.metadata).toMatchObject({ load_number: georgiaNumber });
    const offers = offerList.parse(
      (await t.app.inject({ method: 'GET', url: '/api/v1/offers?page_size=100', headers: h })).json(),
    ).data;
    expect(offers.map((o) => [o.load_id, o.offer_amount, o.call_id])).toEqual([[georgia, 1700, callId]]);
  });

  it('adds a load due while the carrier’s call waits for its hours to that call', async () => {
    const { h } = await tenant(t, {
      channel_order: ['call'],
      quiet_hours_start: QUIET_NIGHT.start,
      quiet_hours_end: QUIET_NIGHT.end,
    });
    const carrier = await laneCarrier(t, h, { phone: '+14155550944', email: null, home_state: 'IL' });
    await alsoGeorgia(h, carrier);
    const texas = await agentLoad(t, h);
    const before = standIn.callBodies().length;
    await agentRound(t);
    const [queued] = await outreachesOf(t, h, texas);
    expect(queued).toMatchObject({
      modality: 'call',
      status: 'pending',
      call_id: null,
      send_after: CHICAGO_MORNING.toISOString(),
    });

    // A load of the carrier's other lane arrives overnight: it joins the queued call.
    const georgia = await agentLoad(t, h, toGeorgia);
    await agentRound(t);
    const [joined] = await outreachesOf(t, h, georgia);
    expect(joined).toMatchObject({ modality: 'call', status: 'pending', send_after: queued?.send_after });
    expect(standIn.callBodies()).toHaveLength(before);

    // The carrier's hours begin: one call carries both loads.
    await hoursBegin(t, h, [carrier]);
    await agentRound(t);
    expect(standIn.callBodies()).toHaveLength(before + 1);
    const placed = [...(await outreachesOf(t, h, texas)), ...(await outreachesOf(t, h, georgia))];
    expect(placed.map((o) => o.status)).toEqual(['active', 'active']);
    expect(new Set(placed.map((o) => o.call_id)).size).toBe(1);
    expect(placed[0]?.call_id).toBeTruthy();
  });

  it('withdraws a load that joined a call already placed, rather than calling again', async () => {
    const { h } = await tenant(t, { channel_order: ['call'] });
    const carrier = await laneCarrier(t, h, { phone: '+14155550945', email: null });
    const texas = await agentLoad(t, h);
    await agentRound(t);
    const [placed] = await outreachesOf(t, h, texas);
    expect(placed?.call_id).toBeTruthy();
    const before = standIn.callBodies().length;
    // A planner that read the call as queued just before the dispatcher took it: its join of
    // another load lands after the call went out.
    const other = await agentLoad(t, h);
    const [primary] = await t.database.db
      .select()
      .from(outreaches)
      .where(and(eq(outreaches.carrier_id, carrier), eq(outreaches.load_id, texas)));
    const row = defined(primary, 'the call outreach');
    await t.database.db.insert(outreaches).values({
      ...row,
      id: newId('outreach'),
      load_id: other,
      bundle_id: row.id,
      status: 'pending',
      call_id: null,
      sent_at: null,
      send_after: sql`envoy_now()`,
      created_at: sql`envoy_now()`,
    });
    await agentRound(t);
    expect(standIn.callBodies()).toHaveLength(before);
    expect((await outreachesOf(t, h, other)).map((o) => [o.status, o.error_reason])).toEqual([
      ['failed', 'cancelled: the contact it joined had gone out'],
    ]);
  });

  it('holds the carrier gap after a call that failed to connect: the next load waits', async () => {
    const { h } = await tenant(t, { channel_order: ['call'], carrier_min_gap_minutes: 30 });
    await laneCarrier(t, h, { phone: '+14155550946', email: null });
    const first = await agentLoad(t, h);
    await agentRound(t);
    const [placed] = await outreachesOf(t, h, first);
    const call = vapiCall(standIn.lastCall().vapiId, defined(placed?.call_id, 'the call'));
    const ended = await sendVapi(t, endOfCallReport(call, 'twilio-failed-to-connect-call'));
    expect(ended.statusCode, ended.body).toBe(200);
    expect((await outreachesOf(t, h, first)).map((o) => o.status)).toEqual(['failed']);
    // Another load of the lane: the number was just dialled, so no second call within the gap.
    const before = standIn.callBodies().length;
    const next = await agentLoad(t, h);
    await agentRound(t);
    expect(await outreachesOf(t, h, next)).toEqual([]);
    expect(standIn.callBodies()).toHaveLength(before);
  });

  it('calls about one load, as before, a carrier whose lane has no other open load', async () => {
    const { h } = await tenant(t, { channel_order: ['call'] });
    await laneCarrier(t, h, { phone: '+14155550942', email: null });
    const loadId = await agentLoad(t, h);
    const number = await numberOf(h, loadId);
    await agentRound(t);
    const [contact] = await outreachesOf(t, h, loadId);
    const callId = defined(contact?.call_id, 'the call');
    const { body } = standIn.lastCall();
    expect(body.assistant?.firstMessage).toMatch(/I am calling about load [^,]+, \w+, \w+ to \w+, \w+\. /);
    expect(scriptOf(body)).toContain(
      'Other loads this call offers (each with its lane, equipment, pickup date and posted rate): none',
    );
    const call = vapiCall(standIn.lastCall().vapiId, callId);
    const res = await sendVapi(
      t,
      toolCalls(call, [{ id: 'tc1', name: 'submit_offer', args: { offer_amount: 1900 } }]),
    );
    expect(toolAnswersOf(res)[0]?.metadata).toMatchObject({ load_number: number });
  });
});
