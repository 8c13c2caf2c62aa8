import Fastify from 'fastify';
import type pg from 'pg';
import { systemScope } from '../src/http/authentication.js';
import { ApiKeysService } from '../src/modules/api-keys/api-keys-service.js';
import { AuthService } from '../src/modules/auth/auth-service.js';
import { findLoadView } from '../src/modules/loads/loads-repository.js';
import { EQUIPMENT_TYPES, LOAD_MODES } from '../src/modules/loads/loads-tables.js';
import { benchDatabase, listen, listenApp, measure, optionsFromEnv, printTable } from './lib/harness.js';

/**
 * The load list at a million loads: 1,000,000 loads with 2-4 stops each in one organization, and
 * 100,000 in a second one, seeded set-based in SQL; then the list's hot shapes and GET by id, the
 * latter against a bare Fastify route running the same prepared query. Prints the table and the
 * EXPLAIN ANALYZE of the statements behind the slowest scenario.
 *
 * LOADS=200000 seeds fewer (for a quick look); BENCH_DATABASE_URL uses a server of your own.
 */

const CITIES: [string, string][] = [
  ['Chicago', 'IL'],
  ['Dallas', 'TX'],
  ['Houston', 'TX'],
  ['Atlanta', 'GA'],
  ['Memphis', 'TN'],
  ['Nashville', 'TN'],
  ['Denver', 'CO'],
  ['Phoenix', 'AZ'],
  ['Los Angeles', 'CA'],
  ['Fresno', 'CA'],
  ['Seattle', 'WA'],
  ['Portland', 'OR'],
  ['Boise', 'ID'],
  ['Salt Lake City', 'UT'],
  ['Reno', 'NV'],
  ['Las Vegas', 'NV'],
  ['Albuquerque', 'NM'],
  ['El Paso', 'TX'],
  ['San Antonio', 'TX'],
  ['Austin', 'TX'],
  ['Oklahoma City', 'OK'],
  ['Tulsa', 'OK'],
  ['Wichita', 'KS'],
  ['Kansas City', 'MO'],
  ['St. Louis', 'MO'],
  ['Omaha', 'NE'],
  ['Des Moines', 'IA'],
  ['Minneapolis', 'MN'],
  ['Milwaukee', 'WI'],
  ['Detroit', 'MI'],
  ['Grand Rapids', 'MI'],
  ['Indianapolis', 'IN'],
  ['Columbus', 'OH'],
  ['Cleveland', 'OH'],
  ['Cincinnati', 'OH'],
  ['Louisville', 'KY'],
  ['Pittsburgh', 'PA'],
  ['Philadelphia', 'PA'],
  ['Newark', 'NJ'],
  ['Boston', 'MA'],
  ['Hartford', 'CT'],
  ['Albany', 'NY'],
  ['Buffalo', 'NY'],
  ['Baltimore', 'MD'],
  ['Richmond', 'VA'],
  ['Charlotte', 'NC'],
  ['Raleigh', 'NC'],
  ['Columbia', 'SC'],
  ['Savannah', 'GA'],
  ['Jacksonville', 'FL'],
  ['Orlando', 'FL'],
  ['Tampa', 'FL'],
  ['Miami', 'FL'],
  ['Birmingham', 'AL'],
  ['Mobile', 'AL'],
  ['Jackson', 'MS'],
  ['New Orleans', 'LA'],
  ['Little Rock', 'AR'],
  ['Shreveport', 'LA'],
  ['Laredo', 'TX'],
];
// Statuses as a TMS would send them, with the load_status the default mapping gives (null: unknown).
const TMS_STATUSES: [string, string | null][] = [
  ['Open', 'Unassigned'],
  ['Quoted', 'Quotes Received'],
  ['Booked', 'Dispatched'],
  ['In Transit', 'En Route'],
  ['Delivered', 'Delivered'],
  ['Cancelled', 'Cancelled'],
  ['Delayed', 'Exception'],
  ['New', 'Unassigned'],
  ['On Hold', null],
];

const SEARCH_CITY = 'Memphis';

