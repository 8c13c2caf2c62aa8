import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { PgDatabase } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { OPEN_LOAD_STATUSES } from '../src/domain/freight.js';
import { systemScope } from '../src/domain/scope.js';
import { type VapiServerAuth, vapiSignature } from '../src/integrations/voice/vapi-server-auth.js';
import { defined } from '../src/lib/defined.js';
import { objectOf } from '../src/lib/json-object.js';
import { cpuSince, cpuTimes } from './lib/cpu.js';
import { benchConfig, benchDatabase, listenApp, sized, smoke } from './lib/harness.js';
import { ingest, percentile } from './lib/load-payloads.js';
import { recordResults } from './lib/results.js';

const LOADS = sized('BENCH_LOADS', 5000, 120);
const CARRIERS = sized('BENCH_CARRIERS', 300, 20);
const REQUESTS = sized('BENCH_REQUESTS', 400, 16);
const ROUNDS = sized('BENCH_ROUNDS', 5, 1);
const CONNECTIONS = sized('BENCH_CONNECTIONS', 8, 2);
const COUNTED = sized('BENCH_COUNTED', 20, 3);
const SECRET = 'bench-vapi-hmac-secret-0123456789';
const HMAC: Extract<VapiServerAuth, { scheme: 'hmac' }> = {
  scheme: 'hmac',
  secret: SECRET,
  algorithm: 'sha256',
  signatureHeader: 'x-signature',
  timestampHeader: 'x-timestamp',
  encoding: 'hex',
  payloadFormat: '{timestamp}.{body}',
  toleranceSeconds: 300,
};

/**
 * The voice assistant's submit_offer, end to end: Vapi's `tool-calls` server message, signed with
 * the HMAC credential, posted to /integrations/voice/events of an app on a real database holding
 * LOADS loads (POST /loads/batch, 2-3 stops each), CARRIERS carriers and some offers. Each request
 * is a carrier's first rate on a call of its own (a fresh call, load and toolCallId), above the
 * posted rate. ROUNDS rounds of REQUESTS requests over CONNECTIONS connections; the median of the
 * rounds' p50 and p99. Then COUNTED offers one at a time, counting the SQL statements each runs
 * (every statement on a pg client, BEGIN and COMMIT included) and the source files on their stacks.
 *
 * BENCH_DATABASE_URL uses a server of your own (else an embedded PostgreSQL).
 */
