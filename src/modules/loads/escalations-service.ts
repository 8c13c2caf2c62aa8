import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { notFound, stateConflict } from '../../domain/errors.js';
import type { OrgScope } from '../../domain/scope.js';
import { insertAudit } from '../audit/index.js';
import { loadHasAcceptedOffer, offerAwaitsReview, offerIsAccepted } from '../read-side/index.js';
import { responderOf } from './escalations.js';
import type { Escalation } from './escalations-schemas.js';
import { LOAD_ID_IN_PATH, requireLoad } from './load-queries.js';
import { type ESCALATION_STATUSES, escalations } from './loads-tables.js';

type EscalationRow = typeof escalations.$inferSelect;
type EscalationStatus = (typeof ESCALATION_STATUSES)[number];

const toEscalation = (e: EscalationRow): Escalation => ({
  id: e.id,
  load_id: e.load_id,
  agent_type: e.agent_type,
  escalation_type: e.escalation_type,
  message: e.message,
  status: e.status,
  call_id: e.call_id,
  offer_id: e.offer_id,
  reason: e.reason,
  response_message: e.response_message,
  response_user_id: e.response_user_id,
  responded_at: e.responded_at,
  resolved_at: e.resolved_at,
  created_at: e.created_at,
  updated_at: e.updated_at,
});

/**
 * Escalations as people see and answer them, and the sweep that settles the ones nobody answers:
 * CANCELLED when what they ask about went away, TIMED_OUT after `timeoutMinutes` ACTIVE.
 */
export class EscalationsService {
  constructor(
    private readonly db: Db,
    private readonly timeoutMinutes: number,
  ) {}

  /** The load's escalations in `statuses` (ACTIVE alone by default), newest first; 404 for no such load. */
  async forLoad(scope: OrgScope, loadId: string, statuses?: EscalationStatus[]): Promise<Escalation[]> {
    await requireLoad(this.db, scope, loadId, LOAD_ID_IN_PATH);
    const wanted: EscalationStatus[] = statuses?.length ? statuses : ['ACTIVE'];
    const rows = await this.db
      .select()
      .from(escalations)
      .where(
        and(
          eq(escalations.organization_id, scope.organizationId),
          eq(escalations.load_id, loadId),
          inArray(escalations.status, wanted),
        ),
      )
      .orderBy(desc(escalations.created_at), desc(escalations.id));
    return rows.map(toEscalation);
  }

  /**
   * A person answers an ACTIVE escalation: RESPONDED with their message, audited. Another
   * organization's is 404; one no longer ACTIVE is 409 `escalation_not_active`.
   */
  async respond(scope: OrgScope, id: string, responseMessage: string): Promise<Escalation> {
    return this.db.transaction(async (tx) => {
      const current = await this.locked(tx, scope, id);
      if (current.status !== 'ACTIVE') {
        throw stateConflict(
          'escalation_not_active',
          `Escalation '${id}' is ${current.status}; only an ACTIVE escalation can be responded to`,
          'escalation_id',
        );
      }
      const [updated] = await tx
        .update(escalations)
        .set({
          status: 'RESPONDED',
          response_message: responseMessage,
          response_user_id: responderOf(scope),
          responded_at: sql`envoy_now()`,
          resolved_at: sql`envoy_now()`,
          updated_at: sql`envoy_now()`,
        })
        .where(eq(escalations.id, id))
        .returning();
      const row = updated ?? current;
      await insertAudit(tx, scope, [
        {
          entity_type: 'escalation',
          entity_id: id,
          action: 'responded',
          before: { status: current.status },
          after: { status: row.status, response_message: row.response_message },
        },
      ]);
      return toEscalation(row);
    });
  }

  /**
   * One round of the `escalations` worker: ACTIVE escalations whose subject went away are
   * CANCELLED (the load cancelled; a review's offer no longer pending and uncountered, or the load
   * booked on another; a vetting escalation's offer no longer accepted), then those ACTIVE longer
   * than the timeout are TIMED_OUT, on the product clock. Returns how many changed.
   */
  async sweep(): Promise<number> {
    const cancelled = await this.db.execute(sql`
      UPDATE escalations e SET status = 'CANCELLED', resolved_at = envoy_now(), updated_at = envoy_now()
      FROM loads l
      WHERE e.status = 'ACTIVE' AND l.id = e.load_id AND (
        l.load_status = 'Cancelled'
        OR (e.escalation_type = 'offer_review' AND (
              NOT ${offerAwaitsReview(sql`e.offer_id`)} OR ${loadHasAcceptedOffer(sql`e.load_id`)}))
        OR (e.escalation_type = 'carrier_high_risk' AND e.offer_id IS NOT NULL
            AND NOT ${offerIsAccepted(sql`e.offer_id`)}))`);
    const timedOut = await this.db.execute(sql`
      UPDATE escalations SET status = 'TIMED_OUT', resolved_at = envoy_now(), updated_at = envoy_now()
      WHERE status = 'ACTIVE' AND created_at <= envoy_now() - make_interval(mins => ${this.timeoutMinutes})`);
    return (cancelled.rowCount ?? 0) + (timedOut.rowCount ?? 0);
  }

  private async locked(tx: DbOrTx, scope: OrgScope, id: string): Promise<EscalationRow> {
    const [row] = await tx
      .select()
      .from(escalations)
      .where(and(eq(escalations.organization_id, scope.organizationId), eq(escalations.id, id)))
      .for('update');
    if (!row) throw notFound('Escalation', id, 'escalation_id');
    return row;
  }
}
