import { createServer } from 'node:http';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complianceProviderFrom } from '../../src/integrations/compliance/index.js';
import { PacedJsonClient } from '../../src/integrations/compliance/paced-json-client.js';
import { realClock } from '../../src/lib/clock.js';
import { defined } from '../../src/lib/defined.js';
import { carriers } from '../../src/modules/carriers/carriers-tables.js';
import { ComplianceService } from '../../src/modules/carriers/compliance-service.js';
import { ComplianceWorker } from '../../src/workers/compliance-worker.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import {
  compactDate,
  daysAgo,
  FmcsaStandIn,
  grantRow,
  motusAuthorityRow,
  usDate,
  WEB_KEY,
} from '../helpers/fmcsa-stand-in.js';
import { portOf } from '../helpers/listening.js';

const standIn = new FmcsaStandIn();
/** A port nothing listens on: taken, then let go. */
const closedPort = await new Promise<number>((resolve) => {
  const probe = createServer();
  probe.listen(0, '127.0.0.1', () => {
    const port = portOf(probe);
    probe.close(() => resolve(port));
  });
});
beforeAll(async () => {
  await standIn.start();
});
afterAll(() => standIn.stop());

/**
 * The FMCSA provider pointed at the stand-in; no background loop (tests drain the worker). Getters,
 * so the stand-in's address is read when the app is built, after it started listening.
 */
const fmcsaEnv = (extra: Record<string, string> = {}) =>
  Object.defineProperties(
    {
      COMPLIANCE_PROVIDER: 'fmcsa',
      FMCSA_WEB_KEY: WEB_KEY,
      get FMCSA_BASE_URL() {
        return standIn.qcMobileUrl;
      },
      get FMCSA_OPEN_DATA_URL() {
        return standIn.url;
      },
      FMCSA_MIN_INTERVAL_MS: '0',
      FMCSA_RETRY_BASE_MS: '5',
      FMCSA_TIMEOUT_MS: '2000',
      COMPLIANCE_INLINE_BUDGET_MS: '5000',
      WORKERS_ENABLED: 'false',
    },
    Object.getOwnPropertyDescriptors(extra),
  );

/** The background compliance worker over this app's database and configuration, drained by hand. */
function complianceWorker(t: TestApp) {
  const service = new ComplianceService(
    t.database.db,
    complianceProviderFrom(t.config.compliance),
    t.config.compliance.minAuthorityDays,
    realClock,
  );
  return new ComplianceWorker(t.database.db, service, 60_000, t.app.log);
}

/** A check FMCSA did not answer is tried again fifteen minutes after it (on the product clock). */
const RETRY_AFTER_NO_ANSWER_MS = 15 * 60_000;
const dueAfterCheck = (row: { due: Date | null; checked: Date | null }) =>
  defined(row.due, 'compliance_check_due_at').getTime() - defined(row.checked, 'last_verified_at').getTime();

