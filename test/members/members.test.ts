import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import type { OutboundEmail } from '../../src/integrations/email/email-channel.js';
import { defined } from '../../src/lib/defined.js';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import {
  advanceUntil,
  buildTestApp,
  manualClockOf,
  simulatedEmail,
  type TestApp,
  useTestApp,
} from '../helpers/app.js';
import { createCarrier } from '../helpers/carrier-factories.js';
import {
  createApiKey,
  createTenant,
  createUser,
  login,
  setStrictMode,
  type TestUser,
} from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';

const DASHBOARD = 'https://app.envoy.example';
const TOKEN = /envoy_inv_[0-9A-Za-z]{40}/;

const unique = () => Math.random().toString(36).slice(2, 10);

function outbox(t: TestApp): OutboundEmail[] {
  return simulatedEmail(t).sent;
}

/** The invitation token of the newest e-mail to `address`. */
function tokenSentTo(t: TestApp, address: string): string {
  const mail = outbox(t).findLast((m) => m.to === address);
  expect(mail, `an e-mail to ${address}`).toBeDefined();
  return defined(TOKEN.exec(defined(mail, 'mail').text), 'TOKEN.exec(mail.text)')[0];
}

const invite = (t: TestApp, headers: Record<string, string>, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/members', headers, payload });

const accept = (t: TestApp, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/accept-invitation',
    payload,
    remoteAddress: `198.19.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`,
  });

const patchRole = (t: TestApp, actor: TestUser, userId: string, role: string) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/v1/members/${userId}`,
    headers: actor.headers,
    payload: { role },
  });

const remove = (t: TestApp, actor: TestUser, userId: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/v1/members/${userId}`, headers: actor.headers });

const me = (t: TestApp, token: string) =>
  t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } });

async function ownersOf(t: TestApp, orgId: string): Promise<string[]> {
  const rows = await t.database.db.execute<{ user_id: string }>(
    sql`SELECT user_id FROM memberships WHERE organization_id = ${orgId} AND role = 'OWNER'`,
  );
  return rows.rows.map((r) => r.user_id);
}

