import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { ResultGroup } from './results-schemas.js';
import { agentLoadResults } from './results-tables.js';

const r = agentLoadResults;

/** What a group's key is made of; `none` stands for loads without a value. */
const GROUP_KEYS: Record<ResultGroup, SQL> = {
  lane: sql`coalesce(${r.origin_state}, '?') || '-' || coalesce(${r.destination_state}, '?')`,
  equipment_type: sql`${r.equipment_type}`,
  tier: sql`${r.booked_tier}::text`,
  channel: sql`${r.booked_channel}`,
  customer_name: sql`${r.customer_name}`,
  carrier_rep_user_id: sql`${r.carrier_rep_user_id}`,
  day: sql`to_char(date_trunc('day', ${r.handed_at} AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`,
  week: sql`to_char(date_trunc('week', ${r.handed_at} AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`,
};

/** The sums and medians of one group, as the database computes them (numbers, or null). */
export interface ResultSums {
  group: string | null;
  loads_handed: number;
  booked_by_agent: number;
  booked_by_user_after_contact: number;
  booked_by_user_without_contact: number;
  covered: number;
  ttc_p50: number | null;
  ttc_p90: number | null;
  lead_p50: number | null;
  vs_posted: number | null;
  vs_posted_n: number;
  vs_market: number | null;
  vs_market_n: number;
  vs_max: number | null;
  vs_max_n: number;
  above_max: number;
  agent_above_max: number;
  margin: number | null;
  margin_n: number;
  contacts_call: number;
  contacts_email: number;
  contacts_whatsapp: number;
  connects: number;
  offers: number;
  rounds: number;
  bookings: number;
  fall_offs: number;
  with_handoff: number;
}

/**
 * The results of the loads handed to the agent in [from, to), per group: every figure is an
 * aggregate of the ledger rows, read through its (organization_id, handed_at) index, so a period
 * costs one range scan whatever the grouping.
 */
export async function resultSums(
  db: DbOrTx,
  organizationId: string,
  range: { from: Date; to: Date },
  groupBy: ResultGroup | null,
): Promise<ResultSums[]> {
  const key = groupBy ? sql`coalesce(${GROUP_KEYS[groupBy]}, 'none')` : sql`NULL::text`;
  const covered = sql`(${r.booked_at} IS NOT NULL AND NOT ${r.booked_fell_off} AND (${r.booked_by} = 'agent' OR ${r.booked_after_contact}))`;
  const median = (value: SQL, when: SQL) =>
    sql`percentile_cont(0.5) WITHIN GROUP (ORDER BY ${value}) FILTER (WHERE ${covered} AND ${when})`;
  const rows = await db.execute<Record<keyof ResultSums, string | number | null>>(sql`
    SELECT ${key} AS "group",
      count(*) AS loads_handed,
      count(*) FILTER (WHERE ${r.booked_at} IS NOT NULL AND NOT ${r.booked_fell_off} AND ${r.booked_by} = 'agent') AS booked_by_agent,
      count(*) FILTER (WHERE ${r.booked_at} IS NOT NULL AND NOT ${r.booked_fell_off} AND ${r.booked_by} = 'user' AND ${r.booked_after_contact}) AS booked_by_user_after_contact,
      count(*) FILTER (WHERE ${r.booked_at} IS NOT NULL AND NOT ${r.booked_fell_off} AND ${r.booked_by} = 'user' AND NOT ${r.booked_after_contact}) AS booked_by_user_without_contact,
      count(*) FILTER (WHERE ${covered}) AS covered,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ${r.booked_at} - ${r.handed_at})) FILTER (WHERE ${covered}) AS ttc_p50,
      percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM ${r.booked_at} - ${r.handed_at})) FILTER (WHERE ${covered}) AS ttc_p90,
      ${median(sql`extract(epoch FROM ${r.pickup_at} - ${r.booked_at})`, sql`${r.pickup_at} IS NOT NULL`)} AS lead_p50,
      ${median(sql`${r.booked_amount} / ${r.booked_posted_rate}`, sql`${r.booked_posted_rate} > 0`)} AS vs_posted,
      count(*) FILTER (WHERE ${covered} AND ${r.booked_posted_rate} > 0) AS vs_posted_n,
      ${median(sql`${r.booked_amount} / ${r.booked_market_rate}`, sql`${r.booked_market_rate} > 0`)} AS vs_market,
      count(*) FILTER (WHERE ${covered} AND ${r.booked_market_rate} > 0) AS vs_market_n,
      ${median(sql`${r.booked_amount} / ${r.booked_max_buy_rate}`, sql`${r.booked_max_buy_rate} > 0`)} AS vs_max,
      count(*) FILTER (WHERE ${covered} AND ${r.booked_max_buy_rate} > 0) AS vs_max_n,
      count(*) FILTER (WHERE ${covered} AND ${r.booked_amount} > ${r.booked_max_buy_rate}) AS above_max,
      count(*) FILTER (WHERE ${covered} AND ${r.booked_by} = 'agent' AND ${r.booked_amount} > ${r.booked_max_buy_rate}) AS agent_above_max,
      ${median(sql`(${r.booked_customer_rate} - ${r.booked_amount}) / ${r.booked_customer_rate}`, sql`${r.booked_customer_rate} > 0`)} AS margin,
      count(*) FILTER (WHERE ${covered} AND ${r.booked_customer_rate} > 0) AS margin_n,
      coalesce(sum(${r.contacts_call}), 0) AS contacts_call,
      coalesce(sum(${r.contacts_email}), 0) AS contacts_email,
      coalesce(sum(${r.contacts_whatsapp}), 0) AS contacts_whatsapp,
      coalesce(sum(${r.connects}), 0) AS connects,
      coalesce(sum(${r.offers}), 0) AS offers,
      coalesce(sum(${r.offers} + ${r.counters}) FILTER (WHERE ${covered}), 0) AS rounds,
      coalesce(sum(${r.bookings}), 0) AS bookings,
      coalesce(sum(${r.fall_offs}), 0) AS fall_offs,
      count(*) FILTER (WHERE ${r.handoffs} > 0) AS with_handoff
    FROM ${r}
    WHERE ${r.organization_id} = ${organizationId}
      AND ${r.handed_at} >= ${range.from.toISOString()}::timestamptz
      AND ${r.handed_at} < ${range.to.toISOString()}::timestamptz
    GROUP BY 1
    ORDER BY 1`);
  return rows.rows.map((row) => {
    const out: Record<string, string | number | null> = {};
    for (const [k, v] of Object.entries(row)) out[k] = k === 'group' || v === null ? v : Number(v);
    return out as unknown as ResultSums;
  });
}