export async function run() {
  const db = await benchDatabase(20);
  const { pool } = db.database;
  const config = benchConfig({
    WORKERS_ENABLED: 'false',
    VOICE_PROVIDER: 'vapi',
    VAPI_API_KEY: 'bench-vapi-key',
    VAPI_PHONE_NUMBER_ID: 'pn_bench',
    VAPI_WEBHOOK_SECRET: SECRET,
    VAPI_SERVER_CREDENTIAL_ID: 'cred_bench',
    PUBLIC_BASE_URL: 'https://envoy.example',
    // Nothing is placed: the calls are written in SQL, so Vapi's API is never asked.
    VAPI_BASE_URL: 'http://127.0.0.1:9',
  });
  const { app, url, services } = await listenApp(db.database, config);
  try {
    const org = await services.auth.createOrganization('Voice Bench Brokerage');
    const headers = {
      'x-api-key': (await services.apiKeys.create(systemScope(org.id), { name: 'bench' })).key,
    };
    await ingest(`${url}/api/v1`, headers, 'VT', 0, LOADS);
    await seed(pool, org.id);
    const total = ROUNDS * REQUESTS + COUNTED + CONNECTIONS;
    const calls = await openCalls(pool, org.id, total);
    console.log(
      `${LOADS} loads, ${CARRIERS} carriers, ${await count(pool, 'offers', org.id)} offers before; ` +
        `${calls.length} calls (one submit_offer each)`,
    );
    let next = 0;
    const take = () => defined(calls[next++], 'a call for the next request');
    const decisions = new Map<string, number>();
    const send = async (call: BenchCall) => {
      const started = performance.now();
      const res = await submitOffer(url, call);
      const ms = performance.now() - started;
      const body = await res.text();
      if (res.status !== 200) throw new Error(`submit_offer answered ${res.status}: ${body.slice(0, 300)}`);
      const decision = decisionOf(body);
      decisions.set(decision, (decisions.get(decision) ?? 0) + 1);
      return ms;
    };
    // Warm-up: one request a connection.
    await Promise.all(Array.from({ length: CONNECTIONS }, () => send(take())));
    const rounds: { p50: number; p99: number; rps: number }[] = [];
    const cpu = cpuTimes();
    for (let r = 0; r < ROUNDS; r++) {
      const times: number[] = [];
      let left = REQUESTS;
      const started = performance.now();
      const worker = async () => {
        while (left > 0) {
          left -= 1;
          times.push(await send(take()));
        }
      };
      await Promise.all(Array.from({ length: CONNECTIONS }, worker));
      const seconds = (performance.now() - started) / 1000;
      rounds.push({ p50: percentile(times, 50), p99: percentile(times, 99), rps: times.length / seconds });
    }
    const nodeMs = cpuSince(cpu).nodeMs / (ROUNDS * REQUESTS);
    const load = os.loadavg()[0] ?? 0;
    const counted = await countStatements(pool, () => send(take()), COUNTED);
    report(rounds, counted, decisions);
    console.log(`\nnode CPU per submit_offer (the app and this client): ${nodeMs.toFixed(1)} ms`);
    console.log(`\nload average (1 min) while measuring: ${load.toFixed(1)} on ${os.cpus().length} CPUs`);
    const med = (xs: number[]) => percentile(xs, 50);
    await recordResults('voice-tools', [
      { name: 'submit_offer p50 (median of rounds)', value: med(rounds.map((r) => r.p50)), unit: 'ms' },
      {
        name: 'submit_offer p99 (median of rounds)',
        value: med(rounds.map((r) => r.p99)),
        unit: 'ms',
        target: '≤ 300',
      },
      { name: 'submit_offer one at a time, p50', value: med(counted.oneAtATime), unit: 'ms' },
      { name: 'SQL statements per submit_offer, median', value: med(counted.perRequest), unit: '' },
      { name: 'node CPU per submit_offer', value: nodeMs, unit: 'ms' },
    ]);
  } finally {
    await app.close();
    await db.close();
  }
}

interface BenchCall {
  vapiId: string;
  envoyId: string;
  amount: number;
}

/** Carriers, and offers on about one load in twelve (a few rounds each), as a brokerage has them. */
async function seed(pool: pg.Pool, orgId: string) {
  await pool.query(
    `INSERT INTO carriers (id, organization_id, name, mc_number, dot_number, phone, email,
                           compliance_status, risk_level)
     SELECT 'car_vt_' || n, $1, 'Carrier ' || n, (300000 + n)::text, (3000000 + n)::text,
            '+1312555' || lpad(n::text, 4, '0'), 'dispatch' || n || '@carrier.example', 'PASSED', 'low'
     FROM generate_series(0, $2::int - 1) AS n`,
    [orgId, CARRIERS],
  );
  await pool.query(
    `INSERT INTO offers (id, organization_id, load_id, offer_amount, status, source, carrier_id)
     SELECT 'ofr_' || md5(l.id || '/' || k)::uuid, l.organization_id, l.id, 900 + (l.h % 3000) + k * 25,
       'rejected', 'api', 'car_vt_' || ((l.h + k * 7) % $2::int)
     FROM (SELECT id, organization_id, hashtext(id) & 2147483647 AS h FROM loads WHERE organization_id = $1) l
     CROSS JOIN LATERAL generate_series(0, l.h % 3) AS k
     WHERE l.h % 100 < 8`,
    [orgId, CARRIERS],
  );
  await pool.query('ANALYZE');
}

/**
 * Calls in progress, each on an open load with a posted rate and a carrier of its own pair, as an
 * outbound load-booking call would have them; the offer named is 5 to 30 % above the posted rate.
 */
