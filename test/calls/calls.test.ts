import { describe, expect, it } from 'vitest';
import { advanceUntil, drainWorker, manualClockOf, type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant, createUser, setStrictMode } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';

const registry = registryFile([]);
/** The instant each app's manual clock starts at; the simulated platform plays a call only as a test moves it. */
const START = new Date('2026-11-17T16:00:00Z');

const getCall = async (t: TestApp, headers: Record<string, string>, id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/calls/${id}`, headers })).json();

const startCall = (t: TestApp, headers: Record<string, string>, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/calls', headers, payload: body });

/** Reads the call, moving the clock a second at a time, until `done` holds. */
const playUntil = (
  t: TestApp,
  headers: Record<string, string>,
  id: string,
  done: (call: Record<string, unknown>) => boolean,
) =>
  advanceUntil(
    t,
    () => getCall(t, headers, id),
    (c) => done(c),
  );

describe('POST /calls on the simulated voice platform', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry }, clock: START });

  it('creates the call PENDING and follows it to COMPLETED with its transcript, offer and outreach', async () => {
    const { user } = await createTenant(t);
    // The carrier is not vetted (not in the registry): strict mode off, so the call takes its offer.
    await setStrictMode(t, user.headers, false);
    const carrier = await createCarrier(t, user.headers, { phone: '+14155550111' });
    const loadId = await createLoad(t, user.headers);
    const res = await startCall(t, user.headers, {
      phone_number: '+14155550111',
      load_id: loadId,
      call_type: 'LOAD_BOOKING',
      template_variables: { simulate_outcome: 'completed' },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      id: expect.stringMatching(/^call_/),
      status: 'PENDING',
      call_direction: 'OUTBOUND',
      to_number: '+14155550111',
      phone_number: '+14155550111',
      call_type: 'LOAD_BOOKING',
      load_id: loadId,
      created_by_id: user.id,
    });
    // The terminal status can arrive before the end-of-call report, as on the real platform.
    const placedAt = t.clock.ms();
    const done = await playUntil(
      t,
      user.headers,
      created.id,
      (c) => c.status === 'COMPLETED' && Array.isArray(c.transcript) && c.transcript.length > 0,
    );
    // The carrier picks up after the call was placed, and the call ends at or before the clock's time.
    expect(Date.parse(done.call_start_time)).toBeGreaterThan(placedAt);
    expect(Date.parse(done.call_start_time)).toBeLessThan(Date.parse(done.call_end_time));
    expect(Date.parse(done.call_end_time)).toBeLessThanOrEqual(t.clock.ms());
    const toolNames = done.transcript.flatMap((m: { tool_calls?: { function: { name: string } }[] | null }) =>
      (m.tool_calls ?? []).map((c) => c.function.name),
    );
    expect(toolNames).toEqual(expect.arrayContaining(['get_load_details']));
    const toolAnswer = done.transcript.find((m: { role: string }) => m.role === 'tool');
    expect(JSON.parse(toolAnswer.content)).toMatchObject({
      load_number: expect.any(String),
      stops: expect.any(Array),
    });
    expect(toolAnswer.content).not.toMatch(/customer_rate|margin|max_buy_rate/);

    const recording = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/calls/${created.id}/recording`,
        headers: user.headers,
      })
    ).json();
    expect(recording).toMatchObject({
      call_id: created.id,
      recording_status: 'available',
      recording_url: expect.any(String),
      content_type: null,
      expires_at: null,
      file_size_bytes: null,
    });
    // The hosted API's names beside Envoy's: the same address, and the call's own times.
    expect(recording.url).toBe(recording.recording_url);
    expect(recording.recording_start_time).toBe(done.call_start_time);
    expect(recording.duration_seconds).toBe(
      (Date.parse(done.call_end_time) - Date.parse(done.call_start_time)) / 1000,
    );

    const calls = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/calls`, headers: user.headers })
    ).json();
    expect(calls.map((c: { id: string }) => c.id)).toEqual([created.id]);
    const tab = (
      await t.app.inject({ method: 'GET', url: '/api/v1/loads?tab=all_calls', headers: user.headers })
    ).json();
    expect(tab.data.map((l: { id: string }) => l.id)).toEqual([loadId]);
    // The carrier's rate became a pending voice offer on the load; the call outreach is done.
    const loadView = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}`, headers: user.headers })
    ).json();
    expect(loadView.offer_count).toBe(1);
    expect(loadView.max_offer_amount).toBeGreaterThan(0);
    const offersTab = (
      await t.app.inject({ method: 'GET', url: '/api/v1/loads?tab=active_offers', headers: user.headers })
    ).json();
    expect(offersTab.data.map((l: { id: string }) => l.id)).toEqual([loadId]);
    const open = (
      await t.app.inject({ method: 'GET', url: '/api/v1/loads?tab=active_outreaches', headers: user.headers })
    ).json();
    expect(open.data).toEqual([]);
    expect(toolNames).toContain('submit_offer');
    expect(carrier.id).toMatch(/^car_/);
  });

  it('stamps stop_contact_requested_at when the carrier asks on the call', async () => {
    const { user } = await createTenant(t);
    const carrier = await createCarrier(t, user.headers, { phone: '+14155550112' });
    const loadId = await createLoad(t, user.headers);
    const res = await startCall(t, user.headers, {
      phone_number: '+14155550112',
      load_id: loadId,
      template_variables: { simulate_outcome: 'completed', simulate_stop_contact: true },
    });
    await playUntil(t, user.headers, res.json().id, (c) => c.status === 'COMPLETED');
    const after = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${carrier.id}`, headers: user.headers })
    ).json();
    expect(after.stop_contact_requested_at).toMatch(/Z$/);
    const again = await startCall(t, user.headers, { phone_number: '+14155550112' });
    expect(again.statusCode).toBe(409);
  });

  it('ends VOICEMAIL, NO_RESPONSE or FAILED as the platform reports, and the outreach follows', async () => {
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, { phone: '+14155550122' });
    const loadId = await createLoad(t, user.headers);
    // How long after placing it the platform ends each: a failed call at 500 ms, an unanswered one
    // at 20 s, a voicemail 8 s after the pick-up (at 0.6-2 s).
    const expected = [
      ['voicemail', 'VOICEMAIL', 8_600, 10_000],
      ['no_answer', 'NO_RESPONSE', 20_000, 20_000],
      ['failed', 'FAILED', 500, 500],
    ] as const;
    for (const [outcome, status, earliest, latest] of expected) {
      const res = await startCall(t, user.headers, {
        phone_number: '+14155550122',
        load_id: loadId,
        template_variables: { simulate_outcome: outcome },
      });
      const placedAt = t.clock.ms();
      const ended = await playUntil(t, user.headers, res.json().id, (c) => c.status === status);
      const after = Date.parse(ended.call_end_time) - placedAt;
      expect(after, outcome).toBeGreaterThanOrEqual(earliest);
      expect(after, outcome).toBeLessThanOrEqual(latest);
    }
    const loadView = (
      await t.app.inject({ method: 'GET', url: '/api/v1/loads?tab=active_outreaches', headers: user.headers })
    ).json();
    expect(loadView.data).toEqual([]);
  });

  it('refuses a number that is not E.164, an unknown load and an unknown call type with 422', async () => {
    const { user } = await createTenant(t);
    for (const [body, param] of [
      [{ phone_number: '(415) 555-2671' }, 'phone_number'],
      [{ phone_number: '+1415' }, 'phone_number'],
      [{ phone_number: '+14155552671', load_id: 'load_nope' }, 'load_id'],
      [{ phone_number: '+14155552671', call_type: 'SALES' }, 'call_type'],
    ] as const) {
      const res = await startCall(t, user.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().error.param).toBe(param);
    }
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/calls', headers: user.headers })).json();
    expect(list.pagination.total_count).toBe(0);
  });

  it('refuses to call a carrier that asked not to be contacted, by any of its numbers', async () => {
    const { user } = await createTenant(t);
    const carrier = await createCarrier(t, user.headers, {
      phone: '+14155550133',
      contacts: [{ contact_type: 'DRIVER', phone: '+14155550134' }],
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier.id}/stop-contact`,
      headers: user.headers,
    });
    for (const phone of ['+14155550133', '+14155550134']) {
      const res = await startCall(t, user.headers, { phone_number: phone });
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'stop_contact_requested', param: 'phone_number' });
    }
  });

  it('lists calls with filters and answers 404 for another organization’s call', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const elp = (
      await startCall(t, a.user.headers, { phone_number: '+14155550144', call_type: 'ELP' })
    ).json();
    const plain = (await startCall(t, a.user.headers, { phone_number: '+14155550145' })).json();
    const list = async (q: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/calls?${q}`, headers: a.user.headers }))
        .json()
        .data.map((c: { id: string }) => c.id);
    expect((await list('call_type=ELP')).sort()).toEqual([elp.id]);
    expect((await list('')).sort()).toEqual([elp.id, plain.id].sort());
    const today = t.clock.now().toISOString().slice(0, 10);
    expect((await list(`start_date=${today}&end_date=${today}`)).length).toBe(2);
    expect(await list('end_date=2020-01-01')).toEqual([]);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/calls?status=RINGING', headers: a.user.headers }))
        .statusCode,
    ).toBe(422);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v1/calls/${plain.id}`, headers: b.user.headers }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/v1/calls/${plain.id}/end`, headers: b.user.headers }))
        .statusCode,
    ).toBe(404);
  });
});

describe('scheduled calls', () => {
  // No loop places scheduled calls here: a test runs the scheduled-calls worker's round.
  const t = useTestApp({
    env: { WORKERS_ENABLED: 'false', COMPLIANCE_REGISTRY_FILE: registry },
    clock: START,
  });

  it('waits SCHEDULED until its time, then is placed and runs its course', async () => {
    const { user } = await createTenant(t);
    const schedule = async (phone: string, inMs: number) => {
      const at = new Date(t.clock.ms() + inMs).toISOString();
      const res = await startCall(t, user.headers, {
        phone_number: phone,
        scheduled_at: at,
        template_variables: { simulate_outcome: 'completed' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ status: 'SCHEDULED', scheduled_at: at });
      return res.json<{ id: string }>().id;
    };
    const dueAt = t.clock.ms() + 3_600_000;
    const due = await schedule('+14155550191', 3_600_000);
    const notYet = await schedule('+14155550194', 7_200_000);
    // A millisecond before its time, the worker's round leaves it SCHEDULED.
    const clock = manualClockOf(t);
    await clock.advanceTo(dueAt - 1);
    await drainWorker(t, 'scheduled-calls');
    expect((await getCall(t, user.headers, due)).status).toBe('SCHEDULED');
    // At its time, the round places it and leaves the other call, whose time has not come, SCHEDULED.
    await clock.advanceTo(dueAt);
    await drainWorker(t, 'scheduled-calls');
    expect((await getCall(t, user.headers, due)).status).toBe('PENDING');
    expect((await getCall(t, user.headers, notYet)).status).toBe('SCHEDULED');
    // The simulated platform then plays the call on the product clock.
    const done = await playUntil(t, user.headers, due, (c) => c.status === 'COMPLETED');
    expect(Date.parse(done.call_start_time)).toBeGreaterThan(dueAt);
  });

  it('refuses a time in the past, and cancels a scheduled call that is ended', async () => {
    const { user } = await createTenant(t);
    const past = await startCall(t, user.headers, {
      phone_number: '+14155550192',
      scheduled_at: '2020-01-01T00:00:00Z',
    });
    expect(past.statusCode).toBe(422);
    expect(past.json().error.param).toBe('scheduled_at');
    const later = (
      await startCall(t, user.headers, {
        phone_number: '+14155550193',
        scheduled_at: new Date(t.clock.ms() + 3_600_000).toISOString(),
      })
    ).json();
    const ended = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${later.id}/end`,
      headers: user.headers,
    });
    expect(ended.json()).toMatchObject({ status: 'CANCELLED', previous_status: 'SCHEDULED' });
  });
});

