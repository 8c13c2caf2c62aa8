import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { type JsonObject, objectOf, objectsOf } from '../../src/lib/json-object.js';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { stopPayload } from '../helpers/load-factories.js';
import { statementsDuring } from '../helpers/statements.js';

const SORTS = [
  'created_at',
  'updated_at',
  'load_number',
  'pickup_date',
  'delivery_date',
  'posted_rate',
  'distance',
  'last_posted_at',
] as const;
type Sort = (typeof SORTS)[number];

interface Listed {
  id: string;
  equipment_type: string;
  load_number: string;
  created_at: string;
  updated_at: string;
  posted_rate: number | null;
  distance: number | null;
  last_posted_at: string | null;
  stops: { type: string; expected_date: string | null }[];
}

/** The sort value of a listed load, as the list defines it (pickup: first pickup stop; delivery: last drop-off). */
function sortValue(l: Listed, field: Sort): string | number | null {
  switch (field) {
    case 'pickup_date':
      return l.stops.find((s) => s.type === 'Pickup')?.expected_date ?? null;
    case 'delivery_date':
      return [...l.stops].reverse().find((s) => s.type === 'Dropoff')?.expected_date ?? null;
    default:
      return l[field];
  }
}

/** The order the list promises: by the field, nulls last both ways, then by id the same way round. */
function expectedOrder(loads: Listed[], field: Sort, desc: boolean): string[] {
  const sign = desc ? -1 : 1;
  return [...loads]
    .sort((a, b) => {
      const x = sortValue(a, field);
      const y = sortValue(b, field);
      if (x === null && y !== null) return 1;
      if (y === null && x !== null) return -1;
      if (x !== null && y !== null && x !== y) return (x < y ? -1 : 1) * sign;
      return (a.id < b.id ? -1 : 1) * sign;
    })
    .map((l) => l.load_number);
}

const at = (day: string | null) => (day ? `2026-05-${day}T10:00:00Z` : null);

/** A load whose every sort column is set (or left null) on purpose; ties are deliberate. */
function load(
  n: number,
  o: {
    rate: number | null;
    distance: number | null;
    pickup: string | null;
    delivery: string | null;
    posted: boolean;
  },
) {
  const pickup = { ...stopPayload('Pickup'), expected_date: at(o.pickup) };
  const dropoff = { ...stopPayload('Dropoff'), expected_date: at(o.delivery) };
  return {
    load_number: `S-${n}`,
    equipment_type: n % 3 === 0 ? 'REEFER' : 'VAN',
    posted_rate: o.rate,
    distance: o.distance,
    is_posted: o.posted,
    stops: [pickup, dropoff],
  };
}

describe('GET /loads order_by', () => {
  const t = useTestApp();
  let headers: Record<string, string>;
  let loads: Listed[];

  beforeAll(async () => {
    const tenant = await createTenant(t);
    headers = (await createApiKey(t, tenant.user.headers)).headers;
    // Two batches, so created_at, updated_at and last_posted_at take two values with ties inside each.
    const first = [
      load(1, { rate: 1000, distance: 500, pickup: '10', delivery: '12', posted: true }),
      load(2, { rate: null, distance: 500, pickup: null, delivery: '12', posted: false }),
      load(3, { rate: 1000, distance: null, pickup: '10', delivery: null, posted: true }),
      load(4, { rate: 2500, distance: 120.5, pickup: '08', delivery: '09', posted: false }),
    ];
    const second = [
      load(5, { rate: null, distance: null, pickup: null, delivery: null, posted: true }),
      load(6, { rate: 1000, distance: 900, pickup: '11', delivery: '12', posted: false }),
      load(7, { rate: 1800, distance: 500, pickup: '10', delivery: '15', posted: true }),
    ];
    for (const batch of [first, second]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/loads/batch',
        headers,
        payload: { loads: batch },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    // The first batch was written a minute before the second (moved back rather than waited for).
    const moved = await t.database.pool.query(
      `UPDATE loads SET created_at = created_at - interval '1 minute',
         updated_at = updated_at - interval '1 minute', last_posted_at = last_posted_at - interval '1 minute'
       WHERE organization_id = $1 AND load_number = ANY($2)`,
      [tenant.orgId, first.map((l) => l.load_number)],
    );
    expect(moved.rowCount).toBe(first.length);
    const all = await t.app.inject({ method: 'GET', url: '/api/v1/loads?page_size=100', headers });
    loads = all.json().data;
    expect(loads).toHaveLength(7);
  });

  const cases = SORTS.flatMap((field) => [true, false].map((desc) => [field, desc] as const));

  it.each(cases)(
    'sorts by %s (descending: %s) with nulls last and ties broken by id, page after page',
    async (field, desc) => {
      const pages: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await t.app.inject({
          method: 'GET',
          url: `/api/v1/loads?order_by=${field}&order_desc=${desc}&page=${page}&page_size=3`,
          headers,
        });
        expect(res.statusCode, res.body).toBe(200);
        pages.push(...res.json().data.map((l: Listed) => l.load_number));
      }
      expect(pages).toEqual(expectedOrder(loads, field, desc));
    },
  );

  it.each(cases)('sorts a filtered list by %s (descending: %s) the same way', async (field, desc) => {
    const pages: string[] = [];
    for (let page = 1; page <= 2; page++) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/loads?equipment_type=VAN&order_by=${field}&order_desc=${desc}&page=${page}&page_size=3`,
        headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      pages.push(...res.json().data.map((l: Listed) => l.load_number));
    }
    const vans = loads.filter((l) => l.equipment_type === 'VAN');
    expect(vans.length).toBeGreaterThan(3);
    expect(pages).toEqual(expectedOrder(vans, field, desc));
  });

  it('keeps loads without a value last both ways (posted_rate)', async () => {
    for (const desc of [true, false]) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/loads?order_by=posted_rate&order_desc=${desc}&page_size=100`,
        headers,
      });
      const rates = res.json().data.map((l: Listed) => l.posted_rate);
      expect(rates.slice(-2)).toEqual([null, null]);
    }
  });
});

