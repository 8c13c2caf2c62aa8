import { type SQL, sql } from 'drizzle-orm';
import type pg from 'pg';
import { readInOneSnapshot } from '../../db/shared-snapshot.js';
import type { ResultGroup } from './results-schemas.js';
import { agentLoadResults } from './results-tables.js';

const r = agentLoadResults;

/**
 * What a group's key is made of (stored columns of the ledger), and how it is shown: `none` stands
 * for loads without a value.
 */
const GROUP_KEYS: Record<ResultGroup, { key: SQL; shown: (g: SQL) => SQL }> = {
  lane: { key: sql`${r.lane}`, shown: (g) => g },
  equipment_type: { key: sql`${r.equipment_type}`, shown: (g) => g },
  tier: { key: sql`${r.booked_tier}`, shown: (g) => sql`${g}::text` },
  channel: { key: sql`${r.booked_channel}`, shown: (g) => g },
  customer_name: { key: sql`${r.customer_name}`, shown: (g) => g },
  carrier_rep_user_id: { key: sql`${r.carrier_rep_user_id}`, shown: (g) => g },
  day: { key: sql`${r.handed_day}`, shown: (g) => sql`to_char(${g}, 'YYYY-MM-DD')` },
  week: { key: sql`${r.handed_week}`, shown: (g) => sql`to_char(${g}, 'YYYY-MM-DD')` },
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

/** A group's figures before any load counts: what a group without covered loads starts from. */
export const ZERO_SUMS: Readonly<ResultSums> = Object.freeze({
  group: null,
  loads_handed: 0,
  booked_by_agent: 0,
  booked_by_user_after_contact: 0,
  booked_by_user_without_contact: 0,
  covered: 0,
  ttc_p50: null,
  ttc_p90: null,
  lead_p50: null,
  vs_posted: null,
  vs_posted_n: 0,
  vs_market: null,
  vs_market_n: 0,
  vs_max: null,
  vs_max_n: 0,
  above_max: 0,
  agent_above_max: 0,
  margin: null,
  margin_n: 0,
  contacts_call: 0,
  contacts_email: 0,
  contacts_whatsapp: 0,
  connects: 0,
  offers: 0,
  rounds: 0,
  bookings: 0,
  fall_offs: 0,
  with_handoff: 0,
});

type Raw = Record<string, string | number | number[] | null>;

/**
 * The results of the loads handed to the agent in [from, to), per group. Every per-row value is
 * computed when the ledger row is written (stored generated columns), so a read only counts, sums
 * and sorts, in two statements: the counts and sums over every handed load of the period (an
 * index-only scan of the covering index), and the medians over the covered loads only (one of the
 * partial covering index). They run side by side on two connections that share one snapshot, so
 * the figures agree with each other while bookings are written (see readInOneSnapshot).
 */
export async function resultSums(
  pool: pg.Pool,
  organizationId: string,
  range: { from: Date; to: Date },
  groupBy: ResultGroup | null,
): Promise<ResultSums[]> {
  const key = groupBy ? GROUP_KEYS[groupBy].key : sql`NULL::text`;
  const shown = groupBy ? sql`coalesce(${GROUP_KEYS[groupBy].shown(key)}, 'none')` : sql`NULL::text`;
  const period = sql`${r.organization_id} = ${organizationId}
    AND ${r.handed_at} >= ${range.from.toISOString()}::timestamptz
    AND ${r.handed_at} < ${range.to.toISOString()}::timestamptz`;
  const standing = sql`(booked_at IS NOT NULL AND NOT booked_fell_off)`;
  const counts = sql`
    SELECT ${shown} AS "group",
      count(*) AS loads_handed,
      count(*) FILTER (WHERE ${standing} AND booked_by = 'agent') AS booked_by_agent,
      count(*) FILTER (WHERE ${standing} AND booked_by IS DISTINCT FROM 'agent' AND booked_after_contact) AS booked_by_user_after_contact,
      count(*) FILTER (WHERE ${standing} AND booked_by IS DISTINCT FROM 'agent' AND NOT coalesce(booked_after_contact, false)) AS booked_by_user_without_contact,
      coalesce(sum(contacts_call), 0) AS contacts_call,
      coalesce(sum(contacts_email), 0) AS contacts_email,
      coalesce(sum(contacts_whatsapp), 0) AS contacts_whatsapp,
      coalesce(sum(connects), 0) AS connects,
      coalesce(sum(offers), 0) AS offers,
      coalesce(sum(bookings), 0) AS bookings,
      coalesce(sum(fall_offs), 0) AS fall_offs,
      count(*) FILTER (WHERE handoffs > 0) AS with_handoff
    FROM ${r}
    WHERE ${period}
    GROUP BY ${key}
    ORDER BY 1`;
  const medians = sql`
    SELECT ${shown} AS "group",
      count(*) AS covered,
      percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY ttc_seconds) AS ttc,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY lead_seconds) AS lead_p50,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY vs_posted) AS vs_posted,
      count(vs_posted) AS vs_posted_n,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY vs_market) AS vs_market,
      count(vs_market) AS vs_market_n,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY vs_max) AS vs_max,
      count(vs_max) AS vs_max_n,
      count(*) FILTER (WHERE vs_max > 1) AS above_max,
      count(*) FILTER (WHERE vs_max > 1 AND booked_by = 'agent') AS agent_above_max,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY margin) AS margin,
      count(margin) AS margin_n,
      coalesce(sum(offers + counters), 0) AS rounds
    FROM ${r}
    WHERE ${period} AND ${r.covered}
    GROUP BY ${key}`;
  // The covered loads of a long period are sorted by group in memory rather than on disk.
  const [sums = [], covered = []] = await readInOneSnapshot<Raw>(
    pool,
    [counts, medians],
    [sql`SET LOCAL work_mem = '16MB'`],
  );
  const byGroup = new Map(covered.map((m) => [m.group, m]));
  return sums.map((s) => ({ ...ZERO_SUMS, ...figuresOf(byGroup.get(s.group)), ...figuresOf(s) }));
}

/** A statement's row as figures: counts arrive as strings (bigint), p50 and p90 in one array. */
function figuresOf(row: Raw | undefined): Partial<ResultSums> {
  const out: Record<string, string | number | null> = {};
  for (const [k, v] of Object.entries(row ?? {})) {
    if (k === 'ttc') {
      const [p50, p90] = Array.isArray(v) ? v : [null, null];
      out.ttc_p50 = p50 ?? null;
      out.ttc_p90 = p90 ?? null;
      // The group column is text in the SQL above; the others are numbers.
    } else out[k] = k === 'group' || v === null ? (v as string | null) : Number(v);
  }
  return out;
}
