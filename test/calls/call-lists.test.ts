import { describe, expect, it } from 'vitest';
import { calls } from '../../src/modules/calls/calls-tables.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { at, expectedOrder, expectQueryError, getJson, listIds } from '../helpers/list-helpers.js';

type CallValues = typeof calls.$inferInsert;

/**
 * Six calls written straight to the table so every time is known. Ties on purpose: c3/c4 share
 * created_at, c1/c3 call_time and call_end_time, c1/c6 status; three have no call_start_time.
 */
async function dataset(t: TestApp) {
  const { orgId, user } = await createTenant(t);
  const tag = orgId.slice(-8);
  const row = (n: number, v: Partial<CallValues>): CallValues => ({
    id: `call_${tag}_${n}`,
    organization_id: orgId,
    status: 'COMPLETED',
    ...v,
  });
  const rows = [
    row(1, {
      created_at: at(0),
      call_time: at(10),
      call_start_time: at(10),
      call_end_time: at(12),
      status: 'COMPLETED',
      call_type: 'LOAD_BOOKING',
      call_direction: 'OUTBOUND',
    }),
    row(2, {
      created_at: at(1),
      call_time: at(8),
      status: 'FAILED',
      call_type: 'ELP',
      call_direction: 'OUTBOUND',
    }),
    row(3, {
      created_at: at(2),
      call_time: at(10),
      call_start_time: at(11),
      call_end_time: at(12),
      status: 'VOICEMAIL',
      call_direction: 'INBOUND',
    }),
    row(4, {
      created_at: at(2),
      call_time: at(5),
      call_start_time: at(6),
      status: 'IN_PROGRESS',
      call_type: 'LOAD_BOOKING',
    }),
    row(5, {
      created_at: at(4),
      call_time: at(20),
      status: 'SCHEDULED',
      call_type: 'LOAD_BOOKING',
      call_direction: 'OUTBOUND',
    }),
    row(6, { created_at: at(5), call_time: at(1), status: 'COMPLETED', call_direction: 'INBOUND' }),
  ];
  await t.database.db.insert(calls).values(rows);
  const ids = rows.map((r) => r.id);
  return { orgId, user, rows, ids };
}

const iso = (d: Date) => encodeURIComponent(d.toISOString());