type Check = { provider: string; verdict: string; reasons: string[]; detail: string | null };
const checksOf = async (t: TestApp, h: Record<string, string>, id: string): Promise<Check[]> =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${id}/compliance-checks`, headers: h })).json()
    .data;

let serial = 0;
/** A DOT and MC pair no other test uses. */
const numbers = () => {
  serial++;
  return { dot: String(3_100_000 + serial), mc: String(810_000 + serial) };
};

describe('the FMCSA provider, against QCMobile and open-data stand-ins', () => {
  const t = useTestApp({ env: fmcsaEnv() });

  it('passes a carrier in good standing, asking each source for what it carries', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { mc_number: `MC-${mc}`, dot_number: dot });
    expect(c).toMatchObject({ compliance_status: 'PASSED', last_verified_provider: 'fmcsa' });
    const paths = standIn.requests.filter(
      (r) => r.path.includes(dot) || r.query.get('$where')?.includes(dot),
    );
    expect(paths.map((r) => r.path).sort()).toEqual(
      [
        `/qc/services/carriers/${dot}`,
        `/qc/services/carriers/${dot}/authority`,
        `/qc/services/carriers/${dot}/docket-numbers`,
        '/resource/3uet-3z4i.json',
        '/resource/9mw4-x3tu.json',
        '/resource/az4n-8mr2.json',
        '/resource/az4n-8mr2.json',
        '/resource/c5y8-a4uz.json',
        '/resource/p2mt-9ige.json',
        '/resource/qh9u-swkp.json',
        '/resource/yu5v-wbh6.json',
      ].sort(),
    );
    for (const r of paths.filter((p) => p.path.startsWith('/qc/')))
      expect(r.query.get('webKey')).toBe(WEB_KEY);
    const whereOf = (id: string) => paths.find((r) => r.path.includes(id))?.query.get('$where');
    const either = `('${dot.padStart(8, '0')}', '${dot}')`;
    // The files from before Motus key on a zero-padded `dot_number`, Motus's on `usdot_number`.
    expect(whereOf('9mw4')).toBe(`dot_number in ${either}`);
    expect(whereOf('qh9u')).toBe(`dot_number in ${either}`);
    for (const id of ['yu5v', 'c5y8', '3uet']) expect(whereOf(id)).toBe(`usdot_number in ${either}`);
    expect((await checksOf(t, user.headers, c.id))[0]).toMatchObject({
      provider: 'fmcsa',
      verdict: 'PASSED',
      reasons: [],
      detail: null,
    });
  });

  it('blocks a carrier whose operating authority was granted 30 days ago, naming the rule', async () => {
    const { dot, mc } = numbers();
    const granted = daysAgo(30);
    standIn.add({
      dot,
      mcs: [mc],
      // Registered years ago; the authority it hauls under is new.
      census: { add_date: '20170404' },
      authorityHistory: [
        grantRow(dot, mc, daysAgo(2000), {
          mod_col_1: 'MOTOR PROPERTY CONTRACT CARRIER',
          disp_action_desc: 'INVOLUNTARY REVOCATION',
          disp_served_date: usDate(daysAgo(400)),
        }),
        grantRow(dot, mc, granted),
        // Broker authority is not hauling authority.
        grantRow(dot, mc, daysAgo(3000), { mod_col_1: 'PROPERTY BROKER' }),
      ],
    });
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: dot, mc_number: mc });
    expect(c.compliance_status).toBe('BLOCKED');
    const [check] = await checksOf(t, user.headers, c.id);
    expect(defined(check, 'check').reasons).toEqual(['new_authority']);
    expect(defined(check, 'check').detail).toContain(
      `operating authority granted ${granted.toISOString().slice(0, 10)} (FMCSA authority history), 30 days ago; the minimum is 90 days`,
    );
  });

  it('reads a grant made since the move to Motus from Motus, and no other Motus action as a grant', async () => {
    const fresh = numbers();
    const granted = daysAgo(30);
    standIn.add({
      dot: fresh.dot,
      mcs: [fresh.mc],
      census: { add_date: '20170404' },
      authorityHistory: [],
      motusAuthority: [
        motusAuthorityRow(fresh.dot, fresh.mc, 'GRANTED', granted),
        motusAuthorityRow(fresh.dot, fresh.mc, 'GRANTED', daysAgo(900), {
          op_auth_type: 'BROKER OF PROPERTY',
        }),
      ],
    });
    // An old carrier whose record Motus rewrote last month (an administrative correction).
    const old = numbers();
    standIn.add({
      dot: old.dot,
      mcs: [old.mc],
      motusAuthority: [motusAuthorityRow(old.dot, old.mc, 'ADMINISTRATIVE CORRECTION', daysAgo(20))],
    });
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: fresh.dot, mc_number: fresh.mc });
    expect(c.compliance_status).toBe('BLOCKED');
    const [check] = await checksOf(t, user.headers, c.id);
    expect(check).toMatchObject({ reasons: ['new_authority'] });
    expect(check?.detail).toContain(`operating authority granted ${granted.toISOString().slice(0, 10)}`);
    const kept = await createCarrier(t, user.headers, { dot_number: old.dot, mc_number: old.mc });
    expect(kept.compliance_status).toBe('PASSED');
  });

  it('blocks on a USDOT number registered 20 days ago when the authority history has no row yet', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc], census: { add_date: compactDate(daysAgo(20)) }, authorityHistory: [] });
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: dot });
    expect(c.compliance_status).toBe('BLOCKED');
    const [check] = await checksOf(t, user.headers, c.id);
    expect(defined(check, 'check').reasons).toEqual(['new_authority']);
    expect(defined(check, 'check').detail).toMatch(
      /USDOT number registered \d{4}-\d{2}-\d{2} \(FMCSA census\), 20 days ago/,
    );
  });

  it('stores "authority age unknown" instead of passing when no date can be had', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc], authorityHistory: [] });
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: dot });
    expect(c.compliance_status).toBe('UNVERIFIED');
    const [check] = await checksOf(t, user.headers, c.id);
    expect(check).toMatchObject({ verdict: 'UNVERIFIED', reasons: ['authority_age_unknown'] });
    expect(defined(check, 'check').detail).toContain('authority age unknown');
  });

  it('reads an inactive USDOT status as inactive, not out of service; an out-of-service order blocks with its reason', async () => {
    const inactive = numbers();
    const parked = numbers();
    standIn.add(
      { dot: inactive.dot, mcs: [inactive.mc], carrier: { statusCode: 'I' } },
      {
        dot: parked.dot,
        mcs: [parked.mc],
        carrier: { oosDate: '2026-01-05', allowedToOperate: 'N' },
        oos: [
          { oosDate: '2026-01-05', oosReason: 'NOP', oosReasonDescription: '90 day failure to pay fine' },
        ],
      },
    );
    const { user } = await createTenant(t);
    const a = await createCarrier(t, user.headers, { dot_number: inactive.dot });
    expect(a.compliance_status).toBe('PASSED');
    const b = await createCarrier(t, user.headers, { dot_number: parked.dot });
    const [check] = await checksOf(t, user.headers, b.id);
    expect(defined(check, 'check').reasons).toEqual(['out_of_service', 'not_allowed_to_operate']);
    expect(defined(check, 'check').detail).toContain(
      'out of service since 2026-01-05: 90 day failure to pay fine',
    );
    expect(standIn.requestsTo(new RegExp(`/carriers/${parked.dot}/oos$`))).toHaveLength(1);
    expect(standIn.requestsTo(new RegExp(`/carriers/${inactive.dot}/oos$`))).toHaveLength(0);
  });

  it('blocks a carrier FMCSA does not know (a well-formed empty answer), by DOT and by MC', async () => {
    const { user } = await createTenant(t);
    const byDot = await createCarrier(t, user.headers, { dot_number: '3999901' });
    const byMc = await createCarrier(t, user.headers, { mc_number: '899901' });
    for (const c of [byDot, byMc]) {
      expect(c.compliance_status).toBe('BLOCKED');
      expect(
        defined((await checksOf(t, user.headers, c.id))[0], '(await checksOf(t, user.headers, c.id))[0]')
          .reasons,
      ).toEqual(['not_registered']);
    }
  });

  it('looks a carrier up by docket number when it has no DOT, then by the DOT FMCSA gives', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { mc_number: mc });
    expect(c.compliance_status).toBe('PASSED');
    expect(standIn.requestsTo(new RegExp(`^/qc/services/carriers/docket-number/${mc}$`))).toHaveLength(1);
    expect(standIn.requestsTo(new RegExp(`^/qc/services/carriers/${dot}/authority$`))).toHaveLength(1);
  });

  it('blocks an MC that is not a docket of the DOT given', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: dot, mc_number: '877777' });
    const [check] = await checksOf(t, user.headers, c.id);
    expect(check).toMatchObject({ verdict: 'BLOCKED', reasons: ['mc_dot_mismatch'] });
    expect(defined(check, 'check').detail).toContain(`MC 877777 is not a docket of DOT ${dot}`);
  });

  it('reads the phone from the census `phone` field for the shared-phone rule', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc], census: { phone: '3125550142' } });
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, {
      mc_number: '877001',
      dot_number: '3877001',
      phone: '(312) 555-0142',
    });
    const c = await createCarrier(t, user.headers, { dot_number: dot, phone: '+1 414 555 0100' });
    const [check] = await checksOf(t, user.headers, c.id);
    expect(check).toMatchObject({ verdict: 'BLOCKED', reasons: ['shared_contact'] });
    expect(defined(check, 'check').detail).toContain('the census contact of this carrier (+13125550142');
  });

  it('retries a transient failure with backoff inside one check', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    standIn.failNext(`/qc/services/carriers/${dot}`, 2);
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: dot });
    expect(c.compliance_status).toBe('PASSED');
    expect(standIn.requestsTo(new RegExp(`^/qc/services/carriers/${dot}$`))).toHaveLength(3);
  });

  it('leaves a carrier UNVERIFIED with the reason while FMCSA answers 5xx, and the worker retries it later', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    standIn.failNext(`/qc/services/carriers/${dot}`, 3);
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: dot });
    expect(c.compliance_status).toBe('UNVERIFIED');
    const [check] = await checksOf(t, user.headers, c.id);
    expect(check).toMatchObject({ verdict: 'UNVERIFIED', reasons: ['no_answer'] });
    expect(defined(check, 'check').detail).toBe(
      `FMCSA QCMobile GET /qc/services/carriers/${dot} answered 503`,
    );
    const [row] = await t.database.db
      .select({ due: carriers.compliance_check_due_at, checked: carriers.last_verified_at })
      .from(carriers)
      .where(eq(carriers.id, c.id));
    expect(dueAfterCheck(defined(row, 'row'))).toBe(RETRY_AFTER_NO_ANSWER_MS);
    // Fifteen minutes later FMCSA answers again.
    await t.database.db
      .update(carriers)
      .set({ compliance_check_due_at: sql`now()` })
      .where(eq(carriers.id, c.id));
    expect(await complianceWorker(t).drain()).toBeGreaterThanOrEqual(1);
    const after = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${c.id}`, headers: user.headers })
    ).json();
    expect(after.compliance_status).toBe('PASSED');
  });

  it('blocks on what QCMobile says while the open-data portal is down, and otherwise leaves the carrier to a retry', async () => {
    const good = numbers();
    const parked = numbers();
    standIn.add(
      { dot: good.dot, mcs: [good.mc] },
      { dot: parked.dot, mcs: [parked.mc], carrier: { oosDate: '2026-02-01' } },
    );
    standIn.openDataDown = true;
    try {
      const { user } = await createTenant(t);
      const a = await createCarrier(t, user.headers, { dot_number: good.dot });
      const [check] = await checksOf(t, user.headers, a.id);
      expect(check).toMatchObject({ verdict: 'UNVERIFIED', reasons: ['no_answer'] });
      expect(defined(check, 'check').detail).toContain('FMCSA open data GET /resource/');
      const b = await createCarrier(t, user.headers, { dot_number: parked.dot });
      expect(b.compliance_status).toBe('BLOCKED');
    } finally {
      standIn.openDataDown = false;
    }
  });
});

