import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { newId } from '../../domain/ids.js';
import type { LoadSummary } from '../../domain/negotiation.js';
import type { OrgScope } from '../../domain/scope.js';
import { findLoadFields } from '../loads/index.js';
import { type ChannelModality, type OutreachRow, outreachOfMessageIds } from '../outreaches/index.js';
import {
  type DueOutreach,
  dueOutreachRows,
  dueWorkableLoadsSql,
  pendingJoinsOf as pendingJoinRows,
  workableLoadsToEnrolSql,
} from '../read-side/index.js';
import { agentActivity, agentLoadStates, agentMessages, type PlanningOutcome } from './agent-tables.js';

// ------------------------------------------------------------------------------------ planning

/** Gives every workable load without one a planning state, due at `now`. */
export async function enrolWorkableLoads(db: DbOrTx, now: Date, organizationId?: string) {
  await db.execute(sql`
    INSERT INTO agent_load_states (load_id, organization_id, next_wave_at)
    ${workableLoadsToEnrolSql(now, organizationId)}
    ON CONFLICT DO NOTHING`);
}

/** Leases up to `limit` workable loads whose next wave is due, for two minutes. */
export async function leaseDueLoads(db: DbOrTx, now: Date, limit: number, organizationId?: string) {
  const leased = await db.execute<{ load_id: string; organization_id: string }>(sql`
    UPDATE agent_load_states SET lease_until = now() + interval '2 minutes'
    WHERE load_id IN (${dueWorkableLoadsSql(now, limit, organizationId)})
    RETURNING load_id, organization_id`);
  return leased.rows;
}

/**
 * What the agent said about a load's last planning, and when it plans the next wave; returns the
 * waves planned so far (this one included).
 */
export async function recordDecision(
  tx: DbOrTx,
  loadId: string,
  decision: { text: string; outcome: PlanningOutcome; nextAt: Date; wave?: { tier: number | null } },
): Promise<number> {
  const [state] = await tx
    .update(agentLoadStates)
    .set({
      next_wave_at: decision.nextAt,
      lease_until: null,
      last_decision: decision.text,
      last_outcome: decision.outcome,
      updated_at: productNow,
      ...(decision.wave
        ? { waves_planned: sql`${agentLoadStates.waves_planned} + 1`, last_wave_tier: decision.wave.tier }
        : {}),
    })
    .where(eq(agentLoadStates.load_id, loadId))
    .returning({ waves: agentLoadStates.waves_planned });
  return state?.waves ?? 0;
}

export type ActivityEntry = Omit<typeof agentActivity.$inferInsert, 'id' | 'created_at'>;

/** Entries of the load's planning timeline, in the caller's transaction (the planning's own). */
export async function recordActivity(tx: DbOrTx, entries: ActivityEntry[]) {
  if (entries.length === 0) return;
  await tx.insert(agentActivity).values(entries.map((e) => ({ ...e, id: newId('agentActivity') })));
}

export type AgentLoad = LoadSummary & {
  id: string;
  organization_id: string;
  max_buy_rate: number | null;
  distance: number | null;
  origin_state: string | null;
};

/** The load as the agent speaks of it (lane as "City, ST"), or null. */
export async function agentLoadOf(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
): Promise<AgentLoad | null> {
  const row = await findLoadFields(db, organizationId, loadId, [
    'id',
    'organization_id',
    'load_number',
    'equipment_type',
    'origin_city',
    'origin_state',
    'destination_city',
    'destination_state',
    'pickup_date',
    'posted_rate',
    'max_buy_rate',
    'distance',
  ]);
  if (!row) return null;
  const place = (city: string | null, state: string | null) =>
    [city, state].filter(Boolean).join(', ') || 'TBD';
  return {
    ...row,
    origin: place(row.origin_city, row.origin_state),
    destination: place(row.destination_city, row.destination_state),
  };
}

// ---------------------------------------------------------------------------------- dispatching

export type { DueOutreach };