async function openCalls(pool: pg.Pool, orgId: string, n: number): Promise<BenchCall[]> {
  const { rows } = await pool.query<{ id: string; vapi: string; amount: number }>(
    `WITH open AS (
       SELECT id, load_number, posted_rate, row_number() OVER (ORDER BY id) - 1 AS i
       FROM loads
       WHERE organization_id = $1 AND posted_rate IS NOT NULL
         AND (load_status IS NULL OR load_status = ANY($4::text[]))
     ), picked AS (
       SELECT 'call_vt_' || g AS id, o.id AS load_id, o.load_number, o.posted_rate,
              'car_vt_' || ((g * 7 + g / (SELECT count(*) FROM open)) % $3::int) AS carrier_id, g
       FROM generate_series(0, $2::int - 1) AS g
       JOIN open o ON o.i = g % (SELECT count(*) FROM open)
     )
     INSERT INTO calls (id, organization_id, status, call_direction, phone_number, to_number,
                        call_type, purpose, load_id, load_number, carrier_id, provider, provider_call_id,
                        call_start_time)
     SELECT id, $1, 'IN_PROGRESS', 'OUTBOUND', '+13125550100', '+13125550100', 'LOAD_BOOKING',
            'load_booking', load_id, load_number, carrier_id, 'vapi', 'vapi-' || id, now()
     FROM picked
     RETURNING id, provider_call_id AS vapi,
       (SELECT round(p.posted_rate * (1.05 + (p.g % 26) / 100.0))::int FROM picked p WHERE p.id = calls.id) AS amount`,
    [orgId, n, CARRIERS, OPEN_LOAD_STATUSES],
  );
  if (rows.length < n) throw new Error(`only ${rows.length} calls for ${n} requests`);
  return rows.map((r) => ({ vapiId: r.vapi, envoyId: r.id, amount: r.amount }));
}

let sent = 0;

/** Vapi's `tool-calls` server message for one submit_offer, signed as the credential does. */
function submitOffer(url: string, call: BenchCall) {
  sent += 1;
  const toolCall = {
    id: `call_tool_${sent}_${call.envoyId}`,
    type: 'function',
    function: { name: 'submit_offer', arguments: JSON.stringify({ offer_amount: call.amount }) },
  };
  const now = Date.now();
  const body = JSON.stringify({
    message: {
      type: 'tool-calls',
      timestamp: now,
      call: {
        id: call.vapiId,
        orgId: 'vapi-org',
        createdAt: new Date(now).toISOString(),
        updatedAt: new Date(now).toISOString(),
        assistantOverrides: { metadata: { envoy_call_id: call.envoyId } },
      },
      toolCallList: [toolCall],
      toolWithToolCallList: [{ type: 'function', function: { name: 'submit_offer' }, toolCall }],
    },
  });
  const timestamp = String(now);
  return fetch(`${url}/api/v1/integrations/voice/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-timestamp': timestamp,
      'x-signature': vapiSignature(HMAC, body, timestamp),
    },
    body,
  });
}

function decisionOf(body: string): string {
  const parsed: { results?: { error?: string; metadata?: { decision?: string } }[] } = JSON.parse(body);
  const first = parsed.results?.[0];
  if (!first) return 'no result';
  if (first.error) {
    if (smoke) throw new Error(`submit_offer failed: ${first.error}`);
    return `error: ${first.error.slice(0, 60)}`;
  }
  return first.metadata?.decision ?? 'no decision';
}

async function count(pool: pg.Pool, table: string, orgId: string) {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE organization_id = $1`, [
    orgId,
  ]);
  return defined(rows[0], 'count').n;
}

/**
 * Runs `send` `times` times, one at a time, counting the statements every pg client sends meanwhile
 * (the app's pool and its transactions alike), and the files of ours on the stack of each query
 * built (a drizzle builder or execute, or a bare pool.query): where the request goes to the database.
 */
