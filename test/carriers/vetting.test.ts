import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complianceProviderFrom } from '../../src/integrations/compliance/index.js';
import { realClock } from '../../src/lib/clock.js';
import { ComplianceService } from '../../src/modules/carriers/compliance-service.js';
import { events } from '../../src/modules/webhooks/webhooks-tables.js';
import { drainWorker, type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import {
  compactDate,
  daysAgo,
  FmcsaStandIn,
  filingEnded,
  legacyFiling,
  motusFiling,
  oosOrder,
  usDate,
  WEB_KEY,
} from '../helpers/fmcsa-stand-in.js';
import { bookOn, createLoad, escalationBody } from '../helpers/load-factories.js';

type Headers = Record<string, string>;
type Signal = { code: string; action: string; evidence: string };

const standIn = new FmcsaStandIn();
beforeAll(async () => {
  await standIn.start();
});
afterAll(() => standIn.stop());

const env = Object.defineProperties(
  {
    COMPLIANCE_PROVIDER: 'fmcsa',
    FMCSA_WEB_KEY: WEB_KEY,
    FMCSA_MIN_INTERVAL_MS: '0',
    FMCSA_RETRY_BASE_MS: '5',
    FMCSA_TIMEOUT_MS: '2000',
    // Every check asks again: the tests change what the stand-in answers between checks.
    FMCSA_CACHE_TTL_SECONDS: '0',
    COMPLIANCE_INLINE_BUDGET_MS: '5000',
    WORKERS_ENABLED: 'false',
  },
  {
    FMCSA_BASE_URL: { get: () => standIn.qcMobileUrl, enumerable: true },
    FMCSA_OPEN_DATA_URL: { get: () => standIn.url, enumerable: true },
  },
);

let serial = 0;
const numbers = () => {
  serial++;
  return { dot: String(5_300_000 + serial), mc: String(530_000 + serial) };
};

/** The compliance service over the test app's database and configuration (what the app builds). */
const serviceOf = (t: TestApp) =>
  new ComplianceService(
    t.database.db,
    complianceProviderFrom(t.config.compliance),
    t.config.compliance.minAuthorityDays,
    realClock,
  );

const get = async (t: TestApp, h: Headers, url: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: h })).json();

const codes = (signals: Signal[]) => signals.map((s) => s.code).sort();
const daysAhead = (n: number) => new Date(Date.now() + n * 86_400_000);

/** What the stand-in answers for the carrier, or a function of its numbers giving it. */
type Fields = Record<string, unknown> | ((n: { dot: string; mc: string }) => Record<string, unknown>);

