import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { toE164 } from '../../domain/phone.js';
import type { ComplianceProvider, LookupResult } from '../../integrations/compliance/compliance-provider.js';
import { emitEvent, emitEvents } from '../webhooks/index.js';
import { carriers, complianceChecks } from './carriers-tables.js';
import { type Verdict, verdictOf } from './compliance-rules.js';

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
 * Whether the phone the registry has on file for a carrier is the phone of another carrier of the
 * organization with a different MC or DOT (the shared-contact fraud signal, from the registry side).
 */
async function phoneUsedByOtherCarrier(
  db: DbOrTx,
  organizationId: string,
  carrierId: string,
  phone: string,
): Promise<boolean> {
  const rows = await db.execute(sql`
    SELECT 1 FROM carriers c JOIN carriers o
      ON o.organization_id = c.organization_id AND o.phone = ${phone} AND o.id <> c.id
     AND (o.mc_number IS DISTINCT FROM c.mc_number OR o.dot_number IS DISTINCT FROM c.dot_number)
    WHERE c.organization_id = ${organizationId} AND c.id = ${carrierId}
    LIMIT 1`);
  return rows.rows.length > 0;
}

export class ComplianceService {
  constructor(
    private readonly db: Db,
    private readonly provider: ComplianceProvider,
    private readonly minAuthorityDays: number,
  ) {}

  get providerName() {
    return this.provider.name;
  }

  /**
   * Checks one carrier against the provider and the fraud rules, and stores the check and the new
   * verdict. The provider call happens outside any transaction.
   */
  async check(organizationId: string, carrierId: string, signal: AbortSignal): Promise<Verdict | null> {
    const [carrier] = await this.db
      .select({ mc_number: carriers.mc_number, dot_number: carriers.dot_number })
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
    const shared = await sharedContactCarrierIds(this.db, organizationId, [carrierId]);
    const registeredPhone =
      lookup?.status === 'found' && lookup.record.phone ? toE164(lookup.record.phone) : null;
    const registeredShared =
      registeredPhone !== null &&
      (await phoneUsedByOtherCarrier(this.db, organizationId, carrierId, registeredPhone));
    const verdict = verdictOf(
      carrier,
      lookup,
      {
        sharedContact: shared.has(carrierId) || registeredShared,
        sharedContactDetail: registeredShared
          ? `the phone on file with the registry (${registeredPhone}) is used by another carrier of the organization with a different MC/DOT`
          : null,
      },
      this.minAuthorityDays,
    );
    // No answer (or only part of one): retried by the background worker.
    const noAnswer = verdict.status === 'UNVERIFIED' && verdict.reasons.includes('no_answer');
    await this.db.transaction(async (tx) => {
      const [before] = await tx
        .select({ compliance_status: carriers.compliance_status })
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
        raw:
          lookup === null
            ? null
            : lookup.status === 'unavailable'
              ? { error: lookup.error }
              : (lookup.raw as object),
      });
      await tx
        .update(carriers)
        .set({
          compliance_status: verdict.status,
          is_verified: verdict.status === 'PASSED',
          verified_date: verdict.status === 'PASSED' ? sql`now()` : sql`${carriers.verified_date}`,
          last_verified_at: sql`now()`,
          last_verified_provider: this.provider.name,
          authorized_for_hire:
            lookup?.status === 'found'
              ? lookup.record.authorized_for_hire
              : sql`${carriers.authorized_for_hire}`,
          compliance_check_due_at: noAnswer ? sql`now() + ${RETRY_AFTER_NO_ANSWER}::interval` : null,
          updated_at: sql`now()`,
        })
        .where(and(eq(carriers.organization_id, organizationId), eq(carriers.id, carrierId)));
      const previous = before?.compliance_status ?? null;
      if (before && previous !== verdict.status) {
        await emitEvent(tx, organizationId, 'carrier.compliance_changed', {
          carrier_id: carrierId,
          compliance_status: verdict.status,
          previous_compliance_status: previous,
          reasons: verdict.reasons,
        });
      }
    });
    return verdict;
  }

  /** Marks carriers BLOCKED at once on a fraud signal known locally; the full check follows. */
  async blockSharedContacts(tx: DbOrTx, organizationId: string, ids: string[]): Promise<Set<string>> {
    const flagged = await sharedContactCarrierIds(tx, organizationId, ids);
    if (flagged.size === 0) return flagged;
    const list = [...flagged];
    const before = await tx
      .select({ id: carriers.id, compliance_status: carriers.compliance_status })
      .from(carriers)
      .where(and(eq(carriers.organization_id, organizationId), inArray(carriers.id, list)));
    await tx.insert(complianceChecks).values(
      list.map((carrierId) => ({
        id: newId('verification'),
        organization_id: organizationId,
        carrier_id: carrierId,
        provider: 'fraud_rules',
        verdict: 'BLOCKED' as const,
        reasons: ['shared_contact'],
      })),
    );
    await tx
      .update(carriers)
      .set({
        compliance_status: 'BLOCKED',
        is_verified: false,
        last_verified_at: sql`now()`,
        last_verified_provider: 'fraud_rules',
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
          },
        })),
    );
    return flagged;
  }
}