describe('invitations', () => {
  const wall = new SettableWallClock();
  const t = useTestApp({ env: { DASHBOARD_URL: `${DASHBOARD}/` }, wallClock: wall });
  afterEach(() => wall.follow());

  it('takes a new address from invitation to first login', async () => {
    const { orgId, user: owner } = await createTenant(t);
    const email = `dispatcher-${unique()}@example.com`;
    const invited = await invite(t, owner.headers, {
      email: email.toUpperCase(),
      role: 'ADMIN',
      name: 'Dana',
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const invitation = invited.json();
    expect(invitation).toEqual({
      id: expect.stringMatching(/^inv_/),
      organization_id: orgId,
      email,
      name: 'Dana',
      role: 'ADMIN',
      status: 'pending',
      invited_by_id: owner.id,
      expires_at: expect.any(String),
      accepted_at: null,
      revoked_at: null,
      created_at: expect.any(String),
    });
    expect(invited.body).not.toMatch(TOKEN);
    const days = (Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(7, 3);

    const mail = defined(
      outbox(t).findLast((m) => m.to === email),
      'outbox(t).findLast((m) => m.to === email)',
    );
    const token = tokenSentTo(t, email);
    expect(mail.text).toContain(`${DASHBOARD}/accept-invitation?token=${token}`);
    expect(mail.outreachId ?? null).toBeNull();
    // Only the hash is stored.
    const stored = await t.database.db.execute(
      sql`SELECT token_hash FROM invitations WHERE id = ${invitation.id}`,
    );
    expect(defined(stored.rows[0], 'stored.rows[0]').token_hash).not.toBe(token);

    const accepted = await accept(t, { token, password: 'a long enough passphrase' });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ token_type: 'bearer', refresh_token: expect.any(String) });
    const first = await me(t, accepted.json().access_token);
    expect(first.statusCode).toBe(200);
    expect(first.json().user).toMatchObject({ email, name: 'Dana' });

    const token2 = await login(t, email, 'a long enough passphrase');
    const after = (await me(t, token2)).json();
    expect(after.memberships).toEqual([
      {
        organization_id: orgId,
        organization_name: expect.any(String),
        role: 'ADMIN',
        created_at: expect.any(String),
      },
    ]);
    expect(after.active_organization).toMatchObject({ id: orgId, role: 'ADMIN' });

    const again = await accept(t, { token, password: 'another long passphrase' });
    expect(again.statusCode).toBe(401);
    expect(again.json().error.code).toBe('invitation_used');
  });

  it('adds an existing user of another organization with the token alone, keeping their password', async () => {
    const { user: owner } = await createTenant(t);
    const elsewhere = await createTenant(t);
    const res = await invite(t, owner.headers, { email: elsewhere.user.email, role: 'MEMBER' });
    expect(res.statusCode).toBe(201);
    const token = tokenSentTo(t, elsewhere.user.email);
    const accepted = await accept(t, { token, password: 'ignored for an existing account' });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await me(t, accepted.json().access_token)).json().memberships).toHaveLength(2);
    // The old password still signs in; the one sent with the token does not.
    await login(t, elsewhere.user.email, elsewhere.user.password);
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: elsewhere.user.email, password: 'ignored for an existing account' },
    });
    expect(wrong.statusCode).toBe(401);
  });

  it('refuses to invite a member (409 naming email) and replaces a pending invitation of the same address', async () => {
    const { orgId, user: owner } = await createTenant(t);
    const member = await createUser(t, orgId, 'MEMBER');
    const dup = await invite(t, owner.headers, { email: member.email, role: 'ADMIN' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toMatchObject({ code: 'already_exists', param: 'email' });

    const email = `twice-${unique()}@example.com`;
    expect((await invite(t, owner.headers, { email, role: 'MEMBER' })).statusCode).toBe(201);
    const firstToken = tokenSentTo(t, email);
    expect((await invite(t, owner.headers, { email, role: 'ADMIN' })).statusCode).toBe(201);
    const secondToken = tokenSentTo(t, email);
    expect(secondToken).not.toBe(firstToken);
    const old = await accept(t, { token: firstToken, password: 'a long enough passphrase' });
    expect(old.json().error.code).toBe('invitation_revoked');
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/members?status=invited',
      headers: owner.headers,
    });
    expect(list.json().data).toEqual([expect.objectContaining({ email, role: 'ADMIN', status: 'invited' })]);
  });

  it('refuses an unknown, withdrawn or expired token with 401 and its own code', async () => {
    const { user: owner } = await createTenant(t);
    for (const token of ['envoy_inv_0000000000000000000000000000000000000000', 'whatever']) {
      const res = await accept(t, { token, password: 'a long enough passphrase' });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('invalid_invitation');
    }
    const withdrawn = `withdrawn-${unique()}@example.com`;
    const inv = (await invite(t, owner.headers, { email: withdrawn, role: 'MEMBER' })).json();
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/members/invitations/${inv.id}`,
      headers: owner.headers,
    });
    expect(del.statusCode).toBe(204);
    const revoked = await accept(t, {
      token: tokenSentTo(t, withdrawn),
      password: 'a long enough passphrase',
    });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.code).toBe('invitation_revoked');

    const late = `late-${unique()}@example.com`;
    wall.freeze();
    const endsAt = wall.ms() + t.config.invitations.ttlSeconds * 1000;
    await invite(t, owner.headers, { email: late, role: 'MEMBER' });
    // The owner signs in again when the invitation is about to end: the first access token is long over.
    wall.set(endsAt - 1000);
    const headers = { authorization: `Bearer ${await login(t, owner.email, owner.password)}` };
    const team = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/v1/members', headers })).json().data;
    expect(await team()).toContainEqual(expect.objectContaining({ email: late, status: 'invited' }));
    wall.set(endsAt);
    expect(await team()).toContainEqual(expect.objectContaining({ email: late, status: 'expired' }));
    const expired = await accept(t, { token: tokenSentTo(t, late), password: 'a long enough passphrase' });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('invitation_expired');
    expect((await team()).filter((m: { status: string }) => m.status === 'active')).toHaveLength(1);
  });

  it('replays an invitation retried with the same Idempotency-Key instead of e-mailing it again', async () => {
    const { user: owner } = await createTenant(t);
    const email = `retried-${unique()}@example.com`;
    const headers = { ...owner.headers, 'idempotency-key': `invite-${unique()}` };
    const first = await invite(t, headers, { email, role: 'MEMBER' });
    const second = await invite(t, headers, { email, role: 'MEMBER' });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(outbox(t).filter((m) => m.to === email)).toHaveLength(1);
  });

  it('holds a new password to 12 to 1024 characters, and asks for one only without an account', async () => {
    const { user: owner } = await createTenant(t);
    const email = `pw-${unique()}@example.com`;
    await invite(t, owner.headers, { email, role: 'MEMBER' });
    const token = tokenSentTo(t, email);
    for (const payload of [
      { token },
      { token, password: 'short-11chr' },
      { token, password: 'x'.repeat(1025) },
    ]) {
      const res = await accept(t, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_error', param: 'password' });
    }
    expect((await accept(t, { token, password: 'exactly-12ch' })).statusCode).toBe(200);
  });

  it('withdraws an invitation once (204 again), refuses an accepted one (409) and another organization’s (404)', async () => {
    const { user: owner } = await createTenant(t);
    const other = await createTenant(t);
    const email = `done-${unique()}@example.com`;
    const inv = (await invite(t, owner.headers, { email, role: 'MEMBER' })).json();
    const url = `/api/v1/members/invitations/${inv.id}`;
    expect((await t.app.inject({ method: 'DELETE', url, headers: other.user.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url, headers: owner.headers })).statusCode).toBe(204);
    expect((await t.app.inject({ method: 'DELETE', url, headers: owner.headers })).statusCode).toBe(204);

    const email2 = `accepted-${unique()}@example.com`;
    const inv2 = (await invite(t, owner.headers, { email: email2, role: 'MEMBER' })).json();
    await accept(t, { token: tokenSentTo(t, email2), password: 'a long enough passphrase' });
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/members/invitations/${inv2.id}`,
      headers: owner.headers,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('invitation_accepted');
  });
});

