import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { simulatedEmail, type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';

interface Row {
  id: string;
  entity_type: string;
  entity_id: string;
  action: string;
  actor_type: string;
  actor_id: string | null;
  before: unknown;
  after: unknown;
  created_at: string;
}

async function auditLog(t: TestApp, headers: Record<string, string>, query = ''): Promise<Row[]> {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/audit-log${query}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** An organization with a history: team changes by its owner, a carrier's stop-contact by an API key. */
async function organizationWithHistory(t: TestApp) {
  const { orgId, user: owner } = await createTenant(t);
  const member = await createUser(t, orgId, 'MEMBER');
  const key = await createApiKey(t, owner.headers);
  const call = (
    method: 'POST' | 'PATCH' | 'DELETE',
    url: string,
    headers = owner.headers,
    payload?: object,
  ) => t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });

  const email = `joiner-${Math.random().toString(36).slice(2)}@example.com`;
  const invitation = (await call('POST', '/members', owner.headers, { email, role: 'MEMBER' })).json();
  const mail = defined(
    simulatedEmail(t).sent.findLast((m) => m.to === email),
    'the invitation e-mail',
  );
  const token = defined(/envoy_inv_\w{40}/.exec(mail.text), '/envoy_inv_\\w{40}/.exec(mail.text)')[0];
  const accepted = await t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/accept-invitation',
    payload: { token, password: 'a long enough passphrase' },
  });
  expect(accepted.statusCode).toBe(200);
  const joinerId = (
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: `Bearer ${accepted.json().access_token}` },
    })
  ).json<{ user: { id: string } }>().user.id;
  expect((await call('PATCH', `/members/${member.id}`, owner.headers, { role: 'ADMIN' })).statusCode).toBe(
    200,
  );
  expect((await call('DELETE', `/members/${member.id}`)).statusCode).toBe(204);
  const withdrawn = (
    await call('POST', '/members', owner.headers, { email: `w-${email}`, role: 'ADMIN' })
  ).json();
  expect((await call('DELETE', `/members/invitations/${withdrawn.id}`)).statusCode).toBe(204);

  const carrier = (await call('POST', '/carriers', key.headers, { name: 'Audit Freight' })).json();
  const stopped = await call('POST', `/carriers/${carrier.id}/stop-contact`, key.headers);
  expect(stopped.statusCode, stopped.body).toBe(200);
  return { orgId, owner, member, key, invitation, withdrawn, joinerId, carrier };
}

describe('GET /audit-log', () => {
  const t = useTestApp();

  it('lists every change of the organization, newest first: team changes and carrier actions', async () => {
    const h = await organizationWithHistory(t);
    const rows = await auditLog(t, h.owner.headers);
    expect(rows.map((r) => `${r.entity_type}:${r.action}`)).toEqual([
      'carrier:stop_contact_requested',
      'invitation:revoke',
      'invitation:invite',
      'member:remove',
      'member:change_role',
      'member:join',
      'invitation:accept',
      'invitation:invite',
    ]);
    const sorted = [...rows].sort(
      (a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
    );
    expect(rows).toEqual(sorted);
    expect(rows.find((r) => r.action === 'change_role')).toMatchObject({
      entity_id: h.member.id,
      actor_type: 'user',
      actor_id: h.owner.id,
      before: { role: 'MEMBER' },
      after: { role: 'ADMIN' },
    });
    expect(rows.find((r) => r.action === 'join')).toMatchObject({
      entity_id: h.joinerId,
      actor_id: h.joinerId,
      after: { role: 'MEMBER', invitation_id: h.invitation.id, new_account: true },
    });
    expect(rows.find((r) => r.action === 'remove')).toMatchObject({ before: { role: 'ADMIN' } });
    expect(rows[0]).toMatchObject({ entity_id: h.carrier.id, actor_type: 'api_key', actor_id: h.key.id });
    // The carrier's own audit endpoint reads the same rows, in its own shape and order.
    const own = await t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${h.carrier.id}/audit-log`,
      headers: h.key.headers,
    });
    expect(own.json().data).toEqual([rows[0]]);
  });

  it('filters by actor, entity, action and time, and pages', async () => {
    const h = await organizationWithHistory(t);
    const all = await auditLog(t, h.owner.headers);
    const by = (query: string) => auditLog(t, h.owner.headers, query);

    expect((await by(`?actor_id=${h.owner.id}`)).map((r) => r.action)).toEqual([
      'revoke',
      'invite',
      'remove',
      'change_role',
      'invite',
    ]);
    expect((await by('?actor_type=api_key')).map((r) => r.action)).toEqual(['stop_contact_requested']);
    expect((await by('?entity_type=member')).map((r) => r.action)).toEqual(['remove', 'change_role', 'join']);
    expect((await by(`?entity_id=${h.member.id}`)).map((r) => r.action)).toEqual(['remove', 'change_role']);
    expect((await by(`?entity_id=${h.withdrawn.id}&action=revoke`)).map((r) => r.entity_id)).toEqual([
      h.withdrawn.id,
    ]);
    expect((await by('?action=invite&action=accept')).map((r) => r.action)).toEqual([
      'invite',
      'accept',
      'invite',
    ]);
    expect((await by('?action=join,remove')).map((r) => r.action)).toEqual(['remove', 'join']);

    // created_after is inclusive, created_before exclusive: the two split the log at one row.
    const pivot = defined(all[3], 'all[3]');
    const after = await by(`?created_after=${encodeURIComponent(pivot.created_at)}&page_size=100`);
    const before = await by(`?created_before=${encodeURIComponent(pivot.created_at)}&page_size=100`);
    expect(after.map((r) => r.id)).toContain(pivot.id);
    expect(before.map((r) => r.id)).not.toContain(pivot.id);
    expect([...after, ...before].map((r) => r.id).sort()).toEqual(all.map((r) => r.id).sort());
    const window = await by(
      `?created_after=${encodeURIComponent(defined(all.at(-1), 'all.at(-1)').created_at)}&created_before=${encodeURIComponent(defined(all[0], 'all[0]').created_at)}&entity_type=invitation`,
    );
    expect(window.every((r) => r.entity_type === 'invitation')).toBe(true);

    const page = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit-log?page=2&page_size=3',
      headers: h.owner.headers,
    });
    expect(page.json().pagination).toMatchObject({ page: 2, page_size: 3, total_count: 8, total_pages: 3 });
    expect(page.json().data.map((r: Row) => r.id)).toEqual(all.slice(3, 6).map((r) => r.id));
  });

  it('is scoped to the organization, open to API keys and OWNERs or ADMINs, and validates its filters', async () => {
    const h = await organizationWithHistory(t);
    const other = await createTenant(t);
    expect(await auditLog(t, other.user.headers)).toEqual([]);
    expect(await auditLog(t, other.user.headers, `?entity_id=${h.carrier.id}`)).toEqual([]);
    expect(await auditLog(t, h.key.headers)).toHaveLength(8);

    const member = await createUser(t, h.orgId, 'MEMBER');
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/audit-log', headers: member.headers });
    expect(refused.statusCode).toBe(403);

    for (const [query, param] of [
      ['?actor_type=robot', 'actor_type'],
      ['?entity_type=load', 'entity_type'],
      ['?created_after=yesterday', 'created_after'],
      [`?actor_id=${'x'.repeat(101)}`, 'actor_id'],
    ] as const) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/audit-log${query}`,
        headers: h.owner.headers,
      });
      expect(res.statusCode, query).toBe(422);
      expect(res.json().error.param, query).toBe(param);
    }
  });
});