async function countStatements(pool: pg.Pool, send: () => Promise<number>, times: number) {
  let statements = 0;
  const files = new Map<string, number>();
  const note = () => {
    for (const file of new Set(ourFiles(new Error().stack ?? '')))
      files.set(file, (files.get(file) ?? 0) + 1);
  };
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 200;
  const undo: (() => void)[] = [];
  // Each patched method forwards its arguments as they came, to the method it replaces.
  const patch = (target: object, name: string, before: (...args: unknown[]) => void) => {
    const own = Object.getOwnPropertyDescriptor(target, name);
    const original: unknown = Reflect.get(target, name);
    if (typeof original !== 'function') throw new Error(`no ${name} to count`);
    Object.defineProperty(target, name, {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        before(...args);
        return Reflect.apply(original, this, args);
      },
    });
    undo.push(() => {
      if (own) Object.defineProperty(target, name, own);
      else Reflect.deleteProperty(target, name);
    });
  };
  let last: string[] = [];
  let timed: { text: string; ms: number }[] = [];
  const proto = pg.Client.prototype;
  const query = proto.query;
  // pg's query overloads are passed through untouched; a promise it returns is timed.
  const timing = function (this: unknown, ...args: unknown[]): unknown {
    statements += 1;
    return timed_(Reflect.apply(query, this, args), args);
  };
  // A statement's time from its send to its answer: a promise's (a pool's own statements are sent
  // with a callback here, and timed on the pool's query instead).
  const timed_ = (result: unknown, args: unknown[]) => {
    if (!(result instanceof Promise)) return result;
    const [first] = args;
    const text = (typeof first === 'string' ? first : String(objectOf(first)?.text ?? ''))
      .replace(/\s+/g, ' ')
      .slice(0, 110);
    const started = performance.now();
    const entry = { text, ms: 0 };
    timed.push(entry);
    result.then(
      () => {
        entry.ms = performance.now() - started;
      },
      () => {},
    );
    return result;
  };
  Object.defineProperty(proto, 'query', { configurable: true, writable: true, value: timing });
  undo.push(() =>
    Object.defineProperty(proto, 'query', { configurable: true, writable: true, value: query }),
  );
  const onPool = pool.query;
  const ownQuery = Object.getOwnPropertyDescriptor(pool, 'query');
  Object.defineProperty(pool, 'query', {
    configurable: true,
    writable: true,
    value: (...args: unknown[]): unknown => {
      note();
      return timed_(Reflect.apply(onPool, pool, args), args);
    },
  });
  undo.push(() => {
    if (ownQuery) Object.defineProperty(pool, 'query', ownQuery);
    else Reflect.deleteProperty(pool, 'query');
  });
  for (const m of ['select', 'selectDistinct', 'insert', 'update', 'delete', 'execute', 'transaction']) {
    patch(PgDatabase.prototype, m, note);
  }
  const perRequest: number[] = [];
  const oneAtATime: number[] = [];
  try {
    for (let i = 0; i < times; i++) {
      const before = statements;
      timed = [];
      oneAtATime.push(await send());
      last = timed.map((t) => `${t.ms.toFixed(1).padStart(6)} ms  ${t.text}`);
      perRequest.push(statements - before);
    }
  } finally {
    for (const u of undo.reverse()) u();
    Error.stackTraceLimit = limit;
  }
  return { perRequest, files, oneAtATime, last };
}

const ROOT = `${process.cwd()}/`;

function ourFiles(stack: string): string[] {
  const out: string[] = [];
  for (const m of stack.matchAll(/(?:file:\/\/)?(\/[^\s:()]+\.ts)/g)) {
    const file = defined(m[1], 'file');
    if (file.startsWith(`${ROOT}src/`)) out.push(file.slice(ROOT.length));
  }
  return out;
}

function report(
  rounds: { p50: number; p99: number; rps: number }[],
  counted: { perRequest: number[]; files: Map<string, number>; oneAtATime: number[]; last: string[] },
  decisions: Map<string, number>,
) {
  const med = (xs: number[]) => percentile(xs, 50);
  console.log(
    `\n### submit_offer over HTTP (${ROUNDS} rounds of ${REQUESTS} requests, ${CONNECTIONS} connections)\n`,
  );
  console.log('| round | p50 ms | p99 ms | req/s |');
  console.log('| --- | ---: | ---: | ---: |');
  rounds.forEach((r, i) => {
    console.log(`| ${i + 1} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.rps.toFixed(0)} |`);
  });
  console.log(
    `| median | ${med(rounds.map((r) => r.p50)).toFixed(1)} | ${med(rounds.map((r) => r.p99)).toFixed(1)} | ${med(rounds.map((r) => r.rps)).toFixed(0)} |`,
  );
  console.log(`\ndecisions: ${[...decisions].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(
    `\none at a time (${counted.perRequest.length}): p50 ${med(counted.oneAtATime).toFixed(1)} ms; ` +
      `SQL statements per submit_offer: median ${med(counted.perRequest)}, min ${Math.min(...counted.perRequest)}, max ${Math.max(...counted.perRequest)}`,
  );
  const files = [...counted.files].sort((a, b) => b[1] - a[1]);
  console.log(
    `\nsource files on the stacks of its queries (${files.length}; queries each, all ${counted.perRequest.length} requests):`,
  );
  for (const [file, n] of files) console.log(`  ${file}: ${n}`);
  if (process.env.BENCH_SHOW_SQL) {
    console.log('\nthe statements of the last one:');
    for (const text of counted.last) console.log(`  ${text}`);
  }
}
