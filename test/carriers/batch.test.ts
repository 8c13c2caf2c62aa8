import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import {
  carrierAfterChecks,
  createCarrier,
  goodStanding,
  registryFile,
} from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';

const registry = registryFile([goodStanding('610001', '710001'), goodStanding('610002', '710002')]);

describe('POST /carriers/batch', () => {
  const t = useTestApp({
    env: { COMPLIANCE_REGISTRY_FILE: registry, WORKERS_ENABLED: 'false', RATE_LIMIT_UPLOADS_PER_MINUTE: '7' },
  });
  const batch = (headers: Record<string, string>, carriers: unknown[]) =>
    t.app.inject({ method: 'POST', url: '/api/v1/carriers/batch', headers, payload: { carriers } });

  it('answers 200 when every item was applied, with counts that sum to the total', async () => {
    const { user } = await createTenant(t);
    const existing = await createCarrier(t, user.headers, { name: 'Existing', mc_number: '610002' });
    const res = await batch(user.headers, [
      { carrier: { name: 'New One', mc_number: '610001', tms_carrier_id: 'tms-1' } },
      { carrier: { name: 'Existing Renamed', mc_number: 'MC610002', tms_status: 'ACTIVE' } },
    ]);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, total: 2, successful: 2, failed: 0, created: 1, updated: 1 });
    expect(body.summary).toEqual({ total: 2, created: 1, updated: 1, skipped: 0, failed: 0 });
    expect(body).not.toHaveProperty('errors');
    expect(body.data).toEqual([
      { index: 0, status: 'created', id: expect.stringMatching(/^car_/), external_id: 'tms-1', error: null },
      { index: 1, status: 'updated', id: existing.id, external_id: null, error: null },
    ]);
    expect(body.results[0]).toEqual({
      identifier: 'New One',
      success: true,
      carrier_id: body.data[0].id,
      operation: 'created',
      error: null,
      error_code: null,
      lanes_created: 0,
    });
    // Compliance runs in the background: the compliance worker's next round checks the new carrier.
    const unchecked = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${body.data[0].id}`, headers: user.headers })
    ).json();
    expect(unchecked.last_verified_at).toBeNull();
    const checked = await carrierAfterChecks(t, user.headers, body.data[0].id);
    expect(checked).toMatchObject({
      ingestion_method: 'batch',
      compliance_status: 'PASSED',
      is_verified: true,
    });
  });

  it('answers 207 for a mixed batch: each item’s fate at its index, the good ones applied', async () => {
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, { name: 'Holder', dot_number: '555000' });
    await createCarrier(t, user.headers, { name: 'Other', tms_carrier_id: 'tms-other' });
    const res = await batch(user.headers, [
      { carrier: { name: 'Good A', mc_number: '620001' } },
      { carrier: { name: 'Bad Phone', phone: 'not a phone' } },
      { carrier: { name: 'Repeat of A', mc_number: '0620001' } },
      { carrier: { name: 'Steals DOT', tms_carrier_id: 'tms-other', dot_number: '555000' } },
      { notacarrier: true },
      {
        carrier: {
          name: 'Good B',
          dot_number: '620002',
          contacts: [{ contact_type: 'DRIVER', phone: '2125550100' }],
        },
      },
    ]);
    expect(res.statusCode).toBe(207);
    const body = res.json();
    expect(body.data.map((d: { index: number; status: string }) => [d.index, d.status])).toEqual([
      [0, 'created'],
      [1, 'failed'],
      [2, 'skipped'],
      [3, 'failed'],
      [4, 'failed'],
      [5, 'created'],
    ]);
    expect(body.data[1].error).toEqual({
      code: 'validation_error',
      message: 'Not a valid phone number',
      param: 'carriers[1].carrier.phone',
    });
    expect(body.data[2].error).toMatchObject({
      code: 'duplicate_in_batch',
      param: 'carriers[2].carrier.mc_number',
    });
    expect(body.data[3].error).toMatchObject({
      code: 'already_exists',
      param: 'carriers[3].carrier.dot_number',
    });
    expect(body.data[4].error).toMatchObject({ code: 'validation_error', param: 'carriers[4].carrier' });
    expect(body.errors.map((e: { index: number }) => e.index)).toEqual([1, 2, 3, 4]);
    expect(body.results[1]).toMatchObject({
      success: false,
      error_code: 'validation_error',
      carrier_id: null,
    });
    const { total, created, updated, skipped, failed } = body.summary;
    expect(created + updated + skipped + failed).toBe(total);
    expect(body.summary).toEqual({ total: 6, created: 2, updated: 0, skipped: 1, failed: 3 });
    expect(body).toMatchObject({ success: false, successful: 2, failed: 4 });

    const list = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/carriers?order_by=name&order_desc=false',
        headers: user.headers,
      })
    ).json();
    expect(list.data.map((c: { name: string }) => c.name)).toEqual(['Good A', 'Good B', 'Holder', 'Other']);
    const goodB = list.data.find((c: { name: string }) => c.name === 'Good B');
    expect(goodB.contacts).toEqual([
      expect.objectContaining({ contact_type: 'DRIVER', phone: '+12125550100' }),
    ]);
  });

  it('keeps a carrier disabled when a later ingestion sends is_active true', async () => {
    const { user } = await createTenant(t);
    const first = await batch(user.headers, [
      { carrier: { name: 'Sleepy', mc_number: '630001', is_active: false } },
    ]);
    const id = first.json().data[0].id;
    const later = await batch(user.headers, [
      { carrier: { name: 'Sleepy', mc_number: '630001', is_active: true } },
    ]);
    expect(later.json().data[0]).toMatchObject({ status: 'updated', id });
    const carrier = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${id}`, headers: user.headers })
    ).json();
    expect(carrier.is_active).toBe(false);
  });

  it('creates lane preferences carried by items and counts them', async () => {
    const { user } = await createTenant(t);
    const lane = {
      origin: { city: 'Dallas', state: 'tx' },
      destination: { state: 'GA' },
      equipment_type: 'VAN',
      routing_guide_tier: 2,
    };
    const res = await batch(user.headers, [
      {
        carrier: { name: 'Laner', mc_number: '640001' },
        lanes: [lane, { ...lane, destination: { state: 'FL' } }],
      },
    ]);
    expect(res.json().results[0].lanes_created).toBe(2);
    const again = await batch(user.headers, [
      { carrier: { name: 'Laner', mc_number: '640001' }, lanes: [lane] },
    ]);
    expect(again.json().results[0].lanes_created).toBe(0);
    const prefs = await t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${res.json().data[0].id}/lane-preferences`,
      headers: user.headers,
    });
    expect(prefs.json().pagination.total_count).toBe(2);
  });

  it('refuses an empty batch and one over 1000 items with 422 on carriers', async () => {
    const { user } = await createTenant(t);
    const empty = await batch(user.headers, []);
    expect(empty.statusCode).toBe(422);
    expect(empty.json().error.param).toBe('carriers');
    const tooMany = await batch(
      user.headers,
      Array.from({ length: 1001 }, (_, i) => ({ carrier: { name: `C${i}` } })),
    );
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().error.param, tooMany.body.slice(0, 300)).toBe('carriers');
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/carriers', headers: user.headers });
    expect(list.json().pagination.total_count).toBe(0);
  });

  it('accepts a batch body over the 1 MiB general limit (batch endpoints take 16 MiB)', async () => {
    const { user } = await createTenant(t);
    // Valid items, about 1.3 KB each: six contacts with long names.
    const contacts = Array.from({ length: 6 }, (_, k) => ({
      contact_type: 'OTHER',
      name: `${k}`.padEnd(200, 'n'),
    }));
    const carriers = Array.from({ length: 1000 }, (_, i) => ({ carrier: { name: `Big ${i}`, contacts } }));
    const body = JSON.stringify({ carriers });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/carriers/batch',
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().summary).toEqual({ total: 1000, created: 1000, updated: 0, skipped: 0, failed: 0 });
  });

  it('accepts a text/csv upload counted against the uploads limit', async () => {
    const { user } = await createTenant(t);
    const csv = [
      'name,mc_number,phone,equipment_types,is_onboarded,on_time_pickup_pct',
      '"Comma, Inc.",650001,(212) 555-0101,VAN;REEFER,yes,88.5',
      'Bad Pct,650002,,FLATBED,no,140',
      '',
    ].join('\r\n');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/carriers/batch',
      headers: { ...user.headers, 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(res.statusCode).toBe(207);
    expect(res.headers['x-ratelimit-limit']).toBe('7');
    const body = res.json();
    expect(body.data[1].error.param).toBe('carriers[1].carrier.on_time_pickup_pct');
    const created = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${body.data[0].id}`, headers: user.headers })
    ).json();
    expect(created).toMatchObject({
      name: 'Comma, Inc.',
      mc_number: '650001',
      phone: '+12125550101',
      equipment_types: ['VAN', 'REEFER'],
      is_onboarded: true,
      on_time_pickup_pct: 88.5,
      ingestion_method: 'csv',
    });
  });

  it('reads a CSV of over 1 MiB arriving in chunks that split its characters, cells and lines', async () => {
    const { user } = await createTenant(t);
    // 190 code points of one to four bytes each, a comma and a doubled quote in every quoted cell.
    const long = (i: number, tag: string) => `${tag}${i}, ""${'é✓😀a'.repeat(46)}`.slice(0, 190);
    const rows = Array.from({ length: 1000 }, (_, i) =>
      [`T${i}`, `"${long(i, 'n')}"`, `"${long(i, 'd')}"`, `"${long(i, 'r')}"`].join(','),
    );
    const bytes = Buffer.from(['tms_carrier_id,name,dispatcher_name,carrier_rep_name', ...rows].join('\r\n'));
    expect(bytes.length).toBeGreaterThan(1024 * 1024);
    const size = 65_537;
    const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, k) =>
      bytes.subarray(k * size, k * size + size),
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/carriers/batch',
      headers: { ...user.headers, 'content-type': 'text/csv' },
      payload: Readable.from(chunks),
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const body = res.json();
    expect(body.summary).toEqual({ total: 1000, created: 1000, updated: 0, skipped: 0, failed: 0 });
    const unquote = (cell: string) => cell.replaceAll('""', '"');
    for (const i of [0, 413, 999]) {
      const carrier = (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/carriers/${body.data[i].id}`,
          headers: user.headers,
        })
      ).json();
      expect(carrier).toMatchObject({
        tms_carrier_id: `T${i}`,
        name: unquote(long(i, 'n')),
        dispatcher_name: unquote(long(i, 'd')),
        carrier_rep_name: unquote(long(i, 'r')),
      });
    }
  });

  it('refuses a CSV with an unknown column', async () => {
    const { user } = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/carriers/batch',
      headers: { ...user.headers, 'content-type': 'text/csv' },
      payload: 'name,favourite_colour\nA,blue\n',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.message).toMatch(/favourite_colour/);
  });

  it('replays a keyed batch without applying it twice', async () => {
    const { user } = await createTenant(t);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/carriers/batch',
        headers: { ...user.headers, 'idempotency-key': 'batch-1' },
        payload: { carriers: [{ carrier: { name: 'Once', mc_number: '660001' } }] },
      });
    const first = await send();
    const second = await send();
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().data).toEqual(first.json().data);
    expect(second.json().data[0].status).toBe('created');
  });
});