describe('the inline budget', () => {
  const t = useTestApp({ env: fmcsaEnv({ COMPLIANCE_INLINE_BUDGET_MS: '300' }) });

  it('answers within the budget when FMCSA is slow, and the worker checks the carrier afterwards', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    // FMCSA holds its answer until the carrier is answered: the API cannot have waited for it.
    standIn.held.add(`/qc/services/carriers/${dot}`);
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: dot });
    expect(standIn.heldAnswers).toBe(1);
    standIn.held.delete(`/qc/services/carriers/${dot}`);
    standIn.release();
    expect(c.compliance_status).toBe('UNVERIFIED');
    // Nothing is stored for a check cut short; the carrier is due for the worker moments later.
    expect(await checksOf(t, user.headers, c.id)).toEqual([]);
    await t.database.db
      .update(carriers)
      .set({ compliance_check_due_at: sql`now()` })
      .where(eq(carriers.id, c.id));
    expect(await complianceWorker(t).drain()).toBe(1);
    const after = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${c.id}`, headers: user.headers })
    ).json();
    expect(after.compliance_status).toBe('PASSED');
  });
});

describe('a wrong FMCSA base URL', () => {
  const wrongPath = useTestApp({
    env: fmcsaEnv({
      get FMCSA_BASE_URL() {
        return `${standIn.url}/qcmobile/services`;
      },
    }),
  });
  const refused = useTestApp({
    env: fmcsaEnv({ FMCSA_BASE_URL: `http://127.0.0.1:${closedPort}/qc/services` }),
  });

  it('leaves carriers UNVERIFIED with the reason stored, retried by the worker, never BLOCKED', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    for (const [t, failure] of [
      [wrongPath, 'answered 404 (check the base URL)'],
      [refused, 'failed: ECONNREFUSED'],
    ] as const) {
      const { user } = await createTenant(t);
      const ids = [
        (await createCarrier(t, user.headers, { dot_number: dot, mc_number: mc })).id,
        (await createCarrier(t, user.headers, { mc_number: '899902' })).id,
      ];
      const worker = complianceWorker(t);
      for (let round = 0; round < 2; round++) {
        for (const id of ids) {
          const [check] = await checksOf(t, user.headers, id);
          expect(check).toMatchObject({ verdict: 'UNVERIFIED', reasons: ['no_answer'] });
          expect(defined(check, 'check').detail).toContain(failure);
        }
        // Due again in fifteen minutes; move the clock there and let the worker take them.
        const due = await t.database.db
          .select({ due: carriers.compliance_check_due_at, checked: carriers.last_verified_at })
          .from(carriers)
          .where(
            sql`${carriers.id} IN (${sql.join(
              ids.map((id) => sql`${id}`),
              sql`, `,
            )})`,
          );
        for (const d of due) expect(dueAfterCheck(d)).toBe(RETRY_AFTER_NO_ANSWER_MS);
        await t.database.db
          .update(carriers)
          .set({ compliance_check_due_at: sql`now()` })
          .where(
            sql`${carriers.id} IN (${sql.join(
              ids.map((id) => sql`${id}`),
              sql`, `,
            )})`,
          );
        expect(await worker.drain()).toBe(2);
      }
      for (const id of ids) {
        const history = await checksOf(t, user.headers, id);
        expect(history).toHaveLength(3);
        expect(history.every((c) => c.verdict === 'UNVERIFIED')).toBe(true);
      }
    }
  });
});

