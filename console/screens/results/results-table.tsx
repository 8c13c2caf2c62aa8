import { memo, useEffect, useState } from 'react';
import type { GroupBy, ResultRow } from '../../api/results';
import { duration, groupName, pct, perLoad, times } from './figures';

/** A figure with what it was computed from: the ratio, then numerator / denominator (also on hover). */
function Ratio({ value, n, d, of }: { value: string; n: number; d: number; of: string }) {
  return (
    <td title={`${n} of ${d} ${of}`}>
      {value}{' '}
      <small className="muted">
        {n}/{d}
      </small>
    </td>
  );
}

/** A median with how many loads it is the median of. */
function Median({ value, n }: { value: string; n: number | null }) {
  return (
    <td title={`median over ${n ?? 0} covered loads`}>
      {value} <small className="muted">n={n ?? 0}</small>
    </td>
  );
}

const Row = memo(function Row({
  row: r,
  groupBy,
  margins,
}: {
  row: ResultRow;
  groupBy: GroupBy | undefined;
  margins: boolean;
}) {
  return (
    <tr>
      <th scope="row">{groupName(r, groupBy)}</th>
      <td>{r.loads_handed}</td>
      <Ratio value={pct(r.coverage_rate)} n={r.covered} d={r.loads_handed} of="handed loads covered" />
      <Ratio
        value={pct(r.agent_coverage_rate)}
        n={r.booked_by_agent}
        d={r.loads_handed}
        of="handed loads booked by the agent"
      />
      <td>{r.booked_by_user_after_contact}</td>
      <td>{duration(r.time_to_cover_p50_seconds)}</td>
      <td>{duration(r.time_to_cover_p90_seconds)}</td>
      <Median value={times(r.booked_vs_posted_median)} n={r.booked_vs_posted_count} />
      <Median value={times(r.booked_vs_market_median)} n={r.booked_vs_market_count} />
      <Median value={times(r.booked_vs_max_buy_median)} n={r.booked_vs_max_buy_count} />
      <Ratio
        value={pct(r.booked_above_max_buy_rate)}
        n={r.booked_above_max_buy}
        d={r.booked_vs_max_buy_count}
        of="covered loads booked above the ceiling"
      />
      <Ratio
        value={perLoad(r.contacts_per_booking.total)}
        n={r.contacts.total}
        d={r.covered}
        of="(contacts per covered load)"
      />
      <Ratio value={pct(r.connect_rate)} n={r.connects} d={r.contacts.total} of="contacts connected" />
      <Ratio
        value={perLoad(r.offers_per_load)}
        n={r.offers}
        d={r.loads_handed}
        of="(offers per handed load)"
      />
      <Ratio value={pct(r.fall_off_rate)} n={r.fall_offs} d={r.bookings} of="bookings undone" />
      <Ratio
        value={pct(r.handoff_rate)}
        n={r.loads_with_handoff}
        d={r.loads_handed}
        of="loads handed to a rep"
      />
      {margins ? <Median value={pct(r.margin_pct_median)} n={r.margin_count} /> : null}
    </tr>
  );
});

/** Rows rendered at once; the rest follow in slices of this size, one task each. */
const SLICE = 50;

/**
 * How many of the rows to render now: the first slice at once, then one more slice per task
 * (a timer after each commit), so a thousand groups never make one long task.
 */
function useSliced(count: number) {
  const [shown, setShown] = useState(Math.min(count, SLICE));
  useEffect(() => {
    setShown(Math.min(count, SLICE));
  }, [count]);
  useEffect(() => {
    if (shown >= count) return;
    const timer = setTimeout(() => setShown((n) => Math.min(count, n + SLICE)), 0);
    return () => clearTimeout(timer);
  }, [shown, count]);
  return shown;
}

/** Every figure of every group; a ratio shows its numerator and denominator beside it. */
export function ResultsTable({
  rows,
  groupBy,
  margins,
}: {
  rows: readonly ResultRow[];
  groupBy: GroupBy | undefined;
  margins: boolean;
}) {
  const shown = useSliced(rows.length);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table that scrolls sideways must be reachable by keyboard
    <section className="table-wrap" aria-labelledby="figures-h" tabIndex={0}>
      <h2 id="figures-h" className="table-title">
        Figures by group
      </h2>
      <table className="figures">
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">Loads handed</th>
            <th scope="col">Coverage</th>
            <th scope="col">Booked by the agent</th>
            <th scope="col">Booked by a rep after contact</th>
            <th scope="col">Time to cover (median)</th>
            <th scope="col">Time to cover (90th percentile)</th>
            <th scope="col">Booked against posted</th>
            <th scope="col">Booked against market</th>
            <th scope="col">Booked against the ceiling</th>
            <th scope="col">Booked above the ceiling</th>
            <th scope="col">Contacts per booking</th>
            <th scope="col">Connect rate</th>
            <th scope="col">Offers per load</th>
            <th scope="col">Fall-offs</th>
            <th scope="col">Handed to a rep</th>
            {margins ? <th scope="col">Margin (median)</th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, shown).map((r) => (
            <Row key={r.group ?? 'all'} row={r} groupBy={groupBy} margins={margins} />
          ))}
        </tbody>
      </table>
      {shown < rows.length ? (
        <p className="empty">
          Showing {shown} of {rows.length} groups…
        </p>
      ) : null}
    </section>
  );
}
