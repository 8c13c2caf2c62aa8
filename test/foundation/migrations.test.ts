import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.js';
import { migrationsFolder, readMigrationJournal, runMigrations } from '../../src/db/migrate.js';
import { systemScope } from '../../src/domain/scope.js';
import { defined } from '../../src/lib/defined.js';
import { buildTestApp } from '../helpers/app.js';
import { useEmptyDatabases } from '../helpers/database.js';

const emptyDatabase = useEmptyDatabases();

/** A copy of the migrations folder holding those before `tag` only. */
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envoy-migrations-'));
  const journal = readMigrationJournal();
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  expect(cut).toBeGreaterThan(0);
  const kept = journal.entries.slice(0, cut);
  for (const e of kept) cpSync(path.join(migrationsFolder, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  mkdirSync(path.join(dir, 'meta'));
  writeFileSync(path.join(dir, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: kept }), {
    flag: 'w',
  });
  return dir;
}

/**
 * A database migrated up to (not including) `tag`, holding the rows `rowsSql` writes as the code
 * before that migration left them, then upgraded by the service's own migrator (as `npm start`
 * does, under a tiny pool). Returns its URL.
 */
async function upgradedFrom(tag: string, rowsSql: string): Promise<string> {
  const url = await emptyDatabase();
  const before = migrationsBefore(tag);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migrate(drizzle({ client }), { migrationsFolder: before });
    await client.query(rowsSql);
  } finally {
    await client.end();
    rmSync(before, { recursive: true, force: true });
  }
  const upgrading = createDatabase(url, { poolMax: 1, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 });
  try {
    await runMigrations(upgrading.pool);
  } finally {
    await upgrading.close();
  }
  return url;
}

