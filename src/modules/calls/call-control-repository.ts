import { and, eq, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { calls } from './calls-tables.js';

/** What live control and the platform's call-control messages change on a call. */

/** Vapi repeats the call's control URL on every message: a new one replaces the stored one. */
export async function refreshControlUrl(db: DbOrTx, id: string, controlUrl: string) {
  await db
    .update(calls)
    .set({ control_url: controlUrl, updated_at: productNow })
    .where(and(eq(calls.id, id), sql`${calls.control_url} IS DISTINCT FROM ${controlUrl}`));
}

/** The platform started a transfer to `destination`. */
export async function transferStarted(db: DbOrTx, id: string, destination: string | null, at: Date) {
  await db
    .update(calls)
    .set({
      transfer_status: 'started',
      transfer_destination: destination,
      transfer_updated_at: at,
      updated_at: productNow,
    })
    .where(eq(calls.id, id));
}

/**
 * A started transfer's outcome: `failed` when the caller is back with the assistant (it calls a
 * tool again) or the call ends without being transferred, `connected` when it ends transferred.
 * Returns whether a started transfer was settled.
 */
export async function settleTransfer(db: DbOrTx, id: string, outcome: 'failed' | 'connected', at: Date) {
  const rows = await db
    .update(calls)
    .set({ transfer_status: outcome, transfer_updated_at: at, updated_at: productNow })
    .where(and(eq(calls.id, id), eq(calls.transfer_status, 'started')))
    .returning({ id: calls.id });
  return rows.length > 0;
}

/** The assistant went quiet once more (Vapi `hang`). */
export async function recordHang(db: DbOrTx, id: string, at: Date) {
  await db
    .update(calls)
    .set({ hangs: sql`${calls.hangs} + 1`, last_hang_at: at, updated_at: productNow })
    .where(eq(calls.id, id));
}

/** The platform's charge for the call: the first report's figure stands. */
export async function setCost(db: DbOrTx, id: string, cost: number) {
  await db
    .update(calls)
    .set({ cost, updated_at: productNow })
    .where(and(eq(calls.id, id), isNull(calls.cost)));
}

/**
 * Claims the call's post-call analysis for applying (recording an offer it names): true once per
 * call, so a repeated end-of-call report never records it twice.
 */
export async function claimAnalysis(db: DbOrTx, id: string) {
  const rows = await db
    .update(calls)
    .set({ analysis_applied_at: productNow })
    .where(and(eq(calls.id, id), isNull(calls.analysis_applied_at)))
    .returning({ id: calls.id });
  return rows.length > 0;
}
