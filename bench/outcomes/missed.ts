import type pg from 'pg';
import { defined } from '../../src/lib/defined.js';
import { mostLoadsOn } from '../../src/modules/agent/contact-plan.js';
import type { SimCarrier, SimLoad } from './market.js';

/** A load left uncovered, and an eligible, reachable carrier of its lane never contacted about it. */
export type MissedPair = { load: SimLoad; carrier: SimCarrier; minutes: number };

type Row = {
  id: string;
  carrier_id: string;
  load_id: string;
  bundle: string;
  modality: string;
  created_at: Date;
  sent_at: Date | null;
  send_after: Date | null;
  cancelled: boolean;
};

/**
 * Why each missed pair was missed, counted by cause, from what the service recorded (the
 * carrier's automated outreaches, the load's skips), first cause that fits:
 * - lane_message_full: the carrier got a contact of its own about the lane while the load was open,
 *   already offering the most loads a message or a call names (MOST_LOADS_PER_MESSAGE, _PER_CALL);
 * - lane_message_left_it_out: such a contact, not full, without the load;
 * - joined_without_it: a load of the lane joined the carrier's queued message while the load was
 *   open (a join adds only the load planned);
 * - queued_before_arrival: a lane contact queued before the load came in went out while it was open;
 * - other_lanes_only: contacted while the load was open, about other lanes only;
 * - not_contacted_while_open: no contact at all while the load was open.
 * Each cause is split by the load's last skip reason recorded for the carrier (none: never
 * recorded by name), and, for the last two, by whether the carrier's lane contacts stopped before
 * the load arrived.
 */