/**
 * The plans behind the list, with sorting and sequential scans priced out of reach: a Sort below
 * the page's LIMIT then means no index reads the rows in the order asked for, and a count that
 * does not name the filter's index means the filter has none. Robust on a tiny table because the
 * planner is not left to prefer a cheap sequential scan.
 */
describe('GET /loads plans', () => {
  const t = useTestApp();
  let headers: Record<string, string>;

  beforeAll(async () => {
    const tenant = await createTenant(t);
    headers = (await createApiKey(t, tenant.user.headers)).headers;
    // 5000 loads with values spread as a brokerage's are (written in SQL: only the plans matter
    // here), so each filter is selective enough that its own index is the cheapest way in.
    await t.database.pool.query(
      `INSERT INTO loads (id, organization_id, load_number, equipment_type, mode, tms_status, load_status,
         customer_name, origin_city, destination_city, rep_names, posted_rate, distance, is_posted,
         last_posted_at, pickup_date, delivery_date)
       SELECT 'load_plan_' || i, $1, 'P-' || i, (ARRAY['VAN', 'REEFER', 'FLATBED', 'TANKER'])[1 + i % 4],
         (ARRAY['FTL', 'LTL', 'PTL', 'RAIL', 'DED', 'PASS'])[1 + i % 6],
         (ARRAY['Open', 'Booked', 'In Transit', 'Delivered', 'Cancelled', 'Quoted', 'Delayed', 'New'])[1 + i % 8],
         (ARRAY['Unassigned', 'Dispatched', 'En Route', 'Delivered', 'Cancelled', 'Quotes Received', 'Exception', 'Unassigned'])[1 + i % 8],
         'Customer ' || (i % 200), 'City ' || (i % 60), 'Town ' || (i * 7 % 60), ARRAY['rep ' || (i % 40)],
         NULLIF(800 + (i * 53) % 4000, 800), 50 + (i * 37) % 2500, i % 3 = 0,
         CASE WHEN i % 3 = 0 THEN timestamptz '2025-06-01' + i * interval '1 hour' END,
         timestamptz '2025-06-01' + i * interval '90 minutes', timestamptz '2025-06-03' + i * interval '90 minutes'
       FROM generate_series(1, 5000) AS i`,
      [tenant.orgId],
    );
    await t.database.pool.query('ANALYZE loads, load_filter_values');
  });

  /** The SQL the app sends for one request, captured from the pool. */
  const statementsOf = (query: string) =>
    statementsDuring(t.database.pool, async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers });
      expect(res.statusCode, res.body).toBe(200);
    });

  async function planOf(statement: { text: string; values: unknown[] }) {
    const client: pg.PoolClient = await t.database.pool.connect();
    // In one transaction with SET LOCAL: behind a transaction-mode pooler, statements outside a
    // transaction may each run on another server connection.
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_sort = off');
      await client.query('SET LOCAL enable_seqscan = off');
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
      return defined(objectOf(objectsOf(rows[0]?.['QUERY PLAN'])[0]?.Plan), 'the plan');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  const cases = SORTS.flatMap((field) => [true, false].map((desc) => [field, desc] as const));

  it.each(cases)(
    'reads the page of order_by=%s (descending: %s) from an index, without sorting',
    async (field, desc) => {
      const statements = await statementsOf(`order_by=${field}&order_desc=${desc}&page=2&page_size=5`);
      const page = statements.find(
        (s) => /limit/i.test(s.text) && /"loads"\."id" in \((select|with)/i.test(s.text),
      );
      expect(page, 'the page query').toBeDefined();
      const limits = findAll(await planOf(defined(page, 'page')), (n) => n['Node Type'] === 'Limit');
      expect(limits.length).toBeGreaterThan(0);
      for (const limit of limits) {
        expect(findAll(limit, (n) => n['Node Type'] === 'Sort')).toEqual([]);
      }
    },
  );

  const filters: [string, string][] = [
    ['customer_name=customer%2017', 'loads_organization_customer_idx'],
    ['origin_city=city%2017', 'loads_organization_origin_city_idx'],
    ['destination_city=town%2017', 'loads_organization_destination_city_idx'],
    ['posted_rate_min=4700', 'loads_organization_rate'],
    ['distance_max=100', 'loads_organization_distance'],
    ['pickup_date_from=2025-07-01&pickup_date_to=2025-07-02', 'loads_organization_pickup'],
    ['delivery_date_from=2025-07-01&delivery_date_to=2025-07-02', 'loads_organization_delivery'],
    ['last_posted_at_from=2025-07-01&last_posted_at_to=2025-07-02', 'loads_organization_last_posted'],
    ['updated_at_to=2020-01-01', 'loads_organization_updated_idx'],
    ['created_at_to=2020-01-01', 'loads_organization_created_idx'],
    ['customer_name=customer%2017&status=Unassigned', 'loads_organization_customer_idx'],
    ['carrier_rep_name=rep%2017,rep%2018', 'loads_rep_names_idx'],
  ];
  it.each(filters)('counts %s on %s', async (query, index) => {
    const statements = await statementsOf(query);
    const count = statements.find((s) => /count\(\*\)/i.test(s.text) && /pg_current_snapshot/.test(s.text));
    expect(count, 'the count query').toBeDefined();
    const plan = await planOf(defined(count, 'count'));
    const used = findAll(plan, (n) => typeof n['Index Name'] === 'string');
    const names = used.map((n) => String(n['Index Name'] ?? n['Relation Name']));
    expect(
      names.some((n) => n.startsWith(index)),
      names.join(', '),
    ).toBe(true);
    expect(findAll(plan, (n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'loads')).toEqual([]);
  });
});

/** A node of EXPLAIN's JSON plan; its children are under `Plans`. */
type PlanNode = JsonObject;

function findAll(node: PlanNode, test: (n: PlanNode) => boolean): PlanNode[] {
  const out = test(node) ? [node] : [];
  for (const child of objectsOf(node.Plans)) out.push(...findAll(child, test));
  return out;
}

describe('GET /loads pages of a list with many matches', () => {
  const t = useTestApp();
  let headers: Record<string, string>;
  let orgId: string;

  // 3000 loads created a minute apart (load i at minute i). Every third is in Spread City (matches
  // spread over the sort order: the page is found by walking it); the 400 oldest are in Far City
  // (a walk from the newest meets none of them for 2600 loads: the page is read from its matches).
  beforeAll(async () => {
    const tenant = await createTenant(t);
    orgId = tenant.orgId;
    headers = (await createApiKey(t, tenant.user.headers)).headers;
    await t.database.pool.query(
      `INSERT INTO loads (id, organization_id, load_number, equipment_type, mode, tms_status, load_status,
         origin_city, customer_name, created_at, updated_at)
       SELECT 'load_many_' || lpad(i::text, 5, '0'), $1, 'M-' || i, 'VAN', 'FTL', 'Open', 'Unassigned',
         CASE WHEN i <= 400 THEN 'Far City' WHEN i % 3 = 0 THEN 'Spread City' ELSE 'Other City' END,
         'Customer ' || (i % 7),
         timestamptz '2026-01-01' + (i / 2) * interval '1 minute', timestamptz '2026-01-01'
       FROM generate_series(1, 3000) AS i`,
      [orgId],
    );
    await t.database.pool.query('ANALYZE loads, load_filter_values');
  });

  async function expectedPage(where: string, order: string, page: number, size: number) {
    const { rows } = await t.database.pool.query<{ load_number: string }>(
      `SELECT load_number FROM loads WHERE organization_id = $1 AND ${where}
       ORDER BY ${order} LIMIT ${size} OFFSET ${(page - 1) * size}`,
      [orgId],
    );
    return rows.map((r) => r.load_number);
  }

  const lists: [string, string, string, string][] = [
    ['origin_city=spread', "origin_city = 'Spread City'", 'created_at DESC, id DESC', ''],
    ['origin_city=spread', "origin_city = 'Spread City'", 'created_at ASC, id ASC', '&order_desc=false'],
    ['origin_city=far', "origin_city = 'Far City'", 'created_at DESC, id DESC', ''],
    ['origin_city=far', "origin_city = 'Far City'", 'load_number DESC', '&order_by=load_number'],
    [
      'customer_name=customer%203',
      "customer_name = 'Customer 3'",
      'updated_at DESC, id DESC',
      '&order_by=updated_at',
    ],
  ];
  it.each(lists)('reads the pages of %s (%s, by %s) exactly', async (query, where, order, sort) => {
    for (const [page, size] of [
      [1, 10],
      [3, 10],
      [2, 50],
      [9, 40],
    ] as const) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/loads?${query}${sort}&page=${page}&page_size=${size}`,
        headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      const got = res.json().data.map((l: Listed) => l.load_number);
      expect(got, `page ${page} of ${size}`).toEqual(await expectedPage(where, order, page, size));
    }
  });
});