describe('the team list', () => {
  const t = useTestApp();

  it('lists members then pending invitations, paginated and filtered by status', async () => {
    const { orgId, user: owner } = await createTenant(t);
    const member = await createUser(t, orgId, 'MEMBER', { name: 'Mo', phone: '+14155552671' });
    await createTenant(t);
    const email = `listed-${unique()}@example.com`;
    await invite(t, owner.headers, { email, role: 'ADMIN', name: 'Ina' });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/members', headers: owner.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.pagination).toMatchObject({ page: 1, total_count: 3, total_pages: 1 });
    expect(body.data).toEqual([
      expect.objectContaining({ status: 'active', user_id: owner.id, role: 'OWNER', invitation_id: null }),
      {
        status: 'active',
        user_id: member.id,
        invitation_id: null,
        email: member.email,
        name: 'Mo',
        phone: '+14155552671',
        role: 'MEMBER',
        joined_at: expect.any(String),
        invited_at: null,
        invitation_expires_at: null,
      },
      expect.objectContaining({
        status: 'invited',
        user_id: null,
        invitation_id: expect.stringMatching(/^inv_/),
        email,
        name: 'Ina',
        role: 'ADMIN',
        joined_at: null,
        invited_at: expect.any(String),
        invitation_expires_at: expect.any(String),
      }),
    ]);
    const page2 = await t.app.inject({
      method: 'GET',
      url: '/api/v1/members?page=2&page_size=2',
      headers: owner.headers,
    });
    expect(page2.json().data).toEqual([expect.objectContaining({ email })]);
    expect(page2.json().pagination).toMatchObject({ total_count: 3, has_prev: true, has_next: false });
    const active = await t.app.inject({
      method: 'GET',
      url: '/api/v1/members?status=active',
      headers: owner.headers,
    });
    expect(active.json().pagination.total_count).toBe(2);
  });
});

