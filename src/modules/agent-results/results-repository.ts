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
  // Each row is first reduced to the flags and float8 values the aggregates read (numeric division
  // and extract() are several times slower), then grouped once; p50 and p90 of time to cover share
  // one sort.
  const rows = await db.execute<Record<string, string | number | number[] | null>>(sql`
    SELECT g AS "group",
      count(*) AS loads_handed,
      count(*) FILTER (WHERE standing AND by_agent) AS booked_by_agent,
      count(*) FILTER (WHERE standing AND NOT by_agent AND after_contact) AS booked_by_user_after_contact,
      count(*) FILTER (WHERE standing AND NOT by_agent AND NOT after_contact) AS booked_by_user_without_contact,
      count(*) FILTER (WHERE covered) AS covered,
      percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY ttc) FILTER (WHERE covered) AS ttc,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY lead) FILTER (WHERE covered AND lead IS NOT NULL) AS lead_p50,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY vs_posted) FILTER (WHERE covered AND vs_posted IS NOT NULL) AS vs_posted,
      count(*) FILTER (WHERE covered AND vs_posted IS NOT NULL) AS vs_posted_n,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY vs_market) FILTER (WHERE covered AND vs_market IS NOT NULL) AS vs_market,
      count(*) FILTER (WHERE covered AND vs_market IS NOT NULL) AS vs_market_n,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY vs_max) FILTER (WHERE covered AND vs_max IS NOT NULL) AS vs_max,
      count(*) FILTER (WHERE covered AND vs_max IS NOT NULL) AS vs_max_n,
      count(*) FILTER (WHERE covered AND vs_max > 1) AS above_max,
      count(*) FILTER (WHERE covered AND by_agent AND vs_max > 1) AS agent_above_max,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY margin) FILTER (WHERE covered AND margin IS NOT NULL) AS margin,
      count(*) FILTER (WHERE covered AND margin IS NOT NULL) AS margin_n,
      coalesce(sum(contacts_call), 0) AS contacts_call,
      coalesce(sum(contacts_email), 0) AS contacts_email,
      coalesce(sum(contacts_whatsapp), 0) AS contacts_whatsapp,
      coalesce(sum(connects), 0) AS connects,
      coalesce(sum(offers), 0) AS offers,
      coalesce(sum(rounds) FILTER (WHERE covered), 0) AS rounds,
      coalesce(sum(bookings), 0) AS bookings,
      coalesce(sum(fall_offs), 0) AS fall_offs,
      count(*) FILTER (WHERE handoffs > 0) AS with_handoff
    FROM (
      SELECT ${key} AS g,
        booked_at IS NOT NULL AND NOT booked_fell_off AS standing,
        coalesce(booked_by = 'agent', false) AS by_agent,
        coalesce(booked_after_contact, false) AS after_contact,
        booked_at IS NOT NULL AND NOT booked_fell_off
          AND (booked_by = 'agent' OR coalesce(booked_after_contact, false)) AS covered,
        date_part('epoch', booked_at - handed_at) AS ttc,
        date_part('epoch', pickup_at - booked_at) AS lead,
        booked_amount::float8 / nullif(booked_posted_rate, 0)::float8 AS vs_posted,
        booked_amount::float8 / nullif(booked_market_rate, 0)::float8 AS vs_market,
        booked_amount::float8 / nullif(booked_max_buy_rate, 0)::float8 AS vs_max,
        (booked_customer_rate - booked_amount)::float8 / nullif(booked_customer_rate, 0)::float8 AS margin,
        contacts_call, contacts_email, contacts_whatsapp, connects, offers, offers + counters AS rounds,
        bookings, fall_offs, handoffs
      FROM ${r}
      WHERE ${r.organization_id} = ${organizationId}
        AND ${r.handed_at} >= ${range.from.toISOString()}::timestamptz
        AND ${r.handed_at} < ${range.to.toISOString()}::timestamptz
    ) x
    GROUP BY 1
    ORDER BY 1`);
  return rows.rows.map(({ ttc, ...row }) => {
    const out: Record<string, string | number | null> = {};
    for (const [k, v] of Object.entries(row))
      out[k] = k === 'group' || v === null ? (v as string | null) : Number(v);
    const [p50, p90] = Array.isArray(ttc) ? ttc : [null, null];
    return { ...out, ttc_p50: p50 ?? null, ttc_p90: p90 ?? null } as unknown as ResultSums;
  });
}