export async function whyMissed(
  pool: pg.Pool,
  pairs: MissedPair[],
  loadIds: readonly string[],
  carrierIds: readonly string[],
  laneOfLoad: ReadonlyMap<string, number>,
): Promise<{ causes: Record<string, number>; examples: string[] }> {
  const ids = [...new Set(pairs.map((p) => defined(carrierIds[p.carrier.index], 'carrier id')))];
  const rows = (
    await pool.query<Row>(
      `SELECT id, carrier_id, load_id, coalesce(bundle_id, id) AS bundle, modality, created_at, sent_at,
              send_after, cancelled_at IS NOT NULL AS cancelled
       FROM outreaches WHERE is_automated AND carrier_id = ANY($1::text[]) ORDER BY created_at`,
      [ids],
    )
  ).rows;
  const skips = new Map(
    (
      await pool.query<{ k: string; reason: string }>(
        `SELECT DISTINCT ON (load_id, carrier_id) load_id || '|' || carrier_id AS k, split_part(reason, ':', 1) AS reason
         FROM agent_activity WHERE kind = 'carrier_skipped' AND carrier_id = ANY($1::text[])
         ORDER BY load_id, carrier_id, created_at DESC`,
        [ids],
      )
    ).rows.map((r) => [r.k, r.reason]),
  );
  /** The pairs traced in full: the twelve reachable longest (a policy that misses thousands prints twelve). */
  const TRACED_PAIRS = 12;
  const traced = new Set([...pairs].sort((a, b) => b.minutes - a.minutes).slice(0, TRACED_PAIRS));
  const activity = (
    await pool.query<{
      load_id: string;
      carrier_id: string | null;
      kind: string;
      reason: string | null;
      at: Date;
    }>(
      `SELECT load_id, carrier_id, kind, reason, created_at AS at FROM agent_activity
       WHERE load_id = ANY($1::text[]) AND kind IN ('planning', 'wave', 'carrier_skipped', 'carrier_chosen')
       ORDER BY created_at`,
      [[...traced].map((p) => defined(loadIds[p.load.index], 'load id'))],
    )
  ).rows;
  const byCarrier = new Map<string, Row[]>();
  const bundles = new Map<string, Row[]>();
  for (const r of rows) {
    byCarrier.set(r.carrier_id, [...(byCarrier.get(r.carrier_id) ?? []), r]);
    bundles.set(r.bundle, [...(bundles.get(r.bundle) ?? []), r]);
  }
  /** The loads of each carrier's contacts: what a full contact carried instead of the missed load. */
  const carried = new Map(
    (
      await pool.query<{
        id: string;
        load_number: string;
        pickup_date: Date | null;
        load_status: string | null;
      }>('SELECT id, load_number, pickup_date, load_status FROM loads WHERE id = ANY($1::text[])', [
        [...new Set(rows.map((r) => r.load_id))],
      ])
    ).rows.map((r) => [r.id, r]),
  );
  const causes: Record<string, number> = {};
  const examples: string[] = [];
  for (const pair of pairs) {
    const { load, carrier } = pair;
    const loadId = defined(loadIds[load.index], 'load id');
    const carrierId = defined(carrierIds[carrier.index], 'carrier id');
    const open = (t: Date | null) => !!t && t.getTime() >= load.arrivesAt && t.getTime() < load.pickupAt;
    const own = (byCarrier.get(carrierId) ?? []).filter((r) => !r.cancelled);
    const onLane = (r: Row) => laneOfLoad.get(r.load_id) === load.lane;
    const sizeOf = (r: Row) => (bundles.get(r.bundle) ?? []).filter((x) => !x.cancelled).length;
    const full = (r: Row) => sizeOf(r) >= mostLoadsOn(r.modality);
    const primaries = own.filter((r) => r.id === r.bundle && onLane(r) && open(r.created_at));
    const cause = primaries.some(full)
      ? 'lane_message_full'
      : primaries.length
        ? 'lane_message_left_it_out'
        : own.some((r) => r.id !== r.bundle && onLane(r) && open(r.created_at))
          ? 'joined_without_it'
          : own.some((r) => onLane(r) && !open(r.created_at) && open(r.sent_at ?? r.send_after))
            ? 'queued_before_arrival'
            : own.some((r) => open(r.sent_at))
              ? 'other_lanes_only'
              : 'not_contacted_while_open';
    const laneBefore = own.some((r) => onLane(r) && r.created_at.getTime() < load.arrivesAt);
    const skip = skips.get(`${loadId}|${carrierId}`) ?? 'no skip recorded';
    const key = `${cause} / ${skip}${cause.endsWith('while_open') || cause === 'other_lanes_only' ? (laneBefore ? ' / lane contacted before' : ' / no lane contact before') : ''}`;
    causes[key] = (causes[key] ?? 0) + 1;
    const long = traced.has(pair);
    if (long || examples.filter((e) => e.startsWith(cause)).length < 2) {
      const times = own
        .filter((r) => r.id === r.bundle)
        .map(
          (r) =>
            `${r.modality}${onLane(r) ? '*' : ''} ${r.created_at.toISOString().slice(5, 16)}->${(r.sent_at ?? r.send_after)?.toISOString().slice(11, 16)} x${sizeOf(r)}`,
        );
      examples.push(
        `${cause}${long ? ` [${pair.minutes} min reachable]` : ''}: load ${load.number} (lane ${load.lane}) ${new Date(load.arrivesAt).toISOString().slice(5, 16)}..${new Date(load.pickupAt).toISOString().slice(5, 16)}, carrier ${carrier.index} (${carrier.homeState}): ${times.join(', ')}`,
      );
      if (long) {
        const hhmm = (d: Date) => d.toISOString().slice(5, 16);
        const trace = activity
          .filter((a) => a.load_id === loadId && (a.carrier_id === null || a.carrier_id === carrierId))
          .map((a) => `${hhmm(a.at)} ${a.kind}${a.reason ? ` ${a.reason}` : ''}`);
        examples.push(`    load's planning, and this carrier: ${trace.join('; ')}`);
        for (const r of primaries.filter(full)) {
          const loads = (bundles.get(r.bundle) ?? [])
            .filter((x) => !x.cancelled)
            .map((x) => {
              const l = carried.get(x.load_id);
              return `${l?.load_number} (pickup ${l?.pickup_date?.toISOString().slice(5, 16)}, ${l?.load_status ?? 'no status'})`;
            });
          examples.push(`    full ${r.modality} ${hhmm(r.created_at)}: ${loads.join(', ')}`);
        }
      }
    }
  }
  return {
    causes: Object.fromEntries(Object.entries(causes).sort((a, b) => b[1] - a[1])),
    examples,
  };
}