describe('roles and removals', () => {
  const t = useTestApp();

  it('changes a role, effective on the member’s next request, and refuses the last OWNER’s demotion and removal', async () => {
    const { orgId, user: owner } = await createTenant(t);
    const member = await createUser(t, orgId, 'MEMBER');
    const promoted = await patchRole(t, owner, member.id, 'ADMIN');
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json()).toEqual({
      user_id: member.id,
      email: member.email,
      name: null,
      phone: null,
      role: 'ADMIN',
      joined_at: expect.any(String),
    });
    expect((await me(t, member.token)).json().active_organization.role).toBe('ADMIN');

    for (const res of [await patchRole(t, owner, owner.id, 'ADMIN'), await remove(t, owner, owner.id)]) {
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'last_owner', param: 'role' });
    }
    expect(await ownersOf(t, orgId)).toEqual([owner.id]);
    // With a second OWNER, the first may step down.
    expect((await patchRole(t, owner, member.id, 'OWNER')).statusCode).toBe(200);
    expect((await patchRole(t, owner, owner.id, 'MEMBER')).statusCode).toBe(200);
    expect(await ownersOf(t, orgId)).toEqual([member.id]);
  });

  it('leaves one OWNER when two owners are demoted at once', async () => {
    for (let round = 0; round < 3; round++) {
      const { orgId, user: a } = await createTenant(t);
      const b = await createUser(t, orgId, 'OWNER');
      // Each demotes the other, and A also steps down, all at the same moment.
      const results = await Promise.all([
        patchRole(t, a, b.id, 'ADMIN'),
        patchRole(t, b, a.id, 'ADMIN'),
        patchRole(t, a, a.id, 'MEMBER'),
      ]);
      expect(results.filter((r) => r.statusCode === 200).length).toBeGreaterThanOrEqual(1);
      for (const r of results.filter((x) => x.statusCode !== 200)) {
        expect([403, 409], r.body).toContain(r.statusCode);
        expect(['last_owner', 'insufficient_permissions']).toContain(r.json().error.code);
      }
      expect(await ownersOf(t, orgId)).toHaveLength(1);
    }
  });

  it('keeps OWNERs out of an ADMIN’s reach: 403 naming role', async () => {
    const { orgId, user: owner } = await createTenant(t);
    const admin = await createUser(t, orgId, 'ADMIN');
    const member = await createUser(t, orgId, 'MEMBER');
    const refused = [
      await invite(t, admin.headers, { email: `o-${unique()}@example.com`, role: 'OWNER' }),
      await patchRole(t, admin, member.id, 'OWNER'),
      await patchRole(t, admin, owner.id, 'ADMIN'),
      await remove(t, admin, owner.id),
    ];
    for (const res of refused) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error).toMatchObject({ code: 'insufficient_permissions', param: 'role' });
    }
    // Everything else is an ADMIN's to do.
    expect(
      (await invite(t, admin.headers, { email: `a-${unique()}@example.com`, role: 'ADMIN' })).statusCode,
    ).toBe(201);
    expect((await patchRole(t, admin, member.id, 'ADMIN')).statusCode).toBe(200);
    expect((await remove(t, admin, member.id)).statusCode).toBe(204);
    expect(await ownersOf(t, orgId)).toEqual([owner.id]);
  });

  it('refuses a MEMBER and an API key with 403, and answers 404 for another organization’s member', async () => {
    const { orgId, user: owner } = await createTenant(t);
    const member = await createUser(t, orgId, 'MEMBER');
    const key = await createApiKey(t, owner.headers);
    const other = await createTenant(t);
    const calls = (headers: Record<string, string>) => [
      t.app.inject({ method: 'GET', url: '/api/v1/members', headers }),
      t.app.inject({
        method: 'POST',
        url: '/api/v1/members',
        headers,
        payload: { email: 'x@example.com', role: 'MEMBER' },
      }),
      t.app.inject({
        method: 'PATCH',
        url: `/api/v1/members/${owner.id}`,
        headers,
        payload: { role: 'ADMIN' },
      }),
      t.app.inject({ method: 'DELETE', url: `/api/v1/members/${owner.id}`, headers }),
      t.app.inject({ method: 'DELETE', url: '/api/v1/members/invitations/inv_nope', headers }),
    ];
    for (const res of [
      ...(await Promise.all(calls(member.headers))),
      ...(await Promise.all(calls(key.headers))),
    ]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error.code).toBe('insufficient_permissions');
    }
    for (const res of [
      await patchRole(t, other.user, member.id, 'ADMIN'),
      await remove(t, other.user, member.id),
      await patchRole(t, owner, 'usr_nope', 'ADMIN'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'not_found', param: 'user_id' });
    }
    expect((await me(t, member.token)).json().active_organization.role).toBe('MEMBER');
  });

  it('ends every session of a removed member at once', async () => {
    const { orgId, user: owner } = await createTenant(t);
    const member = await createUser(t, orgId, 'ADMIN');
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: member.email, password: member.password },
    });
    const { refresh_token } = signedIn.json();
    expect((await me(t, member.token)).statusCode).toBe(200);
    expect((await remove(t, owner, member.id)).statusCode).toBe(204);
    expect((await me(t, member.token)).statusCode).toBe(401);
    expect((await me(t, signedIn.json().access_token)).statusCode).toBe(401);
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token },
    });
    expect(refreshed.statusCode).toBe(401);
    // Signing in again works, with no membership left here.
    const again = await login(t, member.email, member.password);
    expect((await me(t, again)).json().memberships).toEqual([]);
    expect((await remove(t, owner, member.id)).statusCode).toBe(404);
  });
});

