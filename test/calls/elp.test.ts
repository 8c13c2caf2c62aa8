import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { objectOf, objectsOf } from '../../src/lib/json-object.js';
import { elpAnswers } from '../../src/modules/calls/elp-tables.js';
import { advanceUntil, manualClockOf, type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';

const registry = registryFile([]);
/** The instant each app's manual clock starts at; the simulated platform plays a call only as a test moves it. */
const START = new Date('2026-11-17T16:00:00Z');

const elpTest = async (t: TestApp, headers: Record<string, string>, id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/elp/tests/${id}`, headers })).json();

/** Reads the ELP test, moving the clock a second at a time (the simulated platform plays the call on it), until `done` holds. */
const playUntil = (
  t: TestApp,
  headers: Record<string, string>,
  id: string,
  done: (x: Record<string, unknown>) => boolean,
) =>
  advanceUntil(
    t,
    () => elpTest(t, headers, id),
    (x) => done(x),
  );

function expectConsistentScores(test: Record<string, number | null>) {
  const competencies = [
    'conversational_communication',
    'instruction_comprehension',
    'sign_recognition',
    'verbal_reporting',
  ];
  for (const c of competencies) {
    expect(test[c]).toBeGreaterThanOrEqual(0);
    expect(test[c]).toBeLessThanOrEqual(10);
  }
  expect(test.total_score).toBe(competencies.reduce((sum, c) => sum + (test[c] ?? 0), 0));
  expect(defined(test.valid_answers, 'test.valid_answers')).toBeLessThanOrEqual(
    defined(test.questions_answered, 'test.questions_answered'),
  );
  expect(defined(test.questions_answered, 'test.questions_answered')).toBeLessThanOrEqual(
    defined(test.total_questions, 'test.total_questions'),
  );
  expect(test.total_questions).toBe(10);
}

describe('an ELP test started through POST /elp/tests', () => {
  // The clock stands still: the call is hung up before the simulated driver could pick up.
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry }, clock: START });

  it('starts REQUESTED with its ELP call; hung up before the driver answers, it ends FAILED, unscored', async () => {
    const { user } = await createTenant(t);
    const carrier = await createCarrier(t, user.headers, { name: 'Prairie Wind', mc_number: '333111' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/elp/tests',
      headers: user.headers,
      payload: { phone_number: '+13125550100', driver_name: 'Jo Driver', carrier_id: carrier.id },
    });
    expect(res.statusCode).toBe(201);
    const started = res.json();
    expect(started).toMatchObject({
      id: expect.stringMatching(/^elp_/),
      status: 'REQUESTED',
      scoring_status: 'PENDING',
      phone_number: '+13125550100',
      driver_name: 'Jo Driver',
      carrier_id: carrier.id,
      carrier_name: 'Prairie Wind',
      mc_number: '333111',
      total_score: null,
      call: { id: expect.stringMatching(/^call_/), status: 'PENDING', transcript: [] },
    });
    const hungUp = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${started.call_id}/end`,
      headers: user.headers,
    });
    expect(hungUp.statusCode, hungUp.body).toBe(200);
    expect(hungUp.json()).toMatchObject({ status: 'CANCELLED', previous_status: 'PENDING' });
    expect(await elpTest(t, user.headers, started.id)).toMatchObject({
      status: 'FAILED',
      scoring_status: 'FAILED',
      questions_answered: 0,
      total_score: null,
      call: { status: 'CANCELLED' },
    });
  });
});