describe('migrations', () => {
  it('apply every migration through a pool whose statement timeout is far below what they take', async () => {
    // The pool's timeout is the per-request cap (DB_STATEMENT_TIMEOUT_MS); creating the extensions
    // alone takes longer than 5 ms, so the migration runner must lift it for its own session.
    const database = createDatabase(await emptyDatabase(), {
      poolMax: 1,
      connectTimeoutMs: 10_000,
      statementTimeoutMs: 5,
    });
    try {
      await runMigrations(database.pool);
      const { rows } = await database.pool.query<{ n: number; timeout: string }>(
        `SELECT (SELECT count(*)::int FROM drizzle.__drizzle_migrations) AS n,
                current_setting('statement_timeout') AS timeout`,
      );
      expect(defined(rows[0], 'rows[0]').n).toBe(
        readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql')).length,
      );
      // The pooled connection is handed back with the cap it had.
      expect(defined(rows[0], 'rows[0]').timeout).toBe('5ms');
    } finally {
      await database.close();
    }
  });

  it('0016 moves each stop into its load row: ids, order, values and datetimes kept, a re-send unchanged', async () => {
    // A load with its stops as the stops table held them, written in the order of neither
    // position nor id, with a datetime stored from a non-UTC offset and nulls inside jsonb.
    const url = await upgradedFrom(
      '0016_load_stops_in_row',
      `INSERT INTO organizations (id, name) VALUES ('org_m16', 'Migrating Brokerage');
         INSERT INTO loads (id, organization_id, load_number, equipment_type, origin_city, origin_state,
             destination_city, destination_state, pickup_date, delivery_date, search_text)
           VALUES ('load_m16', 'org_m16', 'M-16', 'VAN', 'Chicago', 'IL', 'Dallas', 'TX',
             '2026-03-02T14:00:00Z', '2026-03-04T18:00:00Z', 'm-16 van chicago il dallas tx');
         INSERT INTO stops (id, organization_id, load_id, position, stop_number, type, is_pickup, is_dropoff,
             expected_date, city, state, country, postal_code)
           VALUES ('stop_m16_c', 'org_m16', 'load_m16', 2, 3, 'Dropoff', false, true,
             '2026-03-04T18:00:00Z', 'Dallas', 'TX', 'US', '75201');
         INSERT INTO stops (id, organization_id, load_id, position, stop_number, type, is_pickup, is_dropoff,
             expected_date, planned_start, planned_end, actual_arrival_datetime, carrier_eta, notes,
             special_instructions, reference_numbers, contact, city, state, country, street, latitude, longitude)
           VALUES ('stop_m16_a', 'org_m16', 'load_m16', 0, 1, 'Pickup', true, false,
             '2026-03-02T09:00:00-05:00', '2026-03-02T13:00:00.250Z', NULL, '2026-03-02T14:05:00Z',
             '2026-03-02T13:30:00Z', 'Dock 4', '["Call ahead"]',
             '[{"value": "PU-1", "type": null}]',
             '{"type": null, "first_name": "Ana", "last_name": null, "phone": "+13125550100", "email": null}',
             'Chicago', 'IL', 'US', '1 Main St', 41.88, -87.63);
         INSERT INTO stops (id, organization_id, load_id, position, stop_number, type, is_pickup, is_dropoff,
             city, state, country)
           VALUES ('stop_m16_b', 'org_m16', 'load_m16', 1, 2, NULL, NULL, NULL, 'Memphis', 'TN', 'US');`,
    );

    const t = await buildTestApp({ databaseUrl: url });
    try {
      const { key } = await t.services.apiKeys.create(systemScope('org_m16'), { name: 'migration' });
      const headers = { 'x-api-key': key };
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/loads/load_m16', headers });
      expect(res.statusCode, res.body).toBe(200);
      const load = res.json();
      expect(load.stops).toEqual([
        {
          id: 'stop_m16_a',
          stop_number: 1,
          type: 'Pickup',
          is_pickup: true,
          is_dropoff: false,
          location: {
            city: 'Chicago',
            state: 'IL',
            street: '1 Main St',
            postal_code: null,
            company_name: null,
            county: null,
            country: 'US',
            latitude: 41.88,
            longitude: -87.63,
          },
          expected_date: '2026-03-02T14:00:00.000Z',
          planned: { start: '2026-03-02T13:00:00.250Z', end: null },
          pickup_delivery_number: null,
          actual_stop_times: { arrival_datetime: '2026-03-02T14:05:00.000Z', departure_datetime: null },
          carrier_eta: '2026-03-02T13:30:00.000Z',
          reference_numbers: [{ value: 'PU-1', type: null }],
          notes: 'Dock 4',
          special_instructions: ['Call ahead'],
          contact: { type: null, first_name: 'Ana', last_name: null, phone: '+13125550100', email: null },
          contacts: null,
        },
        expect.objectContaining({ id: 'stop_m16_b', stop_number: 2, type: null, is_pickup: null }),
        expect.objectContaining({
          id: 'stop_m16_c',
          stop_number: 3,
          type: 'Dropoff',
          expected_date: '2026-03-04T18:00:00.000Z',
        }),
      ]);
      const stored = await t.database.pool.query(`SELECT stops FROM loads WHERE id = 'load_m16'`);
      // Fields without a value are left out, as the app writes them.
      expect(Object.keys(stored.rows[0].stops[1]).sort()).toEqual([
        'city',
        'country',
        'id',
        'state',
        'stop_number',
      ]);

      // The TMS re-sends the load with the same stops: the ids stay, and (the load row holding what
      // the app would have written) nothing is written at all.
      const resent = await t.app.inject({
        method: 'POST',
        url: '/api/v1/loads',
        headers,
        payload: {
          load_number: 'M-16',
          equipment_type: 'VAN',
          stops: load.stops.map((s: Record<string, unknown>) => {
            const { id: _id, planned, actual_stop_times, location, ...rest } = s;
            return {
              ...rest,
              location,
              planned,
              actual_stop_times,
              // The same instant spelt with the offset it was first sent with.
              ...(s.id === 'stop_m16_a' ? { expected_date: '2026-03-02T09:00:00-05:00' } : {}),
            };
          }),
        },
      });
      expect(resent.statusCode, resent.body).toBe(200);
      const after = await t.app.inject({ method: 'GET', url: '/api/v1/loads/load_m16', headers });
      expect(after.json().stops).toEqual(load.stops);
      expect(after.json().updated_at).toBe(load.updated_at);
    } finally {
      await t.close();
    }
  });

  it('0021 says who booked each load already booked: the agent for an offer it accepted on arrival, else a user', async () => {
    // As the code before 0021 left them: the intake inserts an accepted offer in one statement
    // (created_at = updated_at); a PATCH stamps updated_at later.
    const url = await upgradedFrom(
      '0021_offer_booked_by',
      `INSERT INTO organizations (id, name) VALUES ('org_m21', 'Booked Brokerage');
         INSERT INTO carriers (id, organization_id, name, mc_number) VALUES ('car_m21', 'org_m21', 'Early Freight', '210021');
         INSERT INTO loads (id, organization_id, load_number, equipment_type, load_status)
           SELECT 'load_m21_' || n, 'org_m21', 'M-21-' || n, 'VAN', 'Quotes Received' FROM generate_series(1, 4) n;
         INSERT INTO offers (id, organization_id, load_id, offer_amount, status, source, carrier_id, accepted_at,
             created_at, updated_at)
           VALUES
             ('ofr_m21_agent', 'org_m21', 'load_m21_1', 1900, 'accepted', 'agent', 'car_m21',
               '2026-01-05T10:00:00.004Z', '2026-01-05T10:00:00Z', '2026-01-05T10:00:00Z'),
             ('ofr_m21_agent_patched', 'org_m21', 'load_m21_2', 1950, 'accepted', 'agent', NULL,
               '2026-01-05T11:00:00Z', '2026-01-05T10:00:00Z', '2026-01-05T11:00:00Z'),
             ('ofr_m21_api', 'org_m21', 'load_m21_3', 2000, 'accepted', 'api', NULL,
               '2026-01-05T12:00:00Z', '2026-01-05T12:00:00Z', '2026-01-05T12:00:00Z'),
             ('ofr_m21_pending', 'org_m21', 'load_m21_4', 2100, 'pending', 'agent', NULL,
               NULL, '2026-01-05T10:00:00Z', '2026-01-05T10:00:00Z');`,
    );

    const t = await buildTestApp({ databaseUrl: url });
    try {
      const { key } = await t.services.apiKeys.create(systemScope('org_m21'), { name: 'migration' });
      const headers = { 'x-api-key': key };
      const bookingOf = async (n: number) => {
        const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads/load_m21_${n}`, headers });
        expect(res.statusCode, res.body).toBe(200);
        return res.json().booked_offer;
      };
      expect(await bookingOf(1)).toEqual({
        offer_id: 'ofr_m21_agent',
        carrier_id: 'car_m21',
        carrier_name: 'Early Freight',
        carrier_mc_number: '210021',
        amount: 1900,
        booked_at: '2026-01-05T10:00:00.004Z',
        booked_by: 'agent',
      });
      expect(await bookingOf(2)).toMatchObject({ offer_id: 'ofr_m21_agent_patched', booked_by: 'user' });
      expect(await bookingOf(3)).toMatchObject({ offer_id: 'ofr_m21_api', booked_by: 'user' });
      expect(await bookingOf(4)).toBeNull();
      const { rows } = await t.database.pool.query(
        `SELECT id FROM offers WHERE organization_id = 'org_m21' AND accepted_by IS NULL`,
      );
      expect(rows).toEqual([{ id: 'ofr_m21_pending' }]);
      const stats = await t.app.inject({ method: 'GET', url: '/api/v1/loads/stats', headers });
      expect(stats.json().by_tab).toMatchObject({ booked: 3, active_offers: 1 });
    } finally {
      await t.close();
    }
  });

  it('0022 gives loads the agent worked before it their results, counted from the records they left', async () => {
    const url = await upgradedFrom(
      '0022_agent_results',
      `INSERT INTO organizations (id, name) VALUES ('org_m22', 'Worked Brokerage');
         INSERT INTO carriers (id, organization_id, name, routing_guide_tier) VALUES ('car_m22', 'org_m22', 'Early Freight', 2);
         INSERT INTO loads (id, organization_id, load_number, equipment_type, load_status, assigned_to_ai_agent,
             origin_state, destination_state, posted_rate, max_buy_rate)
           SELECT 'load_m22_' || n, 'org_m22', 'M-22-' || n, 'VAN', 'Quotes Received', true, 'IL', 'TX', 2000, 2400
           FROM generate_series(1, 3) n;
         INSERT INTO agent_load_states (load_id, organization_id, waves_planned, created_at)
           VALUES ('load_m22_1', 'org_m22', 2, '2026-01-05T08:00:00Z'), ('load_m22_2', 'org_m22', 1, '2026-01-05T08:00:00Z');
         INSERT INTO outreaches (id, organization_id, carrier_id, load_id, modality, direction, status, is_automated,
             carrier_engaged, created_at)
           VALUES ('otr_m22_1', 'org_m22', 'car_m22', 'load_m22_1', 'email', 'outbound', 'completed', true, true, '2026-01-05T09:00:00Z'),
                  ('otr_m22_2', 'org_m22', 'car_m22', 'load_m22_1', 'call', 'outbound', 'no_response', true, false, '2026-01-05T09:05:00Z'),
                  ('otr_m22_3', 'org_m22', 'car_m22', 'load_m22_2', 'email', 'outbound', 'pending', true, NULL, '2026-01-05T09:00:00Z');
         INSERT INTO offers (id, organization_id, load_id, offer_amount, status, source, carrier_id, accepted_at,
             accepted_by, counter_amount, created_at, updated_at)
           VALUES ('ofr_m22_1', 'org_m22', 'load_m22_1', 2300, 'rejected', 'agent', 'car_m22', NULL, NULL, 2000,
                     '2026-01-05T09:30:00Z', '2026-01-05T09:30:00Z'),
                  ('ofr_m22_2', 'org_m22', 'load_m22_1', 1950, 'accepted', 'agent', 'car_m22', '2026-01-05T10:00:00Z',
                     'agent', NULL, '2026-01-05T10:00:00Z', '2026-01-05T10:00:00Z');`,
    );

    const t = await buildTestApp({ databaseUrl: url });
    try {
      const { key } = await t.services.apiKeys.create(systemScope('org_m22'), { name: 'migration' });
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/agent/results?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z',
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode, res.body).toBe(200);
      // The third load was not taken up yet: it counts as handed at the upgrade, outside January.
      expect(res.json().data).toEqual([
        expect.objectContaining({
          loads_handed: 2,
          booked_by_agent: 1,
          covered: 1,
          time_to_cover_p50_seconds: 7200,
          booked_vs_posted_median: 0.975,
          contacts: { call: 1, email: 1, whatsapp: 0, total: 2 },
          connects: 1,
          offers: 2,
          rounds: 3,
          bookings: 1,
          fall_offs: 0,
        }),
      ]);
      const third = await t.app.inject({
        method: 'GET',
        url: '/api/v1/loads/load_m22_3/agent-activity',
        headers: { 'x-api-key': key },
      });
      expect(third.json()).toMatchObject({ status: 'waiting_for_wave', timeline: [{ kind: 'handed' }] });
    } finally {
      await t.close();
    }
  });

  it('0033 gives escalations raised before it the hosted shape: vetting, their reason as message, active or responded', async () => {
    const url = await upgradedFrom(
      '0033_escalation_shape',
      `INSERT INTO organizations (id, name) VALUES ('org_m33', 'Escalated Brokerage');
         INSERT INTO carriers (id, organization_id, name) VALUES ('car_m33', 'org_m33', 'Risky Freight');
         INSERT INTO loads (id, organization_id, load_number, equipment_type, load_status)
           VALUES ('load_m33_1', 'org_m33', 'M-33-1', 'VAN', 'Dispatched'),
                  ('load_m33_2', 'org_m33', 'M-33-2', 'VAN', 'Dispatched');
         INSERT INTO offers (id, organization_id, load_id, offer_amount, status, source, carrier_id, accepted_at)
           VALUES ('ofr_m33_1', 'org_m33', 'load_m33_1', 1900, 'accepted', 'api', 'car_m33', '2026-01-05T10:00:00Z');
         INSERT INTO escalations (id, organization_id, load_id, status, reason, resolved_at, created_at, updated_at)
           VALUES ('esc_m33_active', 'org_m33', 'load_m33_1', 'active', 'carrier_high_risk: out of service', NULL,
                   '2026-01-05T11:00:00Z', '2026-01-05T11:00:00Z'),
                  ('esc_m33_done', 'org_m33', 'load_m33_2', 'resolved', NULL, '2026-01-05T12:30:00Z',
                   '2026-01-05T12:00:00Z', '2026-01-05T12:30:00Z');`,
    );
    const t = await buildTestApp({ databaseUrl: url });
    try {
      const { key } = await t.services.apiKeys.create(systemScope('org_m33'), { name: 'migration' });
      const headers = { 'x-api-key': key };
      const list = async (loadId: string, status?: string) => {
        const q = status ? `?status=${status}` : '';
        const res = await t.app.inject({
          method: 'GET',
          url: `/api/v1/loads/${loadId}/escalations${q}`,
          headers,
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.json();
      };
      expect(await list('load_m33_1')).toEqual([
        expect.objectContaining({
          id: 'esc_m33_active',
          status: 'ACTIVE',
          agent_type: 'CARRIER_VETTING',
          escalation_type: 'carrier_high_risk',
          message: 'carrier_high_risk: out of service',
          offer_id: 'ofr_m33_1',
          responded_at: null,
        }),
      ]);
      expect(await list('load_m33_2')).toEqual([]);
      expect(await list('load_m33_2', 'RESPONDED')).toEqual([
        expect.objectContaining({
          id: 'esc_m33_done',
          status: 'RESPONDED',
          message: 'The booked carrier turned high risk',
          offer_id: null,
          responded_at: '2026-01-05T12:30:00.000Z',
          resolved_at: '2026-01-05T12:30:00.000Z',
        }),
      ]);
      const stats = await t.app.inject({ method: 'GET', url: '/api/v1/loads/stats', headers });
      expect(stats.json().by_tab).toMatchObject({ active_escalations: 1 });
    } finally {
      await t.close();
    }
  });
});
