// The call reads other modules use: calls by id, their transcripts, a load's calls and SQL fragments over calls.

import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import type { TranscriptMessage } from '../../integrations/voice/voice-provider.js';
import { calls, transcriptMessages } from './calls-tables.js';

export type CallRow = typeof calls.$inferSelect;

export async function findCalls(db: DbOrTx, scope: OrgScope, ids: string[]) {
  if (ids.length === 0) return new Map<string, CallRow>();
  const rows = await db
    .select()
    .from(calls)
    .where(and(eq(calls.organization_id, scope.organizationId), inArray(calls.id, ids)));
  return new Map(rows.map((r) => [r.id, r]));
}

/** The transcripts of several calls in one query. */
export async function transcriptsOf(db: DbOrTx, scope: OrgScope, callIds: string[]) {
  const out = new Map<string, TranscriptMessage[]>();
  if (callIds.length === 0) return out;
  const rows = await db
    .select()
    .from(transcriptMessages)
    .where(
      and(
        eq(transcriptMessages.organization_id, scope.organizationId),
        inArray(transcriptMessages.call_id, callIds),
      ),
    )
    .orderBy(asc(transcriptMessages.call_id), asc(transcriptMessages.position));
  for (const r of rows) {
    const list = out.get(r.call_id) ?? [];
    list.push({
      ...(r.extra ?? {}),
      role: r.role,
      content: r.content,
      id: r.message_id,
      timestamp: r.timestamp,
      interrupted: r.interrupted,
      transcript_confidence: r.transcript_confidence,
      // Stored from a parsed TranscriptMessage's own tool_calls (calls-repository), so it has their shape.
      tool_calls: r.tool_calls as TranscriptMessage['tool_calls'],
      tool_call_id: r.tool_call_id,
    });
    out.set(r.call_id, list);
  }
  return out;
}

/** EXISTS of a call on the load the caller's query names (its columns or aliases). */
export const loadHasCall = (organizationId: SQL, loadId: SQL): SQL =>
  sql`EXISTS (SELECT 1 FROM ${calls} x WHERE x.organization_id = ${organizationId} AND x.load_id = ${loadId})`;

/** How many of the organization's loads have a call (one row, `n`). */
export const countLoadsWithCalls = (organizationId: string): SQL =>
  sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${calls} WHERE organization_id = ${organizationId} AND load_id IS NOT NULL) d`;

/** A load's calls, newest first. */
export function listLoadCalls(db: DbOrTx, scope: OrgScope, loadId: string) {
  return db
    .select()
    .from(calls)
    .where(and(eq(calls.organization_id, scope.organizationId), eq(calls.load_id, loadId)))
    .orderBy(desc(calls.created_at), desc(calls.id));
}