async function seedOrganization(client: pg.PoolClient, orgId: string, count: number, prefix: string) {
  const started = Date.now();
  // Loads: created over the past ~year, oldest first; attributes spread by cheap hashes of i.
  await client.query(
    `WITH src AS (
       SELECT i,
              now() - ((($2::bigint - i) * 31)::text || ' seconds')::interval AS created_at,
              (i * 7919) % $5::int AS o, (i * 104729 + 17) % $5::int AS d,
              (i * 13) % 9 AS s
       FROM generate_series(1::bigint, $2::bigint) AS i
     ), cities AS (SELECT * FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS c(city, state, n)),
     statuses AS (SELECT * FROM unnest($6::text[], $7::text[]) WITH ORDINALITY AS st(tms, mapped, n))
     INSERT INTO loads (id, organization_id, load_number, tms_load_id, external_id, equipment_type, mode,
       load_status, tms_status, weight, distance, commodity, posted_rate, max_buy_rate, is_posted,
       last_posted_at, carrier_name, customer_name, customer_rate, margin, carrier_rep_user_name,
       origin_city, origin_state, destination_city, destination_state, pickup_date, delivery_date,
       rep_names, search_text, created_at, updated_at)
     SELECT 'load_' || md5($8 || i)::uuid, $1, $8 || '-' || i, 'TMS' || $8 || i, 'EXT' || $8 || i,
       ($9::text[])[(1 + (i * 7) % 20)::int], ($10::text[])[(1 + i % 6)::int],
       st.mapped, st.tms, 10000 + (i % 35000), 50 + (i * 37) % 2500, 'General freight',
       800 + (i * 53) % 4000, 900 + (i * 53) % 4000, i % 3 = 0,
       CASE WHEN i % 3 = 0 THEN src.created_at + interval '1 hour' END,
       'Carrier ' || (i % 2000), 'Customer ' || (i % 500), 1000 + (i * 53) % 4000, 150 + i % 400,
       'Rep ' || (i % 40),
       oc.city, oc.state, dc.city, dc.state,
       src.created_at + ((i % 10) || ' days')::interval,
       src.created_at + ((i % 10 + 2) || ' days')::interval,
       ARRAY[lower('Rep ' || (i % 40))],
       lower(concat_ws(' ', $8 || '-' || i, 'EXT' || $8 || i, 'TMS' || $8 || i, 'Carrier ' || (i % 2000),
         'Customer ' || (i % 500), ($9::text[])[(1 + (i * 7) % 20)::int], oc.city || ' ' || oc.state,
         dc.city || ' ' || dc.state)),
       src.created_at, src.created_at
     FROM src
     JOIN cities oc ON oc.n = src.o + 1
     JOIN cities dc ON dc.n = (CASE WHEN src.d = src.o THEN (src.d + 1) % $5::int ELSE src.d END) + 1
     JOIN statuses st ON st.n = src.s + 1`,
    [
      orgId,
      count,
      CITIES.map((c) => c[0]),
      CITIES.map((c) => c[1]),
      CITIES.length,
      TMS_STATUSES.map((s) => s[0]),
      TMS_STATUSES.map((s) => s[1]),
      prefix,
      EQUIPMENT_TYPES,
      LOAD_MODES,
    ],
  );
  // Stops: 2-4 per load; the first picks up at the origin, the last drops at the destination.
  await client.query(
    `INSERT INTO stops (id, organization_id, load_id, position, stop_number, type, is_pickup, is_dropoff,
       expected_date, city, state, country)
     SELECT 'stop_' || md5(l.id || '/' || p)::uuid, l.organization_id, l.id, p, p + 1,
       CASE WHEN p = 0 THEN 'Pickup' ELSE 'Dropoff' END, p = 0, p > 0,
       CASE WHEN p = 0 THEN l.pickup_date ELSE l.delivery_date - ((n - 1 - p) || ' hours')::interval END,
       CASE WHEN p = 0 THEN l.origin_city WHEN p = n - 1 THEN l.destination_city ELSE ($2::text[])[1 + (hashtext(l.id) & 1023) % 60] END,
       CASE WHEN p = 0 THEN l.origin_state WHEN p = n - 1 THEN l.destination_state ELSE ($3::text[])[1 + (hashtext(l.id) & 1023) % 60] END,
       'US'
     FROM (SELECT id, organization_id, origin_city, origin_state, destination_city, destination_state,
                  pickup_date, delivery_date, 2 + (hashtext(id) & 3) % 3 AS n
           FROM loads WHERE organization_id = $1) l
     CROSS JOIN LATERAL generate_series(0, l.n - 1) AS p`,
    [orgId, CITIES.map((c) => c[0]), CITIES.map((c) => c[1])],
  );
  // Offers on 8% of loads (a pending one on 3%), calls on 5%, open outreaches on 2%.
  await client.query(
    `INSERT INTO offers (id, organization_id, load_id, offer_amount, status, source, carrier_id, created_at, updated_at)
     SELECT 'ofr_' || md5(l.id || '/' || k)::uuid, l.organization_id, l.id, 900 + (l.h % 3000) + k * 25,
       CASE WHEN l.h % 100 < 3 AND k = 0 THEN 'pending' ELSE 'rejected' END, 'api',
       'car_' || ((l.h + k * 7) % 5000), l.created_at, l.created_at
     FROM (SELECT id, organization_id, created_at, hashtext(id) & 2147483647 AS h FROM loads WHERE organization_id = $1) l
     CROSS JOIN LATERAL generate_series(0, (l.h % 3)) AS k
     WHERE l.h % 100 < 8`,
    [orgId],
  );
  await client.query(
    `INSERT INTO calls (id, organization_id, load_id, status, call_time, created_at, updated_at)
     SELECT 'call_' || md5(id)::uuid, organization_id, id, 'COMPLETED', created_at, created_at, created_at
     FROM loads WHERE organization_id = $1 AND (hashtext(id) & 2147483647) % 100 BETWEEN 10 AND 14`,
    [orgId],
  );
  await client.query(
    `INSERT INTO outreaches (id, organization_id, carrier_id, load_id, modality, status, created_at, updated_at)
     SELECT 'otr_' || md5(id)::uuid, organization_id, 'car_1', id, 'call', 'active', created_at, created_at
     FROM loads WHERE organization_id = $1 AND (hashtext(id) & 2147483647) % 100 BETWEEN 20 AND 21`,
    [orgId],
  );
  console.log(`seeded ${count} loads for ${orgId} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Secondary indexes of the seeded tables: dropped before the bulk insert, rebuilt after it. */
async function secondaryIndexes(client: pg.PoolClient) {
  const { rows } = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
     WHERE i.schemaname = 'public' AND i.tablename IN ('loads', 'stops', 'offers', 'calls', 'outreaches')
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  return rows;
}

/** Every query the app sends while `fn` runs, with its parameters. */
async function captureQueries(pool: pg.Pool, fn: () => Promise<void>) {
  const captured: { text: string; values: unknown[] }[] = [];
  const original = pool.query.bind(pool);
  (pool as unknown as { query: unknown }).query = (config: unknown, values?: unknown) => {
    if (typeof config === 'object' && config && 'text' in config) {
      const c = config as { text: string; values?: unknown[] };
      captured.push({ text: c.text, values: c.values ?? (values as unknown[]) ?? [] });
    } else if (typeof config === 'string') {
      captured.push({ text: config, values: (values as unknown[]) ?? [] });
    }
    return (original as (...a: unknown[]) => unknown)(config, values);
  };
  try {
    await fn();
  } finally {
    (pool as unknown as { query: unknown }).query = original;
  }
  return captured;
}

export async function run() {
  const loadCount = Number(process.env.LOADS ?? 1_000_000);
  const otherCount = Math.round(loadCount / 10);
  const db = await benchDatabase();
  const { pool } = db.database;
  console.log(`database: ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : 'embedded PostgreSQL'}`);
  const { app, url } = await listenApp(db.database);
  const bare = Fastify();
  try {
    const auth = new AuthService(db.database.db, app.tokens);
    const org = await auth.createOrganization('Bench Brokerage');
    const other = await auth.createOrganization('Other Brokerage');
    const keys = new ApiKeysService(db.database.db, app.credentials);
    const { key } = await keys.create(systemScope(org.id), { name: 'bench' });
    const headers = { 'x-api-key': key };

    const client = await pool.connect();
    try {
      await client.query(`SET maintenance_work_mem = '512MB'`);
      await client.query('SET statement_timeout = 0');
      const indexes = await secondaryIndexes(client);
      for (const i of indexes) await client.query(`DROP INDEX "${i.indexname}"`);
      await seedOrganization(client, org.id, loadCount, 'BL');
      await seedOrganization(client, other.id, otherCount, 'OL');
      const started = Date.now();
      for (const i of indexes) await client.query(i.indexdef);
      await client.query('VACUUM ANALYZE loads, stops, offers, calls, outreaches, load_status_counts');
      console.log(`indexes rebuilt and vacuumed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const { rows } = await client.query(
        `SELECT (SELECT count(*) FROM loads WHERE organization_id = $1)::int AS counted,
                (SELECT sum(n) FROM load_status_counts WHERE organization_id = $1)::int AS counter`,
        [org.id],
      );
      if (rows[0].counted !== rows[0].counter) throw new Error(`counter drifted: ${JSON.stringify(rows[0])}`);
    } finally {
      client.release();
    }

    const { rows: picked } = await pool.query<{ id: string; day: string }>(
      `SELECT id, to_char(pickup_date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM loads
       WHERE organization_id = $1 ORDER BY created_at DESC OFFSET 5000 LIMIT 1`,
      [org.id],
    );
    const loadId = picked[0]!.id;
    const from = picked[0]!.day;
    const to = new Date(Date.parse(`${from}T00:00:00Z`) + 6 * 86_400_000).toISOString().slice(0, 10);
    const scope = systemScope(org.id);
    bare.get('/loads/:id', async (request) => {
      const row = await findLoadView(db.database.db, scope, (request.params as { id: string }).id);
      return row;
    });
    const bareUrl = await listen(bare);

    const api = `${url}/api/v1`;
    const scenarios = [
      { name: 'GET /loads page 1 (default sort)', url: `${api}/loads`, headers },
      { name: 'GET /loads?page=500', url: `${api}/loads?page=500`, headers },
      {
        name: `GET /loads?search=${SEARCH_CITY.toLowerCase()}`,
        url: `${api}/loads?search=${SEARCH_CITY.toLowerCase()}`,
        headers,
      },
      {
        name: 'GET /loads status + equipment_type + pickup range',
        url: `${api}/loads?status=Unassigned&equipment_type=VAN&pickup_date_from=${from}&pickup_date_to=${to}`,
        headers,
      },
      { name: 'GET /loads?tab=active_offers', url: `${api}/loads?tab=active_offers`, headers },
      { name: 'GET /loads/{id} (API key)', url: `${api}/loads/${loadId}`, headers },
      { name: 'bare Fastify, same get-by-id query', url: `${bareUrl}/loads/${loadId}` },
    ];

    // Each scenario once, checking its answer and keeping the SQL it ran for EXPLAIN ANALYZE.
    const statements = new Map<string, { text: string; values: unknown[] }[]>();
    for (const s of scenarios) {
      let body = '';
      const queries = await captureQueries(pool, async () => {
        const res = await fetch(s.url, { headers: s.headers });
        body = await res.text();
        if (!res.ok) throw new Error(`${s.name}: ${res.status} ${body}`);
      });
      const parsed = JSON.parse(body);
      if (parsed.pagination) console.log(`${s.name}: total_count ${parsed.pagination.total_count}`);
      statements.set(s.name, queries);
    }

    const rows = await measure(scenarios, { durationSeconds: 15, ...optionsFromEnv() });
    printTable(
      `loads (${loadCount.toLocaleString('en-US')} loads + ${otherCount.toLocaleString('en-US')} in a second organization)`,
      rows,
      'bare Fastify, same get-by-id query',
    );

    const slowest = [...rows].filter((r) => !r.name.startsWith('bare')).sort((a, b) => b.p99 - a.p99)[0]!;
    // BENCH_EXPLAIN=all explains every scenario, not only the slowest.
    const explained = process.env.BENCH_EXPLAIN === 'all' ? rows : [slowest];
    for (const r of explained) {
      console.log(`\n#### ${r === slowest ? 'slowest scenario by p99: ' : ''}${r.name}`);
      await explain(pool, statements.get(r.name) ?? []);
    }
  } finally {
    await bare.close();
    await app.close();
    await db.close();
  }
}

async function explain(pool: pg.Pool, queries: { text: string; values: unknown[] }[]) {
  for (const q of queries) {
    if (/^\s*(select|with)/i.test(q.text) && !/api_keys/.test(q.text)) {
      const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values);
      console.log(`\n${q.text}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
  }
}