describe('ELP tests', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry }, clock: START });

  it('scores a test that ran to its end from the answers the agent recorded', async () => {
    const { user } = await createTenant(t);
    const call = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: user.headers,
        payload: {
          phone_number: '+13125550105',
          call_type: 'ELP',
          template_variables: { simulate_outcome: 'completed' },
        },
      })
    ).json();
    const [created] = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/elp/tests?call_id=${call.id}`,
        headers: user.headers,
      })
    ).json().data;
    // Scores come from the recorded answers; the transcript follows with the end-of-call report.
    const scored = await playUntil(
      t,
      user.headers,
      created.id,
      (x) => x.scoring_status === 'SCORED' && objectsOf(objectOf(x.call)?.transcript).length > 0,
    );
    expect(scored.status).toBe('COMPLETED');
    expectConsistentScores(scored);
    expect(scored.questions_answered).toBeGreaterThanOrEqual(5);
    const answers = scored.call.transcript.filter((m: { tool_calls?: { function: { name: string } }[] }) =>
      m.tool_calls?.some((c) => c.function.name === 'record_elp_answer'),
    );
    expect(answers.length).toBe(scored.questions_answered);
    expect(scored).not.toHaveProperty('passed');
  });

  it('ends a test whose call was never answered FAILED, with scoring FAILED', async () => {
    const { user } = await createTenant(t);
    const call = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers: user.headers,
      payload: {
        phone_number: '+13125550101',
        call_type: 'ELP',
        template_variables: { simulate_outcome: 'no_answer' },
      },
    });
    expect(call.statusCode).toBe(201);
    const list = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/elp/tests?call_id=${call.json().id}`,
        headers: user.headers,
      })
    ).json();
    expect(list.data).toHaveLength(1);
    // Nobody picks up: the platform gives up 20 s after placing the call, not a millisecond before.
    const clock = manualClockOf(t);
    const placedAt = clock.ms();
    await clock.advanceTo(placedAt + 19_999);
    expect(await elpTest(t, user.headers, list.data[0].id)).toMatchObject({ status: 'REQUESTED' });
    await clock.advanceTo(placedAt + 20_000);
    const failed = await elpTest(t, user.headers, list.data[0].id);
    expect(failed).toMatchObject({
      status: 'FAILED',
      scoring_status: 'FAILED',
      questions_answered: 0,
      total_score: null,
    });
  });

  it('filters by phone number, MC number and call, and pages', async () => {
    const { user } = await createTenant(t);
    const start = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/v1/elp/tests', headers: user.headers, payload });
    const a = (await start({ phone_number: '+13125550102', mc_number: 'MC-0044' })).json();
    const b = (await start({ phone_number: '+13125550103', mc_number: '55' })).json();
    const ids = async (q: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/elp/tests?${q}`, headers: user.headers }))
        .json()
        .data.map((x: { id: string }) => x.id);
    expect(await ids('phone_number=%2B13125550102')).toEqual([a.id]);
    expect(await ids('mc_number=44')).toEqual([a.id]);
    expect(await ids(`call_id=${b.call_id}`)).toEqual([b.id]);
    const page = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/elp/tests?page_size=1&page=2',
        headers: user.headers,
      })
    ).json();
    expect(page.pagination).toMatchObject({
      page: 2,
      page_size: 1,
      total_count: 2,
      total_pages: 2,
      has_prev: true,
      has_next: false,
    });
    expect(page.data).toHaveLength(1);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/elp/tests',
      headers: user.headers,
      payload: { phone_number: '312-555-0100' },
    });
    expect(bad.statusCode).toBe(422);
  });
});

describe('an ELP call cut short', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry }, clock: START });

  it('is INCOMPLETE and still scored on the answers it got', async () => {
    const { user } = await createTenant(t);
    // An ELP call through POST /calls, so the simulated platform can be told to pick up.
    const call = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: user.headers,
        payload: {
          phone_number: '+13125550104',
          call_type: 'ELP',
          template_variables: { simulate_outcome: 'completed' },
        },
      })
    ).json();
    const started = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/elp/tests?call_id=${call.id}`,
        headers: user.headers,
      })
    ).json().data[0];
    // The driver answers the first two questions (the simulated platform's pace), then we hang up
    // with the clock standing still, so no third answer comes in between.
    const answered = await advanceUntil(
      t,
      () => t.database.db.select().from(elpAnswers).where(eq(elpAnswers.elp_test_id, started.id)),
      (rows) => rows.length >= 2,
      { stepMs: 100 },
    );
    expect(answered).toHaveLength(2);
    const hungUp = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${started.call_id}/end`,
      headers: user.headers,
    });
    expect(hungUp.json()).toMatchObject({ status: 'COMPLETED', previous_status: 'IN_PROGRESS' });
    const ended = await elpTest(t, user.headers, started.id);
    expect(ended).toMatchObject({ status: 'INCOMPLETE', scoring_status: 'SCORED' });
    expect(ended.questions_answered).toBe(2);
    expectConsistentScores(ended);
  });
});
