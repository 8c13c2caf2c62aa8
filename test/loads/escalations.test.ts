import { describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { addEscalation, createLoad, escalationBody } from '../helpers/load-factories.js';

const env = { WORKERS_ENABLED: 'false' };
type Headers = Record<string, string>;

const listOf = (t: TestApp, h: Headers, loadId: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/escalations${query}`, headers: h });

const respond = (t: TestApp, h: Headers, id: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/api/v1/escalations/${id}/respond`, headers: h, payload });

describe('escalations: the shape, and a person responding', () => {
  const t = useTestApp({ env });

  it('lists the ACTIVE escalations in the shape, and a response makes one RESPONDED, once', async () => {
    const { orgId, user } = await createTenant(t);
    const loadId = await createLoad(t, user.headers);
    const older = await addEscalation(t, orgId, loadId);
    const id = await addEscalation(t, orgId, loadId);
    const done = await addEscalation(t, orgId, loadId, 'CANCELLED');

    const listed = await listOf(t, user.headers, loadId);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.headers['content-type']).toMatch(/^application\/json/);
    const body = listed.json<{ id: string }[]>();
    expect(body.map((e) => e.id).sort()).toEqual([older, id].sort());
    expect(body.find((e) => e.id === id)).toEqual(
      escalationBody({
        id,
        load_id: loadId,
        agent_type: 'CARRIER_SALES',
        message: 'The carrier asked for a human',
        reason: 'Carrier asked for a human',
      }),
    );
    const load = await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}`, headers: user.headers });
    expect(load.json().active_escalation_count).toBe(2);

    // A MEMBER may answer (whoever may act on the load's offers).
    const member = await createUser(t, orgId, 'MEMBER');
    const answered = await respond(t, member.headers, id, { response_message: '  Book them at 1900.' });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toMatchObject({
      id,
      status: 'RESPONDED',
      response_message: '  Book them at 1900.',
      response_user_id: member.id,
      responded_at: expect.any(String),
    });
    expect(answered.json().resolved_at).toBe(answered.json().responded_at);

    const again = await respond(t, user.headers, id, { response_message: 'Changed my mind' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'escalation_not_active', param: 'escalation_id' });
    const cancelled = await respond(t, user.headers, done, { response_message: 'Too late' });
    expect(cancelled.statusCode).toBe(409);
    expect(cancelled.json().error.code).toBe('escalation_not_active');

    // Out of the default list, in the RESPONDED one; the load counts one ACTIVE escalation.
    expect((await listOf(t, user.headers, loadId)).json().map((e: { id: string }) => e.id)).toEqual([older]);
    const responded = await listOf(t, user.headers, loadId, '?status=RESPONDED,CANCELLED');
    expect(
      responded
        .json()
        .map((e: { id: string; status: string }) => [e.id, e.status])
        .sort(),
    ).toEqual(
      [
        [id, 'RESPONDED'],
        [done, 'CANCELLED'],
      ].sort(),
    );
    const after = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads/${loadId}`,
      headers: user.headers,
    });
    expect(after.json().active_escalation_count).toBe(1);

    // The response is in the audit log, as the member's.
    const audit = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit-log?entity_type=escalation',
      headers: user.headers,
    });
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.json().data).toEqual([
      expect.objectContaining({
        entity_type: 'escalation',
        entity_id: id,
        action: 'responded',
        actor_type: 'user',
        actor_id: member.id,
        before: { status: 'ACTIVE' },
        after: { status: 'RESPONDED', response_message: '  Book them at 1900.' },
      }),
    ]);
  });

  it('refuses a response without a message (422), and records an API key as no user', async () => {
    const { orgId, user } = await createTenant(t);
    const key = (await createApiKey(t, user.headers)).headers;
    const loadId = await createLoad(t, key);
    const id = await addEscalation(t, orgId, loadId);
    for (const payload of [{}, { response_message: '   ' }, { response_message: 42 }, { message: 'hi' }]) {
      const bad = await respond(t, key, id, payload);
      expect(bad.statusCode, JSON.stringify(payload)).toBe(422);
      expect(bad.json().error).toMatchObject({ code: 'validation_error', param: 'response_message' });
    }
    const badStatus = await listOf(t, key, loadId, '?status=resolved');
    expect(badStatus.statusCode).toBe(422);
    expect(badStatus.json().error.code).toBe('validation_error');
    // Still ACTIVE after the refusals.
    expect((await listOf(t, key, loadId)).json()).toEqual([
      expect.objectContaining({ id, status: 'ACTIVE' }),
    ]);

    const answered = await respond(t, key, id, { response_message: 'Handled by phone' });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toMatchObject({ status: 'RESPONDED', response_user_id: null });
  });

  it("answers 404 for another organization's escalation and load, and 401 without credentials", async () => {
    const mine = await createTenant(t);
    const theirs = await createTenant(t);
    const loadId = await createLoad(t, theirs.user.headers);
    const id = await addEscalation(t, theirs.orgId, loadId);
    const foreign = await respond(t, mine.user.headers, id, { response_message: 'Not mine to answer' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toMatchObject({ code: 'not_found', param: 'escalation_id' });
    const foreignList = await listOf(t, mine.user.headers, loadId);
    expect(foreignList.statusCode).toBe(404);
    expect(foreignList.json().error.code).toBe('not_found');
    const missing = await respond(t, mine.user.headers, 'esc_nope', { response_message: 'x' });
    expect(missing.statusCode).toBe(404);
    const wrongKind = await respond(t, mine.user.headers, loadId, { response_message: 'x' });
    expect(wrongKind.statusCode).toBe(400);
    expect(wrongKind.json().error).toMatchObject({ code: 'invalid_id_format', param: 'escalation_id' });
    const anonymous = await t.app.inject({
      method: 'POST',
      url: `/api/v1/escalations/${id}/respond`,
      payload: { response_message: 'x' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('not_authenticated');
    // Theirs is untouched.
    expect((await listOf(t, theirs.user.headers, loadId)).json()).toEqual([
      expect.objectContaining({ id, status: 'ACTIVE' }),
    ]);
  });
});