describe('invitation e-mail', () => {
  it('never draws a simulated carrier reply', async () => {
    // The simulated carriers answer on the product clock, a manual one the test moves.
    const t = await buildTestApp({
      env: { SIMULATION_PROFILE: 'cooperative', WORKERS_ENABLED: 'false' },
      clock: new Date('2026-11-17T16:00:00Z'),
    });
    try {
      const said: string[] = [];
      defined(t.services.market, 't.services.market').observer = (e) => {
        if (e.kind === 'said') said.push(e.loadNumber);
      };
      const { user: owner } = await createTenant(t);
      const address = `quiet-${unique()}@example.com`;
      expect((await invite(t, owner.headers, { email: address, role: 'MEMBER' })).statusCode).toBe(201);
      const invitation = defined(
        outbox(t).findLast((m) => m.to === address),
        'outbox(t).findLast((m) => m.to === address)',
      );
      expect(invitation.outreachId ?? null).toBeNull();
      // The same simulation answers a carrier's e-mail about a load: it is on.
      await setStrictMode(t, owner.headers, false);
      const carrier = await createCarrier(t, owner.headers, {
        email: `dispatch-${unique()}@carrier.example`,
      });
      const loadId = await createLoad(t, owner.headers);
      const load = (
        await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}`, headers: owner.headers })
      ).json<{ load_number: string }>();
      const sent = await t.app.inject({
        method: 'POST',
        url: '/api/v1/outreaches',
        headers: owner.headers,
        payload: { carrier_id: carrier.id, load_id: loadId, modality: 'email' },
      });
      expect(sent.statusCode, sent.body).toBe(201);
      await advanceUntil(
        t,
        async () => said.length,
        (n) => n >= 1,
        { stepMs: 60_000, withinMs: 2 * 86_400_000 },
      );
      // A day more, for any word that would come later.
      await manualClockOf(t).advanceTo(t.clock.ms() + 86_400_000);
      // Every word the market said is about the load: none answers the invitation.
      expect(new Set(said)).toEqual(new Set([load.load_number]));
    } finally {
      await t.close();
    }
  });

  it('withdraws the invitation and answers 503 when the e-mail cannot be sent', async () => {
    const t = await buildTestApp({ env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://127.0.0.1:9' } });
    try {
      const { user: owner } = await createTenant(t);
      const res = await invite(t, owner.headers, { email: `nomail-${unique()}@example.com`, role: 'MEMBER' });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('service_unavailable');
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/members', headers: owner.headers });
      expect(list.json().pagination.total_count).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('never writes an invitation token or a new password to the log', async () => {
    const t = await buildTestApp({ captureLogs: true });
    try {
      const { user: owner } = await createTenant(t);
      const address = `logged-${unique()}@example.com`;
      await invite(t, owner.headers, { email: address, role: 'MEMBER' });
      const token = tokenSentTo(t, address);
      const accepted = await accept(t, { token, password: 'a secret passphrase 42' });
      expect(accepted.statusCode).toBe(200);
      await accept(t, { token, password: 'a secret passphrase 42' });
      const written = JSON.stringify(t.logs);
      expect(written).toContain('/api/v1/auth/accept-invitation');
      for (const secret of [token, 'a secret passphrase 42', accepted.json().refresh_token]) {
        expect(written).not.toContain(secret);
      }
    } finally {
      await t.close();
    }
  });
});