describe('a batch of 1000 carriers', () => {
  const t = useTestApp({ env: fmcsaEnv() });

  it('makes at most one request per distinct DOT and source within the cache time', {
    timeout: 180_000,
  }, async () => {
    const dots = Array.from({ length: 1000 }, (_, i) => String(4_200_000 + i));
    standIn.add(...dots.map((dot, i) => ({ dot, mcs: [String(920_000 + i)] })));
    const ingest = async (list: string[]) => {
      const { user } = await createTenant(t);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/carriers/batch',
        headers: user.headers,
        payload: { carriers: list.map((dot) => ({ carrier: { name: `Fleet ${dot}`, dot_number: dot } })) },
      });
      expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    };
    const worker = complianceWorker(t);
    const before = standIn.requests.length;
    await ingest(dots);
    expect(await worker.drain()).toBe(1000);
    const made = standIn.requests.slice(before);
    const perTarget = new Map<string, number>();
    for (const r of made) {
      const key = `${r.path}?${r.query.get('$where') ?? ''}`;
      perTarget.set(key, (perTarget.get(key) ?? 0) + 1);
    }
    expect(Math.max(...perTarget.values())).toBe(1);
    // Per DOT: the carrier record and its authority from QCMobile; from the open-data portal the
    // census row, the census records sharing its contact, the authority history (Motus's and the
    // older file), the insurance (Motus's filings and history, and the older file) and the
    // out-of-service orders.
    expect(made).toHaveLength(10 * 1000);

    // Within the cache time, another organization's batch of the same carriers asks nothing again.
    await ingest(dots.slice(0, 250));
    expect(await worker.drain()).toBe(250);
    expect(standIn.requests.length - before).toBe(10 * 1000);
    const verdicts = await t.database.db.execute<{ compliance_status: string; n: number }>(
      sql`SELECT compliance_status, count(*)::int AS n FROM carriers WHERE dot_number LIKE '42%' GROUP BY 1`,
    );
    expect(verdicts.rows).toEqual([{ compliance_status: 'PASSED', n: 1250 }]);
  });
});

