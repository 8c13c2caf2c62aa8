import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Role } from '../../src/domain/scope.js';
import type { TestApp } from './app.js';

const unique = () => randomBytes(4).toString('hex');

const authService = (t: TestApp) => t.services.auth;

export async function createOrg(t: TestApp, name = `Brokerage ${unique()}`): Promise<string> {
  return (await authService(t).createOrganization(name)).id;
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
  /** Headers that authenticate as this user. */
  headers: Record<string, string>;
}

/** A user with a membership in `orgId`, signed in through the real login endpoint. */
export async function createUser(
  t: TestApp,
  orgId: string,
  role: Role = 'OWNER',
  extra: { phone?: string; name?: string; email?: string } = {},
): Promise<TestUser> {
  const email = extra.email ?? `user-${unique()}@example.com`;
  const password = `pw-${unique()}-${unique()}`;
  const { user } = await authService(t).createUser({
    organizationId: orgId,
    email,
    password,
    role,
    phone: extra.phone ?? null,
    name: extra.name ?? null,
  });
  const token = await login(t, email, password);
  return { id: user.id, email, password, token, headers: { authorization: `Bearer ${token}` } };
}

/**
 * Signs in through the real endpoint. Each call comes from its own address (198.18.0.0/15, a
 * range for tests), so logins made for setup never use up the per-IP login limit a test measures.
 */
export async function login(t: TestApp, email: string, password: string): Promise<string> {
  const remoteAddress = `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email, password },
    remoteAddress,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token;
}

/** An organization with an OWNER signed in. */
export async function createTenant(t: TestApp, role: Role = 'OWNER') {
  const orgId = await createOrg(t);
  const user = await createUser(t, orgId, role);
  return { orgId, user };
}

export interface TestApiKey {
  id: string;
  key: string;
  headers: Record<string, string>;
}

export async function createApiKey(
  t: TestApp,
  ownerHeaders: Record<string, string>,
  body: Record<string, unknown> = {},
): Promise<TestApiKey> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/api-keys',
    headers: ownerHeaders,
    payload: { name: `key-${unique()}`, ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { id, key } = res.json();
  return { id, key, headers: { 'x-api-key': key } };
}

/** Turns the organization's strict mode on or off (PATCH /compliance-policy). */
export async function setStrictMode(t: TestApp, h: Record<string, string>, on: boolean) {
  const res = await t.app.inject({
    method: 'PATCH',
    url: '/api/v1/compliance-policy',
    headers: h,
    payload: { strict_mode: on },
  });
  expect(res.statusCode, res.body).toBe(200);
}
