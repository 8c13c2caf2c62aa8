import { afterEach, describe, expect, it } from 'vitest';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';

describe('API keys', () => {
  const wall = new SettableWallClock();
  const t = useTestApp({ wallClock: wall });
  afterEach(() => wall.follow());

  /** A request the key authenticates (403: keys may not manage keys) or not (401). */
  const probe = (headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers });

  it('shows the secret once, on creation, and never in the list or by id', async () => {
    const { orgId, user } = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: user.headers,
      payload: { name: 'TMS sync', description: 'nightly import' },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f-]{36}$/),
      name: 'TMS sync',
      organization_id: orgId,
      is_active: true,
      description: 'nightly import',
      expires_at: null,
      last_used_at: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.any(String),
      key: expect.stringMatching(/^envoy_sk_[0-9A-Za-z]{40}$/),
    });

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: user.headers });
    expect(list.statusCode).toBe(200);
    expect(list.json().pagination).toEqual({
      page: 1,
      page_size: 20,
      total_count: 1,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(list.json().data[0]).not.toHaveProperty('key');
    expect(list.body).not.toContain(created.key);

    const one = await t.app.inject({
      method: 'GET',
      url: `/api/v1/api-keys/${created.id}`,
      headers: user.headers,
    });
    expect(one.statusCode).toBe(200);
    const { key: _secret, ...withoutSecret } = created;
    expect(one.json()).toEqual({ ...withoutSecret, updated_at: one.json().updated_at });
  });

  it('validates the creation body', async () => {
    const { user } = await createTenant(t);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'k', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'k', expires_at: 'tomorrow' }, 'expires_at'],
    ];
    for (const [payload, param] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: user.headers,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().error.param, JSON.stringify(payload)).toBe(param);
    }
  });

  it('refuses a second active key with the same name with 409', async () => {
    const { user } = await createTenant(t);
    await createApiKey(t, user.headers, { name: 'dup' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: user.headers,
      payload: { name: 'dup' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'already_exists', param: 'name' });
  });

  it('lets an ADMIN manage keys and refuses a MEMBER with 403', async () => {
    const { orgId } = await createTenant(t);
    const admin = await createUser(t, orgId, 'ADMIN');
    const member = await createUser(t, orgId, 'MEMBER');
    await createApiKey(t, admin.headers);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: member.headers,
      payload: { name: 'member key' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('insufficient_permissions');
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: member.headers })).statusCode,
    ).toBe(403);
  });

  it('stamps last_used_at when the key authenticates a request', async () => {
    const { user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const before = await t.app.inject({
      method: 'GET',
      url: `/api/v1/api-keys/${key.id}`,
      headers: user.headers,
    });
    expect(before.json().last_used_at).toBeNull();
    wall.freeze();
    expect((await probe(key.headers)).statusCode).toBe(403);
    const after = await t.app.inject({
      method: 'GET',
      url: `/api/v1/api-keys/${key.id}`,
      headers: user.headers,
    });
    expect(Date.parse(after.json().last_used_at)).toBe(wall.ms());
  });

  it('refuses a deactivated key with 401 and keeps it listed as inactive', async () => {
    const { user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    expect((await probe(key.headers)).statusCode).toBe(403);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${key.id}`,
      headers: user.headers,
    });
    expect(del.statusCode).toBe(200);
    expect(del.headers['content-type']).toMatch(/^application\/json/);
    expect(del.json()).toEqual({});
    const refused = await probe(key.headers);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error).toEqual({
      code: 'not_authenticated',
      message: 'The API key has been deactivated',
      param: null,
    });
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${key.id}`,
      headers: user.headers,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({});
    const inactive = await t.app.inject({
      method: 'GET',
      url: '/api/v1/api-keys?is_active=false',
      headers: user.headers,
    });
    expect(inactive.json().data.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(inactive.json().data[0].is_active).toBe(false);
  });

  it('refuses an expired key with 401', async () => {
    const { user } = await createTenant(t);
    // Expiry is checked against the clock, also for a key the app holds in its cache: a
    // millisecond before its end the key is used (and cached), at its end it is refused.
    wall.freeze();
    const expiresAt = wall.ms() + 60_000;
    const key = await createApiKey(t, user.headers, { expires_at: new Date(expiresAt).toISOString() });
    wall.set(expiresAt - 1);
    expect((await probe(key.headers)).statusCode).toBe(403);
    wall.set(expiresAt);
    const res = await probe(key.headers);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toBe('The API key has expired');
  });

  it('refuses unknown and malformed keys with 401', async () => {
    for (const key of [`envoy_sk_${'a'.repeat(40)}`, 'nonsense', 'envoy_sk_short']) {
      const res = await probe({ 'x-api-key': key });
      expect(res.statusCode, key).toBe(401);
      expect(res.json().error.code).toBe('not_authenticated');
    }
  });

  it('keeps the old key working after regenerate until its new expiry', async () => {
    const { user } = await createTenant(t);
    const old = await createApiKey(t, user.headers, { name: 'rotating', description: 'd' });
    wall.freeze();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/api-keys/${old.id}/regenerate`,
      headers: user.headers,
    });
    expect(res.statusCode).toBe(201);
    const replacement = res.json();
    expect(replacement).toMatchObject({ name: 'rotating', description: 'd', is_active: true });
    expect(replacement.id).not.toBe(old.id);
    expect(replacement.key).not.toBe(old.key);
    expect((await probe({ 'x-api-key': replacement.key })).statusCode).toBe(403);
    expect((await probe(old.headers)).statusCode).toBe(403);
    const oldRecord = (
      await t.app.inject({ method: 'GET', url: `/api/v1/api-keys/${old.id}`, headers: user.headers })
    ).json();
    expect(Date.parse(oldRecord.expires_at)).toBe(wall.ms() + 86_400_000);

    const twice = await t.app.inject({
      method: 'POST',
      url: `/api/v1/api-keys/${old.id}/regenerate`,
      headers: user.headers,
    });
    expect(twice.statusCode).toBe(409);
    // The old key works to the last millisecond of its day, and not after.
    wall.set(Date.parse(oldRecord.expires_at) - 1);
    expect((await probe(old.headers)).statusCode).toBe(403);
    wall.set(Date.parse(oldRecord.expires_at));
    const ended = await probe(old.headers);
    expect(ended.statusCode).toBe(401);
    expect(ended.json().error.message).toBe('The API key has expired');
    expect((await probe({ 'x-api-key': replacement.key })).statusCode).toBe(403);
  });

  it('retires the old key at once with expire_old_in_seconds 0', async () => {
    const { user } = await createTenant(t);
    const old = await createApiKey(t, user.headers);
    expect((await probe(old.headers)).statusCode).toBe(403);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/api-keys/${old.id}/regenerate`,
      headers: user.headers,
      payload: { expire_old_in_seconds: 0 },
    });
    expect(res.statusCode).toBe(201);
    expect((await probe(old.headers)).statusCode).toBe(401);
    expect((await probe({ 'x-api-key': res.json().key })).statusCode).toBe(403);
  });

  it('bounds expire_old_in_seconds to 7 days', async () => {
    const { user } = await createTenant(t);
    const old = await createApiKey(t, user.headers);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/api-keys/${old.id}/regenerate`,
      headers: user.headers,
      payload: { expire_old_in_seconds: 604_801 },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.param).toBe('expire_old_in_seconds');
  });
});

describe('tenant isolation of API keys', () => {
  const t = useTestApp();

  it('answers 404 for another organization’s key id, whatever the operation', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const foreign = await createApiKey(t, b.user.headers);
    const calls = [
      { method: 'GET' as const, url: `/api/v1/api-keys/${foreign.id}` },
      { method: 'DELETE' as const, url: `/api/v1/api-keys/${foreign.id}` },
      { method: 'POST' as const, url: `/api/v1/api-keys/${foreign.id}/regenerate` },
    ];
    for (const call of calls) {
      const res = await t.app.inject({ ...call, headers: a.user.headers });
      expect(res.statusCode, call.method).toBe(404);
      expect(res.json().error).toEqual({
        code: 'not_found',
        message: `API key '${foreign.id}' not found`,
        param: 'id',
      });
    }
    // Nothing happened to it.
    expect((await probe(t, foreign.headers)).statusCode).toBe(403);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: a.user.headers });
    expect(list.json().data).toEqual([]);
  });

  it('refuses an API key sent with another organization’s X-Organization-ID', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const key = await createApiKey(t, a.user.headers);
    const res = await probe(t, { ...key.headers, 'x-organization-id': b.orgId });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('An API key acts only in its own organization');
  });
});

function probe(t: TestApp, headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers });
}
