import { and, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { newId } from '../../domain/ids.js';
import { toE164 } from '../../domain/phone.js';
import { systemScope } from '../../domain/scope.js';
import type {
  CensusRecord,
  ComplianceProvider,
  LookupResult,
} from '../../integrations/compliance/compliance-provider.js';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import { insertAudit } from '../audit/index.js';
import { emitEvent, emitEvents } from './carriers-events.js';
import {
  type ComplianceStatus,
  carriers,
  complianceChecks,
  type FraudSignal,
  type RiskLevel,
} from './carriers-tables.js';
import { type Verdict, verdictOf } from './compliance-rules.js';
import { riskOf, signalsOf, snapshotOf } from './fraud-signals.js';
import { readVettingPolicy, updateVettingPolicy, type vettingPolicyPatch } from './vetting-policy.js';

/** How soon a check that got no answer is tried again. */
const RETRY_AFTER_NO_ANSWER = '15 minutes';

/**
 * Carriers of `ids` whose phone or e-mail an earlier carrier of the organization, with a different
 * MC or DOT, already uses: one set-based query for a whole batch. Only the newcomer is suspect;
 * the carrier that held the contact first keeps its verdict.
 */
export async function sharedContactCarrierIds(
  db: DbOrTx,
  organizationId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  // One probe per carrier and contact kind, each a LATERAL ... LIMIT 1 that the planner cannot
  // flatten: it stays an index lookup on (organization_id, phone) or (organization_id, lower(email))
  // even when statistics are stale, as they are for rows written in this very transaction.
  const earlierWithOtherNumbers = sql`(o.created_at, o.id) < (c.created_at, c.id)
     AND (o.mc_number IS DISTINCT FROM c.mc_number OR o.dot_number IS DISTINCT FROM c.dot_number)`;
  const rows = await db.execute<{ id: string }>(sql`
    SELECT c.id FROM carriers c
    WHERE c.organization_id = ${organizationId} AND c.id = ANY(${sql.param(ids)}::text[])
      AND (EXISTS (SELECT 1 FROM LATERAL (
             SELECT 1 FROM carriers o
             WHERE c.phone IS NOT NULL AND o.organization_id = c.organization_id AND o.phone = c.phone
               AND ${earlierWithOtherNumbers}
             LIMIT 1) by_phone)
        OR EXISTS (SELECT 1 FROM LATERAL (
             SELECT 1 FROM carriers o
             WHERE c.email IS NOT NULL AND o.organization_id = c.organization_id AND lower(o.email) = lower(c.email)
               AND ${earlierWithOtherNumbers}
             LIMIT 1) by_email))`);
  return new Set(rows.rows.map((r) => r.id));
}

/**
 * The shared-contact evidence among the organization's own carriers: this carrier's phone or e-mail
 * held first by another carrier with a different MC/DOT, or the census phone or e-mail of this
 * carrier used by such a carrier. Null when there is none.
 */
async function orgSharedEvidence(
  db: DbOrTx,
  organizationId: string,
  carrierId: string,
  record: CensusRecord | null,
): Promise<string | null> {
  if ((await sharedContactCarrierIds(db, organizationId, [carrierId])).size > 0)
    return "another carrier of the organization with a different MC/DOT already uses this carrier's phone or e-mail";
  const phone = record?.phone ? toE164(record.phone) : null;
  const email = record?.census?.email ?? null;
  if (!phone && !email) return null;
  const rows = await db.execute<{ id: string; name: string }>(sql`
    SELECT o.id, o.name FROM carriers c JOIN carriers o
      ON o.organization_id = c.organization_id AND o.id <> c.id
     AND ((${phone}::text IS NOT NULL AND o.phone = ${phone}) OR (${email}::text IS NOT NULL AND lower(o.email) = ${email}))
     AND (o.mc_number IS DISTINCT FROM c.mc_number OR o.dot_number IS DISTINCT FROM c.dot_number)
    WHERE c.organization_id = ${organizationId} AND c.id = ${carrierId}
    LIMIT 1`);
  const other = rows.rows[0];
  return other
    ? `the census contact of this carrier (${[phone, email].filter(Boolean).join(', ')}) is used by carrier ${other.id} (${other.name}) of the organization, with a different MC/DOT`
    : null;
}

/** The census contact each earlier check saw, newest first. */
async function contactHistory(db: DbOrTx, organizationId: string, carrierId: string) {
  const rows = await db
    .select({ snapshot: complianceChecks.contact_snapshot, at: complianceChecks.checked_at })
    .from(complianceChecks)
    .where(
      and(
        eq(complianceChecks.organization_id, organizationId),
        eq(complianceChecks.carrier_id, carrierId),
        isNotNull(complianceChecks.contact_snapshot),
      ),
    )
    .orderBy(desc(complianceChecks.checked_at))
    .limit(50);
  return rows.map((r) => ({ snapshot: defined(r.snapshot, 'r.snapshot'), at: r.at }));
}

/**
 * What follows a carrier turning `high` (given by the composition: carriers cannot depend on the
 * modules that queue contacts and hold bookings): its queued contacts withdrawn, and an escalation
 * on each load whose accepted offer is the carrier's. Runs in the check's transaction.
 */
export type HighRiskFollowUp = (
  tx: DbOrTx,
  organizationId: string,
  carrierId: string,
  why: string,
) => Promise<void>;

export class ComplianceService {
  constructor(
    private readonly db: Db,
    private readonly provider: ComplianceProvider,
    private readonly minAuthorityDays: number,
    private readonly clock: Clock,
    private readonly onHighRisk: HighRiskFollowUp = async () => {},
  ) {}

  get providerName() {
    return this.provider.name;
  }

  policy(organizationId: string) {
    return readVettingPolicy(this.db, organizationId);
  }

  updatePolicy(organizationId: string, patch: z.output<typeof vettingPolicyPatch>) {
    return updateVettingPolicy(this.db, organizationId, patch);
  }

  /** The provider's startup warning (a registry without a snapshot), or null. */
  readiness(): Promise<string | null> {
    return this.provider.readiness?.() ?? Promise.resolve(null);
  }

  /**
   * Checks one carrier against the provider, the fraud signals and the organization's policy, and
   * stores the check and the new verdict and risk. The provider call happens outside any
   * transaction. A change of status, risk level or signals is announced
   * (`carrier.compliance_changed`) and audited; turning `high` runs the follow-up.
   */
  async check(organizationId: string, carrierId: string, signal: AbortSignal): Promise<Verdict | null> {
    const [carrier] = await this.db
      .select({
        mc_number: carriers.mc_number,
        dot_number: carriers.dot_number,
        phone: carriers.phone,
        email: carriers.email,
      })
      .from(carriers)
      .where(and(eq(carriers.organization_id, organizationId), eq(carriers.id, carrierId)));
    if (!carrier) return null;
    let lookup: LookupResult | null = null;
    if (carrier.mc_number || carrier.dot_number) {
      lookup = await this.provider.lookup(carrier, signal).catch((err: Error) => ({
        status: 'unavailable' as const,
        error: err.message,
      }));
    }
    // Out of time (the inline budget): store nothing; the background worker checks it shortly.
    if (signal.aborted) throw signal.reason ?? new Error('compliance check aborted');
    const record = lookup?.status === 'found' ? lookup.record : null;
    const now = this.clock.now();
    const signals = signalsOf({
      carrier,
      record,
      orgShared: await orgSharedEvidence(this.db, organizationId, carrierId, record),
      history: await contactHistory(this.db, organizationId, carrierId),
      policy: await readVettingPolicy(this.db, organizationId),
      now,
    });
    const verdict = verdictOf(carrier, lookup, signals, this.minAuthorityDays, now);
    await this.store(organizationId, carrierId, lookup, verdict, signals);
    return verdict;
  }

  private async store(
    organizationId: string,
    carrierId: string,
    lookup: LookupResult | null,
    verdict: Verdict,
    signals: FraudSignal[],
  ) {
    const record = lookup?.status === 'found' ? lookup.record : null;
    const risk = riskOf(verdict.status, signals);
    const riskReasons = [
      ...new Set([...verdict.reasons, ...signals.filter((s) => s.action !== 'ignore').map((s) => s.code)]),
    ];
    // No answer (or only part of one): retried by the background worker.
    const noAnswer = verdict.status === 'UNVERIFIED' && verdict.reasons.includes('no_answer');
    await this.db.transaction(async (tx) => {
      const [before] = await tx
        .select({
          compliance_status: carriers.compliance_status,
          risk_level: carriers.risk_level,
          risk_reasons: carriers.risk_reasons,
        })
        .from(carriers)
        .where(and(eq(carriers.organization_id, organizationId), eq(carriers.id, carrierId)))
        .for('update');
      await tx.insert(complianceChecks).values({
        id: newId('verification'),
        organization_id: organizationId,
        carrier_id: carrierId,
        provider: this.provider.name,
        verdict: verdict.status,
        reasons: verdict.reasons,
        detail: verdict.detail,
        risk_level: risk,
        signals,
        contact_snapshot: snapshotOf(record),
        raw:
          lookup === null
            ? null
            : lookup.status === 'unavailable' || lookup.status === 'no_data'
              ? { error: lookup.error }
              : lookup.raw,
      });
      // A check that gave no result never lifts an earlier BLOCKED verdict: the carrier stays
      // refused until a check passes.
      const kept = noAnswer && before?.compliance_status === 'BLOCKED';
      await tx
        .update(carriers)
        .set({
          compliance_status: kept ? 'BLOCKED' : verdict.status,
          is_verified: verdict.status === 'PASSED',
          verified_date: verdict.status === 'PASSED' ? productNow : sql`${carriers.verified_date}`,
          last_verified_at: productNow,
          last_verified_provider: this.provider.name,
          authorized_for_hire: record ? record.authorized_for_hire : sql`${carriers.authorized_for_hire}`,
          compliance_check_due_at: noAnswer ? sql`envoy_now() + ${RETRY_AFTER_NO_ANSWER}::interval` : null,
          risk_level: kept ? sql`${carriers.risk_level}` : risk,
          risk_reasons: kept ? sql`${carriers.risk_reasons}` : riskReasons,
          fraud_signals: kept ? sql`${carriers.fraud_signals}` : signals,
          census_phone: record ? (record.phone ? toE164(record.phone) : null) : sql`${carriers.census_phone}`,
          census_email: record ? (record.census?.email ?? null) : sql`${carriers.census_email}`,
          updated_at: productNow,
        })
        .where(and(eq(carriers.organization_id, organizationId), eq(carriers.id, carrierId)));
      if (before && !kept)
        await this.announce(tx, organizationId, carrierId, before, verdict, risk, riskReasons, signals);
    });
  }

  /** A change of status, risk level or signals: announced, audited, and followed up when it turned high. */
  private async announce(
    tx: DbOrTx,
    organizationId: string,
    carrierId: string,
    before: { compliance_status: ComplianceStatus; risk_level: RiskLevel | null; risk_reasons: string[] },
    verdict: Verdict,
    risk: RiskLevel,
    riskReasons: string[],
    signals: FraudSignal[],
  ) {
    // Before its first check a carrier has no risk level: only a change of status is news then.
    const changed =
      before.compliance_status !== verdict.status ||
      (before.risk_level !== null &&
        (before.risk_level !== risk ||
          [...before.risk_reasons].sort().join() !== [...riskReasons].sort().join()));
    if (!changed) return;
    const scope = systemScope(organizationId);
    await emitEvent(tx, organizationId, 'carrier.compliance_changed', {
      carrier_id: carrierId,
      compliance_status: verdict.status,
      previous_compliance_status: before.compliance_status,
      reasons: verdict.reasons,
      risk_level: risk,
      previous_risk_level: before.risk_level,
      risk_reasons: riskReasons,
      signals,
    });
    // The first check is the carrier's starting point, not a change: the audit log starts after it.
    if (before.risk_level !== null)
      await insertAudit(tx, scope, [
        {
          entity_type: 'carrier',
          entity_id: carrierId,
          action: 'compliance_changed',
          reason: risk === 'high' ? 'fraud_safety' : 'compliance',
          reason_note: verdict.detail,
          before: {
            compliance_status: before.compliance_status,
            risk_level: before.risk_level,
            risk_reasons: before.risk_reasons,
          },
          after: { compliance_status: verdict.status, risk_level: risk, risk_reasons: riskReasons },
        },
      ]);
    if (risk === 'high' && before.risk_level !== 'high') {
      await this.onHighRisk(
        tx,
        organizationId,
        carrierId,
        `carrier turned high risk: ${riskReasons.join(', ')}`,
      );
    }
  }

  /** Marks carriers BLOCKED at once on a fraud signal known locally; the full check follows. */
  async blockSharedContacts(tx: DbOrTx, organizationId: string, ids: string[]): Promise<Set<string>> {
    const flagged = await sharedContactCarrierIds(tx, organizationId, ids);
    if (flagged.size === 0) return flagged;
    const list = [...flagged];
    const before = await tx
      .select({
        id: carriers.id,
        compliance_status: carriers.compliance_status,
        risk_level: carriers.risk_level,
      })
      .from(carriers)
      .where(and(eq(carriers.organization_id, organizationId), inArray(carriers.id, list)));
    const signal: FraudSignal = {
      code: 'shared_contact',
      action: 'block',
      evidence:
        "another carrier of the organization with a different MC/DOT already uses this carrier's phone or e-mail",
    };
    await tx.insert(complianceChecks).values(
      list.map((carrierId) => ({
        id: newId('verification'),
        organization_id: organizationId,
        carrier_id: carrierId,
        provider: 'fraud_rules',
        verdict: 'BLOCKED' as const,
        reasons: ['shared_contact'],
        risk_level: 'high' as const,
        signals: [signal],
      })),
    );
    await tx
      .update(carriers)
      .set({
        compliance_status: 'BLOCKED',
        is_verified: false,
        last_verified_at: productNow,
        last_verified_provider: 'fraud_rules',
        risk_level: 'high',
        risk_reasons: ['shared_contact'],
        fraud_signals: [signal],
      })
      .where(and(eq(carriers.organization_id, organizationId), inArray(carriers.id, list)));
    await emitEvents(
      tx,
      organizationId,
      before
        .filter((c) => c.compliance_status !== 'BLOCKED')
        .map((c) => ({
          type: 'carrier.compliance_changed',
          data: {
            carrier_id: c.id,
            compliance_status: 'BLOCKED',
            previous_compliance_status: c.compliance_status,
            reasons: ['shared_contact'],
            risk_level: 'high',
            previous_risk_level: c.risk_level,
            risk_reasons: ['shared_contact'],
            signals: [signal],
          },
        })),
    );
    return flagged;
  }
}
