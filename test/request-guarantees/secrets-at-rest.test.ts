import { describe, expect, it } from 'vitest';
import { buildTestApp, fileDatabaseUrl, type TestApp, useTestApp } from '../helpers/app.js';
import { createTenant, createUser } from '../helpers/factories.js';

/** Every row of every table of the database, as text: what someone with database access reads. */
async function everyRow(t: TestApp): Promise<string> {
  const { rows: tables } = await t.database.pool.query<{ name: string }>(
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const dumps: string[] = [];
  for (const { name } of tables) {
    const { rows } = await t.database.pool.query(`SELECT * FROM ${name}`);
    dumps.push(JSON.stringify(rows));
  }
  return dumps.join('\n');
}

describe('secrets at rest', () => {
  const t = useTestApp();

  it('keeps no API key or signing secret readable in any table after keyed creations, and replays them', async () => {
    const { user } = await createTenant(t);
    const headers = { ...user.headers, 'idempotency-key': 'create-key-1' };
    const body = { name: 'TMS sync' };
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers, payload: body });
    expect(created.statusCode, created.body).toBe(201);
    const apiKey = created.json<{ key: string }>().key;
    expect(apiKey).toMatch(/^envoy_sk_/);

    const hookHeaders = { ...user.headers, 'idempotency-key': 'create-hook-1' };
    const hookBody = { url: 'https://receiver.example/hooks', event_types: ['load.updated'] };
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: hookHeaders,
      payload: hookBody,
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const signingSecret = hook.json<{ signing_secret: string }>().signing_secret;
    expect(signingSecret).toMatch(/^whsec_/);

    const stored = await everyRow(t);
    expect(stored).toContain('create-key-1');
    expect(stored).not.toContain(apiKey);
    expect(stored).not.toContain(apiKey.slice('envoy_sk_'.length));
    expect(stored).not.toContain(signingSecret);
    expect(stored).not.toContain(signingSecret.slice('whsec_'.length));

    // The creator's retry still gets its one creation response back.
    const replay = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers, payload: body });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().key).toBe(apiKey);
    const hookReplay = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: hookHeaders,
      payload: hookBody,
    });
    expect(hookReplay.headers['idempotent-replayed']).toBe('true');
    expect(hookReplay.json().signing_secret).toBe(signingSecret);
  });

  it('replays a stored response only to the credential that created it', async () => {
    const { orgId, user: owner } = await createTenant(t);
    const admin = await createUser(t, orgId, 'ADMIN');
    const body = { name: 'owner key' };
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { ...owner.headers, 'idempotency-key': 'shared-key' },
      payload: body,
    });
    expect(first.statusCode).toBe(201);

    const stolen = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { ...admin.headers, 'idempotency-key': 'shared-key' },
      payload: body,
    });
    expect(stolen.statusCode).toBe(422);
    expect(stolen.json().error).toMatchObject({ code: 'idempotency_key_reused', param: 'idempotency-key' });
    expect(stolen.body).not.toContain(first.json().key);
    expect(stolen.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses a replay whose stored response was sealed under another key', async () => {
    const { user } = await createTenant(t);
    const headers = { ...user.headers, 'idempotency-key': 'rotated' };
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers,
      payload: { name: 'before rotation' },
    });
    expect(first.statusCode).toBe(201);
    // An instance configured with another SECRETS_ENCRYPTION_KEY cannot open the stored body.
    const rotated = await buildTestApp({
      databaseUrl: await fileDatabaseUrl(),
      env: { SECRETS_ENCRYPTION_KEY: 'another-key-of-at-least-thirty-two-characters' },
    });
    const replay = await rotated.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers,
      payload: { name: 'before rotation' },
    });
    expect(replay.statusCode).toBe(409);
    expect(replay.json().error).toMatchObject({
      code: 'idempotency_key_unreadable',
      param: 'idempotency-key',
    });
  });
});