/**
 * Queued automated outreaches whose time has come, locked (SKIP LOCKED: another instance takes
 * others), each with the contact guard's verdict, whether its load is still worked, and whether it
 * joined a bundle whose first outreach has already gone out (`late_join`: planned while the
 * dispatcher was taking the bundle; sent alone it would be a second contact at once).
 */
export async function dueOutreaches(
  tx: DbOrTx,
  limit: number,
  organizationId?: string,
): Promise<DueOutreach[]> {
  const rows = await dueOutreachRows(tx, limit, organizationId);
  // A bundle cut by the limit waits whole for the next batch: its loads go out in one message.
  const last = rows.at(-1)?.bundle;
  const whole = rows.length < limit || rows.every((r) => r.bundle === last);
  return (whole ? rows : rows.filter((r) => r.bundle !== last)).map(({ bundle: _b, ...r }) => r);
}

/**
 * Queued outreaches that joined one of `bundleIds` (bundles being claimed for sending) and may still
 * go with it: the guard lets the carrier be offered the load and the load is still worked. Locked
 * (SKIP LOCKED: one another instance holds is left to it).
 */
export const pendingJoinsOf = (tx: DbOrTx, bundleIds: readonly string[]): Promise<string[]> =>
  pendingJoinRows(tx, bundleIds);

/** One message of a conversation, either way. */
export async function insertMessage(
  db: DbOrTx,
  outreach: OutreachRow,
  message: {
    direction: 'outbound' | 'inbound';
    intent: string | null;
    body: string;
    externalId: string | null;
    /** An inbound message: how it was read (see agent_messages.reading). */
    reading?: unknown;
  },
): Promise<string> {
  const id = newId('agentMessage');
  await db.insert(agentMessages).values({
    id,
    organization_id: outreach.organization_id,
    outreach_id: outreach.id,
    load_id: outreach.load_id,
    carrier_id: outreach.carrier_id,
    channel: outreach.modality,
    direction: message.direction,
    intent: message.intent,
    body: message.body.slice(0, 20_000),
    external_message_id: message.externalId,
    reading: message.reading ?? null,
  });
  return id;
}

// -------------------------------------------------------------------------------- conversations

/** The channel id of the carrier's latest message in the outreach, to thread an answer under it. */
export async function lastInboundMessageId(db: DbOrTx, outreachId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: agentMessages.external_message_id })
    .from(agentMessages)
    .where(
      and(
        eq(agentMessages.outreach_id, outreachId),
        eq(agentMessages.direction, 'inbound'),
        sql`${agentMessages.external_message_id} IS NOT NULL`,
      ),
    )
    .orderBy(desc(agentMessages.created_at), desc(agentMessages.id))
    .limit(1);
  return row?.id ?? null;
}

/** The outreach whose first message, or any later one, carries one of these channel message ids. */
export async function outreachOfMessages(db: DbOrTx, modality: ChannelModality, messageIds: string[]) {
  if (!messageIds.length) return null;
  const ids = sql.param(messageIds);
  return outreachOfMessageIds(
    db,
    modality,
    ids,
    sql`SELECT outreach_id FROM agent_messages WHERE external_message_id = ANY(${ids}::text[])`,
  );
}

/** The conversation of an outreach, oldest first: the public fields only (not the channel's message ids). */
export function outreachMessages(db: DbOrTx, scope: OrgScope, outreachId: string) {
  return db
    .select({
      id: agentMessages.id,
      outreach_id: agentMessages.outreach_id,
      channel: agentMessages.channel,
      direction: agentMessages.direction,
      intent: agentMessages.intent,
      body: agentMessages.body,
      created_at: agentMessages.created_at,
    })
    .from(agentMessages)
    .where(
      and(eq(agentMessages.organization_id, scope.organizationId), eq(agentMessages.outreach_id, outreachId)),
    )
    .orderBy(asc(agentMessages.created_at), asc(agentMessages.id));
}