describe('joining and ending live calls', () => {
  // The clock stands still between the test's moves: a call caught IN_PROGRESS stays so.
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry }, clock: START });

  it('transfers an in-progress call to the caller’s phone and marks it TRANSFERRED', async () => {
    const { orgId } = await createTenant(t);
    const rep = await createUser(t, orgId, 'MEMBER', { phone: '+12125550199' });
    const call = (
      await startCall(t, rep.headers, {
        phone_number: '+14155550155',
        template_variables: { simulate_outcome: 'completed' },
      })
    ).json();
    await playUntil(t, rep.headers, call.id, (c) => c.status === 'IN_PROGRESS');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${call.id}/join`,
      headers: rep.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      message: `Transferring call '${call.id}' to +12125550199`,
      call_id: call.id,
    });
    const after = await getCall(t, rep.headers, call.id);
    expect(after.status).toBe('TRANSFERRED');
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${call.id}/join`,
      headers: rep.headers,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('call_not_in_progress');
  });

  it('uses the API key creator’s phone, and answers 422 when there is none', async () => {
    const { orgId, user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const call = (
      await startCall(t, key.headers, {
        phone_number: '+14155550166',
        template_variables: { simulate_outcome: 'completed' },
      })
    ).json();
    await playUntil(t, user.headers, call.id, (c) => c.status === 'AGENT_ASSIGNED');
    const noPhone = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${call.id}/join`,
      headers: key.headers,
    });
    expect(noPhone.statusCode).toBe(422);
    expect(noPhone.json().error.code).toBe('caller_phone_missing');
    const withPhone = await createUser(t, orgId, 'ADMIN', { phone: '+12125550188' });
    const key2 = await createApiKey(t, withPhone.headers);
    const ok = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${call.id}/join`,
      headers: key2.headers,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().message).toContain('+12125550188');
  });

  it('hangs up: CANCELLED before an answer, COMPLETED during the call, unchanged once ended', async () => {
    const { user } = await createTenant(t);
    const early = (
      await startCall(t, user.headers, {
        phone_number: '+14155550177',
        template_variables: { simulate_outcome: 'completed' },
      })
    ).json();
    const cancelled = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${early.id}/end`,
      headers: user.headers,
    });
    expect(cancelled.json()).toMatchObject({
      status: 'CANCELLED',
      previous_status: 'PENDING',
      success: true,
      message: 'Call ended',
      call_id: early.id,
    });

    const live = (
      await startCall(t, user.headers, {
        phone_number: '+14155550178',
        template_variables: { simulate_outcome: 'completed' },
      })
    ).json();
    await playUntil(t, user.headers, live.id, (c) => c.status === 'IN_PROGRESS');
    const ended = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${live.id}/end`,
      headers: user.headers,
    });
    expect(ended.json()).toMatchObject({ status: 'COMPLETED', previous_status: 'IN_PROGRESS' });
    const repeat = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${live.id}/end`,
      headers: user.headers,
    });
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json()).toMatchObject({
      status: 'COMPLETED',
      previous_status: 'COMPLETED',
      success: true,
      message: 'The call had already ended (COMPLETED)',
      call_id: live.id,
    });
    const join = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${live.id}/join`,
      headers: user.headers,
    });
    expect(join.statusCode).toBe(409);
  });
});
