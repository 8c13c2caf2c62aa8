import type { GroupBy, ResultRow } from '../../api/results';

export const GROUPINGS: readonly { value: GroupBy | ''; label: string }[] = [
  { value: '', label: 'No grouping (the whole range)' },
  { value: 'lane', label: 'Lane' },
  { value: 'channel', label: 'Channel' },
  { value: 'tier', label: 'Tier' },
  { value: 'equipment_type', label: 'Equipment' },
  { value: 'customer_name', label: 'Customer' },
  { value: 'carrier_rep_user_id', label: 'Rep' },
  { value: 'day', label: 'Day' },
  { value: 'week', label: 'Week' },
];

export const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
export const times = (v: number | null) => (v === null ? '—' : `${v.toFixed(2)}×`);
export const perLoad = (v: number | null) => (v === null ? '—' : v.toFixed(2));

/** A duration in seconds as a person reads it: "45 min", "3 h 20 min", "2 d 4 h". */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  const m = Math.round(seconds / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 ? ` ${m % 60} min` : ''}`;
  return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ''}`;
}

/** A figure the chart can show: its value in a row and how it reads. */
export interface Figure {
  key: string;
  label: string;
  value(row: ResultRow): number | null;
  format(v: number): string;
  /** Shown only when the API returned it (margins: not to a MEMBER). */
  margin?: boolean;
}

export const FIGURES: readonly Figure[] = [
  { key: 'coverage', label: 'Coverage rate', value: (r) => r.coverage_rate, format: (v) => pct(v) },
  { key: 'agent', label: 'Booked by the agent', value: (r) => r.agent_coverage_rate, format: (v) => pct(v) },
  {
    key: 'ttc',
    label: 'Time to cover (median, hours)',
    value: (r) => (r.time_to_cover_p50_seconds === null ? null : r.time_to_cover_p50_seconds / 3600),
    format: (v) => `${v.toFixed(1)} h`,
  },
  {
    key: 'posted',
    label: 'Booked against posted (median)',
    value: (r) => r.booked_vs_posted_median,
    format: (v) => times(v),
  },
  {
    key: 'ceiling',
    label: 'Booked against the ceiling (median)',
    value: (r) => r.booked_vs_max_buy_median,
    format: (v) => times(v),
  },
  {
    key: 'contacts',
    label: 'Contacts per booking',
    value: (r) => r.contacts_per_booking.total,
    format: (v) => perLoad(v),
  },
  {
    key: 'handed',
    label: 'Loads handed',
    value: (r) => r.loads_handed,
    format: (v) => String(Math.round(v)),
  },
  {
    key: 'margin',
    label: 'Margin (median)',
    value: (r) => r.margin_pct_median,
    format: (v) => pct(v),
    margin: true,
  },
];

/** The group's name as shown: the API's value, `none` for loads without one, the whole range without grouping. */
export const groupName = (row: ResultRow, groupBy: GroupBy | undefined) =>
  groupBy ? (row.group ?? 'none') : 'All handed loads';

/** Whether the API gave this role margins (it gives a MEMBER none: the counts are null). */
export const marginsShown = (rows: readonly ResultRow[]) => rows.some((r) => r.margin_count !== null);
