import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { drainWorker, type TestApp } from './app.js';

/** A census snapshot file for the registry provider, with these records. */
export function registryFile(records: Record<string, unknown>[] = []): string {
  const file = path.join(os.tmpdir(), `envoy-registry-${randomBytes(6).toString('hex')}.json`);
  writeFileSync(file, JSON.stringify(records));
  return file;
}

/** A registry record of a carrier in good standing. */
export const goodStanding = (mc: string, dot: string, extra: Record<string, unknown> = {}) => ({
  mc_number: mc,
  dot_number: dot,
  legal_name: `Carrier ${mc}`,
  allowed_to_operate: true,
  out_of_service: false,
  authorized_for_hire: true,
  insurance_on_file: true,
  authority_granted_at: '2015-01-01',
  ...extra,
});

let serial = 0;
/** Distinct MC numbers for one test run. */
export const nextMc = () => String(100000 + (Date.now() % 100000) * 10 + (serial++ % 10) + serial * 1000000);

export async function postCarrier(
  t: TestApp,
  headers: Record<string, string>,
  body: Record<string, unknown>,
) {
  return t.app.inject({ method: 'POST', url: '/api/v1/carriers', headers, payload: body });
}

export async function createCarrier(
  t: TestApp,
  headers: Record<string, string>,
  body: Record<string, unknown> = {},
) {
  const res = await postCarrier(t, headers, { name: `Carrier ${randomBytes(3).toString('hex')}`, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/**
 * Runs one round of the compliance worker (every carrier whose check is due is checked before it
 * returns), then reads the carrier. For apps built with `WORKERS_ENABLED: 'false'`.
 */
export async function carrierAfterChecks(t: TestApp, headers: Record<string, string>, id: string) {
  await drainWorker(t, 'compliance');
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${id}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