describe('call list: filters, sorting and stats', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false' } });

  it('filters on created_after (inclusive), created_before (exclusive) and call_direction', async () => {
    const { user, ids } = await dataset(t);
    const [c1, c2, c3, c4, c5, c6] = ids;
    const list = (qs: string) => listIds(t, user.headers, `/api/v1/calls?${qs}`);
    // The default order stays call_time, newest first.
    expect(await list('')).toEqual([c5, c3, c1, c2, c4, c6]);
    expect(await list(`created_after=${iso(at(2))}`)).toEqual([c5, c3, c4, c6]);
    expect(await list(`created_before=${iso(at(2))}`)).toEqual([c1, c2]);
    expect(await list(`created_after=${iso(at(2))}&created_before=${iso(at(5))}`)).toEqual([c5, c3, c4]);
    expect(await list(`created_after=${iso(at(5))}&created_before=${iso(at(5))}`)).toEqual([]);
    expect(await list('call_direction=INBOUND')).toEqual([c3, c6]);
    expect(await list('call_direction=OUTBOUND,INBOUND&call_type=LOAD_BOOKING')).toEqual([c5, c1]);
    // The call_time days still filter as before, alongside.
    expect(await list(`start_date=2025-06-01&end_date=2025-06-01&created_after=${iso(at(4))}`)).toEqual([
      c5,
      c6,
    ]);
  });

  it('refuses a reversed range, an unknown direction and an unknown sort field with 422 naming the parameter', async () => {
    const { user } = await dataset(t);
    for (const base of ['/api/v1/calls', '/api/v1/calls/stats']) {
      await expectQueryError(
        t,
        user.headers,
        `${base}?created_after=${iso(at(1))}&created_before=${iso(at(0))}`,
        'created_after',
      );
      await expectQueryError(t, user.headers, `${base}?call_direction=SIDEWAYS`, 'call_direction');
    }
    await expectQueryError(t, user.headers, '/api/v1/calls?order_by=phone_number', 'order_by');
  });

  it('sorts on every documented field both ways, calls without a time last, ties by id', async () => {
    const { user, rows, ids } = await dataset(t);
    const [c1, c2, c3, c4, c5, c6] = ids;
    const list = (qs: string) => listIds(t, user.headers, `/api/v1/calls?${qs}`);
    expect(await list('order_by=call_start_time')).toEqual([c3, c1, c4, c6, c5, c2]);
    expect(await list('order_by=call_start_time&order_desc=false')).toEqual([c4, c1, c3, c2, c5, c6]);
    expect(await list('order_by=call_end_time')).toEqual([c3, c1, c6, c5, c4, c2]);
    expect(await list('order_by=status&order_desc=false')).toEqual([c1, c6, c2, c4, c5, c3]);
    for (const field of ['created_at', 'call_time', 'call_start_time', 'call_end_time', 'status'] as const) {
      for (const desc of [true, false]) {
        expect(await list(`order_by=${field}&order_desc=${desc}`), `${field} ${desc}`).toEqual(
          expectedOrder(rows, field, desc),
        );
      }
    }
    const whole = await list('order_by=call_end_time&order_desc=false');
    const paged: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const body = await getJson(
        t,
        user.headers,
        `/api/v1/calls?order_by=call_end_time&order_desc=false&page=${page}&page_size=2`,
      );
      expect(body.pagination.total_count).toBe(6);
      paged.push(...body.data.map((c: { id: string }) => c.id));
    }
    expect(paged).toEqual(whole);
  });

  it('answers GET /calls/stats per status, call type and direction, exactly, under the filters, for its organization only', async () => {
    const a = await dataset(t);
    const b = await dataset(t);
    const stats = (qs = '', headers = a.user.headers) =>
      getJson(t, headers, `/api/v1/calls/stats${qs ? `?${qs}` : ''}`);
    const none = {
      SCHEDULED: 0,
      PENDING: 0,
      AGENT_ASSIGNED: 0,
      IN_PROGRESS: 0,
      COMPLETED: 0,
      FAILED: 0,
      CANCELLED: 0,
      VOICEMAIL: 0,
      NO_RESPONSE: 0,
      TRANSFERRED: 0,
    };
    const whole = {
      total_count: 6,
      by_status: { ...none, COMPLETED: 2, FAILED: 1, VOICEMAIL: 1, IN_PROGRESS: 1, SCHEDULED: 1 },
      by_call_type: { LOAD_BOOKING: 3, ELP: 1, none: 2 },
      by_direction: { INBOUND: 2, OUTBOUND: 3, none: 1 },
    };
    expect(await stats()).toEqual(whole);
    expect(await stats('', b.user.headers)).toEqual(whole);
    expect(await stats('call_direction=INBOUND')).toEqual({
      total_count: 2,
      by_status: { ...none, COMPLETED: 1, VOICEMAIL: 1 },
      by_call_type: { LOAD_BOOKING: 0, ELP: 0, none: 2 },
      by_direction: { INBOUND: 2, OUTBOUND: 0, none: 0 },
    });
    expect(await stats(`created_after=${iso(at(2))}&created_before=${iso(at(5))}`)).toEqual({
      total_count: 3,
      by_status: { ...none, VOICEMAIL: 1, IN_PROGRESS: 1, SCHEDULED: 1 },
      by_call_type: { LOAD_BOOKING: 2, ELP: 0, none: 1 },
      by_direction: { INBOUND: 1, OUTBOUND: 1, none: 1 },
    });
    expect(await stats('status=COMPLETED&call_type=LOAD_BOOKING')).toMatchObject({ total_count: 1 });
    for (const qs of ['', 'call_type=ELP', 'status=COMPLETED,FAILED', `created_after=${iso(at(1))}`]) {
      const list = await getJson(t, a.user.headers, `/api/v1/calls?${qs}`);
      expect((await stats(qs)).total_count, qs).toBe(list.pagination.total_count);
    }
    const empty = await createTenant(t);
    expect(await stats('', empty.user.headers)).toEqual({
      total_count: 0,
      by_status: none,
      by_call_type: { LOAD_BOOKING: 0, ELP: 0, none: 0 },
      by_direction: { INBOUND: 0, OUTBOUND: 0, none: 0 },
    });
    const key = await createApiKey(t, a.user.headers);
    expect((await stats('', key.headers)).total_count).toBe(6);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/calls/stats' })).statusCode).toBe(401);
  });
});