describe('pacing and the cache switch', () => {
  const t = useTestApp({ env: fmcsaEnv({ FMCSA_MIN_INTERVAL_MS: '60', FMCSA_CACHE_TTL_SECONDS: '0' }) });

  it('books each request to a host a slot one interval after the one before', async () => {
    // Time stands at 0 on the pacer's clock, so each wait it asks for is the slot it booked.
    const waits: number[] = [];
    const client = new PacedJsonClient({
      name: 'FMCSA QCMobile',
      minIntervalMs: 60,
      maxRetries: 0,
      retryBaseMs: 5,
      timeoutMs: 2000,
      cacheTtlMs: 0,
      now: () => 0,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const urls = Array.from(
      { length: 6 },
      (_, i) => new URL(`${standIn.qcMobileUrl}/carriers/${numbers().dot}?webKey=${WEB_KEY}&n=${i}`),
    );
    const answers = await Promise.all(urls.map((url) => client.get(url, AbortSignal.timeout(10_000))));
    expect(answers.map((a) => a.ok)).toEqual(urls.map(() => true));
    expect(waits.sort((a, b) => a - b)).toEqual([60, 120, 180, 240, 300]);
  });

  it('asks each host again when the cache is off', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    const { user } = await createTenant(t);
    const before = standIn.requests.length;
    await createCarrier(t, user.headers, { dot_number: dot, mc_number: mc });
    await createCarrier(t, (await createTenant(t)).user.headers, { dot_number: dot, mc_number: mc });
    const made = standIn.requests.slice(before);
    const qc = made.filter((r) => r.path.startsWith('/qc/'));
    expect(qc).toHaveLength(6);
    const open = made.filter((r) => r.path.startsWith('/resource/'));
    expect(open).toHaveLength(16);
  });

  it('shares one request between checks of the same DOT under way at the same time', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    // Long enough that the second create reaches the provider while the first still waits for it,
    // even on a loaded machine; well inside the 2 s inline budget.
    standIn.slow.set(`/qc/services/carriers/${dot}`, 1000);
    const tenants = [await createTenant(t), await createTenant(t)];
    const made = await Promise.all(
      tenants.map(({ user }) => createCarrier(t, user.headers, { dot_number: dot })),
    );
    expect(made.map((c) => c.compliance_status)).toEqual(['PASSED', 'PASSED']);
    expect(standIn.requestsTo(new RegExp(`^/qc/services/carriers/${dot}$`))).toHaveLength(1);
  });
});

describe('an FMCSA that does not answer in time', () => {
  const t = useTestApp({ env: fmcsaEnv({ FMCSA_TIMEOUT_MS: '200', FMCSA_MAX_RETRIES: '1' }) });

  it('times each attempt out, retries once, and leaves the carrier UNVERIFIED with the reason', async () => {
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    standIn.slow.set(`/qc/services/carriers/${dot}`, 1000);
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { dot_number: dot });
    expect(c.compliance_status).toBe('UNVERIFIED');
    const [check] = await checksOf(t, user.headers, c.id);
    expect(check).toMatchObject({ verdict: 'UNVERIFIED', reasons: ['no_answer'] });
    expect(defined(check, 'check').detail).toBe(
      `FMCSA QCMobile GET /qc/services/carriers/${dot} failed: timed out`,
    );
    expect(standIn.requestsTo(new RegExp(`^/qc/services/carriers/${dot}$`))).toHaveLength(2);
  });
});
