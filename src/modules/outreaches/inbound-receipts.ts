import { and, eq, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { inboundReceipts } from './outreaches-tables.js';

/**
 * A provider's delivery taken once. `claimReceipt` in the transaction that handles the delivery:
 * true for the first delivery of (provider, id); false for a repeat, once the first one's
 * transaction has ended (a concurrent repeat's insert waits for it), whose outcome
 * `receiptOutcome` then reads. `settleReceipt` stores the outcome in the same transaction.
 */
export async function claimReceipt(
  tx: DbOrTx,
  provider: string,
  messageId: string,
  organizationId: string | null = null,
): Promise<boolean> {
  const rows = await tx
    .insert(inboundReceipts)
    .values({ provider, message_id: messageId, organization_id: organizationId })
    .onConflictDoNothing()
    .returning({ id: inboundReceipts.message_id });
  return rows.length > 0;
}

export async function receiptOutcome(
  db: DbOrTx,
  provider: string,
  messageId: string,
  organizationId: string | null = null,
): Promise<unknown> {
  const [row] = await db
    .select({ outcome: inboundReceipts.outcome, organization_id: inboundReceipts.organization_id })
    .from(inboundReceipts)
    .where(and(eq(inboundReceipts.provider, provider), eq(inboundReceipts.message_id, messageId)));
  // Another organization's outcome is never told.
  if (organizationId && row?.organization_id && row.organization_id !== organizationId) return null;
  return row?.outcome ?? null;
}

export async function settleReceipt(
  tx: DbOrTx,
  provider: string,
  messageId: string,
  outcome: unknown,
  organizationId: string | null = null,
) {
  await tx
    .update(inboundReceipts)
    .set({ outcome, ...(organizationId ? { organization_id: organizationId } : {}) })
    .where(and(eq(inboundReceipts.provider, provider), eq(inboundReceipts.message_id, messageId)));
}

/** Forgets receipts older than `days` (providers stop retrying within hours); returns how many. */
export async function purgeReceipts(db: DbOrTx, days: number): Promise<number> {
  const gone = await db
    .delete(inboundReceipts)
    .where(lt(inboundReceipts.created_at, sql`now() - make_interval(days => ${days})`))
    .returning({ id: inboundReceipts.message_id });
  return gone.length;
}
