import { describe, expect, it } from 'vitest';
import { manualProductClock, startProductClock } from '../../src/db/product-clock.js';
import { drainWorker, type TestApp, useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';
import { addEscalation, createLoad, loadPayload } from '../helpers/load-factories.js';

// A file of its own: the sweep settles every organization's escalations, and the manual clock
// moves the whole (file's) database.
const env = { WORKERS_ENABLED: 'false' };
type Headers = Record<string, string>;

const listOf = (t: TestApp, h: Headers, loadId: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/escalations${query}`, headers: h });

describe('escalations: the sweep on the product clock', () => {
  const t = useTestApp({ env });

  it('times out an ACTIVE escalation after ESCALATION_TIMEOUT_MINUTES, not before', async () => {
    const start = new Date(Date.now() + 3_600_000);
    start.setUTCMilliseconds(0);
    const clock = await manualProductClock(t.database.pool, start);
    try {
      const { orgId, user } = await createTenant(t);
      const loadId = await createLoad(t, user.headers);
      const id = await addEscalation(t, orgId, loadId);
      const minutes = t.config.escalations.timeoutMinutes;
      expect(minutes).toBe(240);

      await clock.advanceTo(start.getTime() + (minutes - 1) * 60_000);
      expect(await drainWorker(t, 'escalations')).toBe(0);
      expect((await listOf(t, user.headers, loadId)).json()).toEqual([
        expect.objectContaining({ id, status: 'ACTIVE', created_at: start.toISOString() }),
      ]);

      const due = new Date(start.getTime() + minutes * 60_000);
      await clock.advanceTo(due);
      expect(await drainWorker(t, 'escalations')).toBe(1);
      expect((await listOf(t, user.headers, loadId)).json()).toEqual([]);
      const timedOut = await listOf(t, user.headers, loadId, '?status=TIMED_OUT');
      expect(timedOut.json()).toEqual([
        expect.objectContaining({
          id,
          status: 'TIMED_OUT',
          resolved_at: due.toISOString(),
          responded_at: null,
          response_message: null,
        }),
      ]);
      expect(await drainWorker(t, 'escalations')).toBe(0);
      const late = await t.app.inject({
        method: 'POST',
        url: `/api/v1/escalations/${id}/respond`,
        headers: user.headers,
        payload: { response_message: 'Sorry, late' },
      });
      expect(late.statusCode).toBe(409);
      expect(late.json().error.code).toBe('escalation_not_active');
    } finally {
      await (await startProductClock(t.database.pool, null, { takeOver: true })).stop();
    }
  });

  it('cancels the escalations of a load that was cancelled', async () => {
    const { orgId, user } = await createTenant(t);
    const payload = loadPayload();
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers: user.headers,
      payload,
    });
    expect(created.statusCode, created.body).toBe(201);
    const loadId = created.json().load_id;
    const id = await addEscalation(t, orgId, loadId);
    const kept = await createLoad(t, user.headers);
    const other = await addEscalation(t, orgId, kept);
    expect(await drainWorker(t, 'escalations')).toBe(0);

    const cancel = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers: user.headers,
      payload: { ...payload, tms_status: 'cancelled' },
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(await drainWorker(t, 'escalations')).toBe(1);
    expect((await listOf(t, user.headers, loadId, '?status=CANCELLED')).json()).toEqual([
      expect.objectContaining({
        id,
        status: 'CANCELLED',
        resolved_at: expect.any(String),
        responded_at: null,
      }),
    ]);
    expect((await listOf(t, user.headers, kept)).json()).toEqual([
      expect.objectContaining({ id: other, status: 'ACTIVE' }),
    ]);
  });
});