describe('fraud signals read from the DOT open-data datasets', () => {
  const t = useTestApp({ env });

  /** A carrier of a stand-in DOT, checked on creation; returns it and its latest check. */
  async function vetted(h: Headers, standInFields: Fields, body: Record<string, unknown> = {}) {
    const { dot, mc } = numbers();
    const fields = typeof standInFields === 'function' ? standInFields({ dot, mc }) : standInFields;
    standIn.add({ dot, mcs: [mc], ...fields });
    const carrier = await createCarrier(t, h, { dot_number: dot, mc_number: mc, ...body });
    const [check] = (await get(t, h, `/carriers/${carrier.id}/compliance-checks`)).data;
    return { carrier, check, dot, mc };
  }

  it('finds nothing on a carrier in good standing: low risk, PASSED', async () => {
    const { user } = await createTenant(t);
    const { carrier, check } = await vetted(user.headers, {});
    expect(carrier).toMatchObject({
      compliance_status: 'PASSED',
      risk_level: 'low',
      risk_reasons: [],
      fraud_signals: [],
    });
    expect(check).toMatchObject({ verdict: 'PASSED', risk_level: 'low', signals: [] });
    expect(carrier.census_phone).toMatch(/^\+1\d{10}$/);
  });

  it('names each signal with its evidence and the action of the default policy', async () => {
    const { user } = await createTenant(t);
    const h = user.headers;
    const cases: [Fields, Record<string, unknown>, string, string, string][] = [
      [{ census: { mcs150_date: '20190105' } }, {}, 'stale_census', 'review', 'medium'],
      [{ census: { power_units: '0' } }, {}, 'no_power_units', 'review', 'medium'],
      [
        ({ dot, mc }) => ({ insurance: [motusFiling(dot, mc, '500000')], legacyInsurance: [] }),
        {},
        'insurance_below_required',
        'block',
        'high',
      ],
      // A newer Motus filing at a lower limit supersedes the older file's policy.
      [
        ({ dot, mc }) => ({
          insurance: [
            motusFiling(dot, mc, '500000', { policy_no: 'PM-NEW', effective_date: compactDate(daysAgo(40)) }),
          ],
          legacyInsurance: [legacyFiling(dot, mc, '1000')],
        }),
        {},
        'insurance_below_required',
        'block',
        'high',
      ],
      // Nothing in either insurance file.
      [{ insurance: [], legacyInsurance: [] }, {}, 'insurance_below_required', 'block', 'high'],
      // The insurer cancelled the policy last week: Motus's history ends it, and the older file's copy.
      [
        ({ dot }) => ({ insuranceHistory: [filingEnded(dot, daysAgo(7))] }),
        {},
        'insurance_below_required',
        'block',
        'high',
      ],
      // Only in the older file, cancelled by its own date.
      [
        ({ dot, mc }) => ({
          insurance: [],
          legacyInsurance: [legacyFiling(dot, mc, '1000', { cancl_effective_date: usDate(daysAgo(30)) })],
        }),
        {},
        'insurance_below_required',
        'block',
        'high',
      ],
      [
        ({ dot }) => ({ insuranceHistory: [filingEnded(dot, daysAhead(20))] }),
        {},
        'insurance_cancellation_pending',
        'review',
        'medium',
      ],
      [
        ({ dot, mc }) => ({
          insurance: [],
          legacyInsurance: [legacyFiling(dot, mc, '1000', { cancl_effective_date: usDate(daysAhead(20)) })],
        }),
        {},
        'insurance_cancellation_pending',
        'review',
        'medium',
      ],
      [{ carrier: { allowedToOperate: 'N' } }, {}, 'authority_inactive', 'block', 'high'],
      [
        {
          oosOrders: [
            oosOrder({ oos_date: '09/14/2026', oos_reason: 'IMMINENT HAZARD' }),
            oosOrder({ oos_date: '01/02/2024', oos_rescind_date: '03/01/2024' }),
          ],
        },
        {},
        'out_of_service',
        'block',
        'high',
      ],
      [{}, { phone: '+1 608 555 0199' }, 'contact_mismatch', 'review', 'medium'],
    ];
    for (const [fields, body, code, action, level] of cases) {
      const { carrier, check } = await vetted(h, fields, body);
      const label = `${code} ${JSON.stringify(fields)}`;
      expect(codes(carrier.fraud_signals), label).toEqual([code]);
      expect(carrier.fraud_signals[0], label).toMatchObject({ code, action, evidence: expect.any(String) });
      expect(carrier.risk_level, label).toBe(level);
      expect(carrier.compliance_status, label).toBe(level === 'high' ? 'BLOCKED' : 'PASSED');
      expect(check, label).toMatchObject({ risk_level: level, signals: [expect.objectContaining({ code })] });
    }
    // Negatives of the same rules: a recent census, power units, coverage at the amount, a rescinded order.
    const fine = await vetted(h, ({ dot, mc }) => ({
      census: { mcs150_date: compactDate(daysAgo(100)), power_units: '1' },
      insurance: [motusFiling(dot, mc, '750000')],
      legacyInsurance: [],
      oosOrders: [oosOrder({ oos_date: '01/02/2024', oos_rescind_date: '02/15/2024' })],
    }));
    expect(fine.carrier).toMatchObject({ risk_level: 'low', fraud_signals: [], compliance_status: 'PASSED' });
  });

  it('reads insurance from Motus first and the older file for what Motus lacks', async () => {
    const { user } = await createTenant(t);
    const h = user.headers;
    const fine = async (fields: Fields, label: string) => {
      const { carrier } = await vetted(h, fields);
      expect(carrier.fraud_signals, label).toEqual([]);
      expect(carrier.risk_level, label).toBe('low');
    };
    // A filing made before the move that Motus never received: the older file still counts.
    await fine(
      ({ dot, mc }) => ({ insurance: [], legacyInsurance: [legacyFiling(dot, mc, '1000')] }),
      'legacy only',
    );
    // A policy replaced (TERM/REPL) by a new one: a renewal, not a lapse, and no cancellation pending.
    await fine(
      ({ dot, mc }) => ({
        insurance: [
          motusFiling(dot, mc, '1000000'),
          motusFiling(dot, mc, '1000000', {
            policy_no: 'PM-RENEWED',
            effective_date: compactDate(daysAgo(5)),
          }),
        ],
        insuranceHistory: [filingEnded(dot, daysAgo(5), 'TERM/REPL')],
      }),
      'renewed',
    );
    // A cancellation coming, but a second policy on file will still stand after it.
    await fine(
      ({ dot, mc }) => ({
        insurance: [
          motusFiling(dot, mc, '1000000'),
          motusFiling(dot, mc, '1000000', {
            policy_no: 'PM-SECOND',
            effective_date: compactDate(daysAgo(2)),
          }),
        ],
        insuranceHistory: [filingEnded(dot, daysAhead(20))],
      }),
      'replaced before it ends',
    );
  });

  it('flags a free-mail address where the census has a company domain, and not the other way round', async () => {
    const { user } = await createTenant(t);
    const free = await vetted(
      user.headers,
      { census: { email_address: 'dispatch@prairiehaul.example' } },
      {
        email: 'prairiehaul.dispatch@gmail.com',
      },
    );
    expect(codes(free.carrier.fraud_signals)).toEqual(['contact_mismatch', 'free_mail']);
    const same = await vetted(
      user.headers,
      { census: { email_address: 'OPS@Haulers.example' } },
      {
        email: 'ops@haulers.example',
      },
    );
    expect(same.carrier.fraud_signals).toEqual([]);
  });

  it('finds a contact shared in the census with another USDOT number, by a SoQL query', async () => {
    const { user } = await createTenant(t);
    const other = numbers();
    standIn.add({ dot: other.dot, mcs: [other.mc], census: { phone: '4145550177' } });
    const { carrier, dot } = await vetted(user.headers, { census: { phone: '4145550177' } });
    expect(carrier.fraud_signals).toEqual([
      expect.objectContaining({
        code: 'shared_contact',
        action: 'block',
        evidence: expect.stringContaining(`DOT ${other.dot} (phone)`),
      }),
    ]);
    expect(carrier).toMatchObject({ compliance_status: 'BLOCKED', risk_level: 'high' });
    const query = standIn
      .requestsTo(/^\/resource\/az4n-8mr2\.json$/)
      .map((r) => r.query.get('$where'))
      .find((w) => w?.startsWith(`dot_number != '${dot}'`));
    expect(query).toContain("phone = '4145550177'");
    expect(query).toContain('upper(email_address) =');
  });

  it("finds a census contact held by another of the organization's carriers", async () => {
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, { name: 'Earlier', phone: '+1 414 555 0188' });
    const { carrier } = await vetted(user.headers, { census: { phone: '4145550188' } });
    expect(carrier.fraud_signals).toEqual([
      expect.objectContaining({
        code: 'shared_contact',
        evidence: expect.stringContaining('of the organization'),
      }),
    ]);
    // Another organization's carrier with that phone is no signal.
    const { user: other } = await createTenant(t);
    const alone = await vetted(other.headers, { census: { phone: '4145550189' } });
    expect(alone.carrier.fraud_signals).toEqual([]);
  });

  it('notices a census contact changed since an earlier check, within the days the policy says', async () => {
    const { user } = await createTenant(t);
    const { carrier, dot, mc } = await vetted(user.headers, {});
    expect(carrier.fraud_signals).toEqual([]);
    standIn.add({ dot, mcs: [mc], census: { email_address: 'new-office@elsewhere.example' } });
    await serviceOf(t).check(carrier.organization_id, carrier.id, AbortSignal.timeout(5000));
    const after = await get(t, user.headers, `/carriers/${carrier.id}`);
    expect(after.fraud_signals).toEqual([
      expect.objectContaining({
        code: 'contact_changed_recently',
        evidence: expect.stringContaining('new-office@elsewhere.example'),
      }),
    ]);
    // The change happened long ago (older than contact_change_days): no longer a signal.
    await t.database.db.execute(
      sql`UPDATE compliance_checks SET checked_at = checked_at - interval '60 days' WHERE carrier_id = ${carrier.id}`,
    );
    await serviceOf(t).check(carrier.organization_id, carrier.id, AbortSignal.timeout(5000));
    expect((await get(t, user.headers, `/carriers/${carrier.id}`)).fraud_signals).toEqual([]);
  });

  it("follows the organization's policy: a signal made blocking blocks, an ignored one is noted only", async () => {
    const { user } = await createTenant(t);
    const h = user.headers;
    expect(await get(t, h, '/compliance-policy')).toMatchObject({
      strict_mode: true,
      required_liability_usd: 750000,
      census_max_age_months: 24,
      signals: { shared_contact: 'block', stale_census: 'review' },
    });
    const bad = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/compliance-policy',
      headers: h,
      payload: { signals: { stale_census: 'forbid' } },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('stale_census');
    const set = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/compliance-policy',
      headers: h,
      payload: {
        signals: { stale_census: 'block', no_power_units: 'ignore' },
        required_liability_usd: 1_000_000,
      },
    });
    expect(set.statusCode, set.body).toBe(200);
    const stale = await vetted(h, { census: { mcs150_date: '20190105' } });
    expect(stale.carrier).toMatchObject({ compliance_status: 'BLOCKED', risk_level: 'high' });
    expect(stale.check.reasons).toContain('stale_census');
    const noUnits = await vetted(h, { census: { power_units: '0' } });
    expect(noUnits.carrier).toMatchObject({ compliance_status: 'PASSED', risk_level: 'low' });
    expect(noUnits.carrier.fraud_signals).toEqual([
      expect.objectContaining({ code: 'no_power_units', action: 'ignore' }),
    ]);
    const under = await vetted(h, ({ dot, mc }) => ({
      insurance: [motusFiling(dot, mc, '750000')],
      legacyInsurance: [],
    }));
    expect(under.carrier.fraud_signals).toEqual([
      expect.objectContaining({ code: 'insurance_below_required' }),
    ]);
  });
});

