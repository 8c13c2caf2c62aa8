import { performance } from 'node:perf_hooks';
import { systemScope } from '../src/domain/scope.js';
import { defined } from '../src/lib/defined.js';
import { RESULT_GROUPS } from '../src/modules/agent-results/results-schemas.js';
import {
  benchConfig,
  benchDatabase,
  listenApp,
  measure,
  optionsFromEnv,
  printTable,
  type Scenario,
  sized,
} from './lib/harness.js';
import { type Figure, recordResults } from './lib/results.js';

const LOADS = sized('BENCH_LOADS', 1_000_000, 2_000);
/** One load in ten is handed to the agent. */
const AGENT_SHARE = 10;
const CHUNK = 100_000;
/** Connections per measurement (BENCH_CONNECTIONS, comma-separated). */
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,4').split(',').map(Number);
const GROUPS = RESULT_GROUPS;

/**
 * GET /agent/results at scale: one organization with LOADS loads (1,000,000), one in ten handed to
 * the agent (their ledger rows written by the real triggers as the loads are inserted), handed over
 * the last 90 days, 60% of them booked. Measures every `group_by` over the whole 90 days (every
 * handed load) and the default 30 days, beside GET /loads/{id} as the baseline of the same run.
 * The tables are analyzed after seeding, as autovacuum would (this machine runs with it off).
 */
export async function run() {
  const db = await benchDatabase();
  const { app, url, services } = await listenApp(db.database, benchConfig({ WORKERS_ENABLED: 'false' }));
  try {
    const org = await services.auth.createOrganization('Bench results');
    const { key } = await services.apiKeys.create(systemScope(org.id), { name: 'bench' });
    const started = performance.now();
    const pool = db.database.pool;
    for (let from = 0; from < LOADS; from += CHUNK) {
      await pool.query(
        `INSERT INTO loads (id, organization_id, load_number, equipment_type, load_status, posted_rate, max_buy_rate,
           suggested_market_rate, customer_rate, customer_name, carrier_rep_user_id, assigned_to_ai_agent,
           origin_state, destination_state, pickup_date, search_text, created_at, updated_at)
         SELECT 'load_' || md5('R' || i)::uuid, $1, 'R-' || i, (ARRAY['VAN','REEFER','FLATBED'])[1 + i % 3],
           'Unassigned', 1500 + i % 1500, 1900 + i % 1500, 1600 + i % 1500, 2400 + i % 1500,
           'Customer ' || (i % 40), 'usr_rep_' || (i % 25), i % ${AGENT_SHARE} = 0,
           (ARRAY['IL','TX','GA','CA','WA','NY','FL','OH'])[1 + i % 8],
           (ARRAY['TX','GA','CA','AZ','NV','PA','NC','MI','TN'])[1 + (i / 8) % 9],
           now() + ((i % 9) || ' days')::interval, 'r-' || i, now(), now()
         FROM generate_series($2::int, $3::int) AS i`,
        [org.id, from + 1, Math.min(from + CHUNK, LOADS)],
      );
    }
    // Spread the handed loads over 90 days; book 60% of them (a third by users), some fell off.
    await pool.query(
      `UPDATE agent_load_results r SET
         handed_at = now() - ((h % 129600) || ' minutes')::interval,
         contacts_call = h % 4, contacts_email = h % 3, contacts_whatsapp = h % 2, connects = h % 3,
         offers = h % 5, counters = h % 2, handoffs = (h % 11 = 0)::int, waves = 1 + h % 3,
         first_contact_at = now() - ((h % 129600) || ' minutes')::interval + interval '5 minutes'
       FROM (SELECT load_id, hashtext(load_id) & 2147483647 AS h FROM agent_load_results WHERE organization_id = $1) x
       WHERE r.load_id = x.load_id`,
      [org.id],
    );
    await pool.query(
      `UPDATE agent_load_results r SET
         booked_at = r.handed_at + ((h % 600) || ' minutes')::interval, booked_offer_id = 'ofr_' || r.load_id,
         booked_amount = 1400 + h % 1600, booked_carrier_id = 'car_' || (h % 500), booked_tier = 1 + h % 4,
         booked_channel = (ARRAY['call','email','whatsapp'])[1 + h % 3],
         booked_by = CASE WHEN h % 3 = 0 THEN 'user' ELSE 'agent' END, booked_after_contact = h % 6 <> 0,
         booked_fell_off = h % 37 = 0, booked_posted_rate = 1500 + h % 1500, booked_market_rate = 1600 + h % 1500,
         booked_max_buy_rate = 1900 + h % 1500, booked_customer_rate = 2400 + h % 1500,
         bookings = 1, fall_offs = (h % 37 = 0)::int
       FROM (SELECT load_id, hashtext(load_id || 'b') & 2147483647 AS h FROM agent_load_results WHERE organization_id = $1) x
       WHERE r.load_id = x.load_id AND x.h % 5 < 3`,
      [org.id],
    );
    await pool.query('VACUUM ANALYZE loads, agent_load_results');
    const { rows } = await pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM agent_load_results WHERE organization_id = $1',
      [org.id],
    );
    console.log(
      `seeded ${LOADS} loads, ${rows[0]?.n} handed to the agent, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const headers = { 'x-api-key': key };
    const { rows: sample } = await pool.query<{ id: string }>(
      'SELECT id FROM loads WHERE organization_id = $1 LIMIT 1',
      [org.id],
    );
    const from90 = new Date(Date.now() - 91 * 86_400_000).toISOString();
    const scenarios: Scenario[] = [
      {
        name: 'GET /loads/{id} (baseline)',
        url: `${url}/api/v1/loads/${defined(sample[0], 'sample[0]').id}`,
        headers,
      },
      { name: 'results, 90 days, one row', url: `${url}/api/v1/agent/results?from=${from90}`, headers },
      ...GROUPS.map((g) => ({
        name: `results, 90 days, group_by=${g}`,
        url: `${url}/api/v1/agent/results?from=${from90}&group_by=${g}`,
        headers,
      })),
      {
        name: 'results, 30 days (default), group_by=lane',
        url: `${url}/api/v1/agent/results?group_by=lane`,
        headers,
      },
      {
        name: 'results, 90 days, CSV by week',
        url: `${url}/api/v1/agent/results?from=${from90}&group_by=week`,
        headers: { ...headers, accept: 'text/csv' },
      },
    ];
    // A dashboard asks one at a time; four at once shows what concurrent dashboards cost.
    const figures: Figure[] = [];
    for (const connections of CONNECTIONS) {
      const measured = await measure(scenarios, { durationSeconds: 5, ...optionsFromEnv(), connections });
      printTable(
        `GET /agent/results over ${rows[0]?.n} handed loads (${LOADS} loads in the organization), ${connections} connection(s)`,
        measured,
        defined(scenarios[0], 'scenarios[0]').name,
      );
      figures.push(
        ...measured.flatMap((m) => [
          { name: `${m.name}, ${connections} connection(s): p50`, value: m.p50, unit: 'ms' },
          { name: `${m.name}, ${connections} connection(s): p99`, value: m.p99, unit: 'ms' },
        ]),
      );
    }
    await recordResults('agent-results', figures);
  } finally {
    await app.close();
    await db.close();
  }
}