describe('continuous monitoring of carriers with loads in flight', () => {
  const t = useTestApp({ env });

  it('turns a booked carrier high when its insurance lapses: audit, event, guard, escalation', async () => {
    const { user } = await createTenant(t);
    const h = user.headers;
    // A webhook endpoint subscribed to the event (delivery is the webhook tests' concern).
    const endpoint = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: h,
      payload: { url: 'http://127.0.0.1:9/hooks', event_types: ['carrier.compliance_changed'] },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const { dot, mc } = numbers();
    standIn.add({ dot, mcs: [mc] });
    const carrier = await createCarrier(t, h, { dot_number: dot, mc_number: mc });
    expect(carrier.risk_level).toBe('low');
    const loadId = await createLoad(t, h, { posted_rate: 2000 });
    const offerId = await bookOn(t, h, loadId, carrier.id, 1900);
    // An idle carrier (no offer) is not monitored.
    const { dot: idleDot, mc: idleMc } = numbers();
    standIn.add({ dot: idleDot, mcs: [idleMc] });
    const idle = await createCarrier(t, h, { dot_number: idleDot, mc_number: idleMc });

    // The app's own monitoring worker (daily by default), with the follow-ups the composition gives it.
    const monitor = { drain: () => drainWorker(t, 'compliance-monitor') };
    // Checked today: nothing is due yet.
    expect(await monitor.drain()).toBe(0);
    // A day on, the insurer has cancelled: Motus's history ends the only liability policy on file.
    await t.database.db.execute(
      sql`UPDATE carriers SET last_verified_at = now() - interval '25 hours' WHERE id IN (${carrier.id}, ${idle.id})`,
    );
    standIn.add({ dot, mcs: [mc], insuranceHistory: [filingEnded(dot, daysAgo(0))] });
    expect(await monitor.drain()).toBe(1);

    const after = await get(t, h, `/carriers/${carrier.id}`);
    expect(after).toMatchObject({ compliance_status: 'BLOCKED', risk_level: 'high' });
    expect(after.risk_reasons).toContain('insurance_below_required');
    const audit = (await get(t, h, `/carriers/${carrier.id}/audit-log`)).data;
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'compliance_changed',
          before: expect.objectContaining({ risk_level: 'low' }),
          after: expect.objectContaining({ risk_level: 'high', compliance_status: 'BLOCKED' }),
        }),
      ]),
    );
    const emitted = await t.database.db
      .select({ data: events.data })
      .from(events)
      .where(
        and(
          eq(events.organization_id, carrier.organization_id),
          eq(events.type, 'carrier.compliance_changed'),
        ),
      );
    expect(emitted.map((e) => e.data)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ carrier_id: carrier.id, risk_level: 'high', previous_risk_level: 'low' }),
      ]),
    );
    const escalations = await get(t, h, `/loads/${loadId}/escalations`);
    expect(escalations).toEqual([
      escalationBody({
        load_id: loadId,
        agent_type: 'CARRIER_VETTING',
        escalation_type: 'carrier_high_risk',
        message: expect.stringContaining(`booked with carrier ${carrier.id}, which turned high risk`),
        offer_id: offerId,
        reason: expect.stringContaining(carrier.id),
      }),
    ]);
    // The guard refuses the carrier from now on.
    const contact = await t.app.inject({
      method: 'POST',
      url: '/api/v1/outreaches',
      headers: h,
      payload: { load_id: await createLoad(t, h, {}), carrier_id: carrier.id, modality: 'email' },
    });
    expect(contact.statusCode, contact.body).toBe(409);
    // A second round finds nothing due, and the idle carrier was never re-checked.
    expect(await monitor.drain()).toBe(0);
    expect((await get(t, h, `/carriers/${idle.id}/compliance-checks`)).data).toHaveLength(1);
    // The rep undoes the booking: that answers the escalation, as theirs.
    const undone = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${offerId}`,
      headers: h,
      payload: { status: 'rejected' },
    });
    expect(undone.statusCode, undone.body).toBe(200);
    expect(await get(t, h, `/loads/${loadId}/escalations`)).toEqual([]);
    expect(await get(t, h, `/loads/${loadId}/escalations?status=RESPONDED`)).toEqual([
      expect.objectContaining({
        agent_type: 'CARRIER_VETTING',
        status: 'RESPONDED',
        response_message: 'Offer rejected (it was accepted)',
        response_user_id: user.id,
      }),
    ]);
  });
});
