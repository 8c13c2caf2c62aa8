import type { LoadListQuery } from '../../api/loads';

type Status = NonNullable<LoadListQuery['status']>[number];
type Equipment = NonNullable<LoadListQuery['equipment_type']>[number];
type Tab = NonNullable<LoadListQuery['tab']>;
type Sort = NonNullable<LoadListQuery['order_by']>;

/** The list's tabs and `booked`, as the board shows them (names from the contract). */
export const TABS = [
  { value: 'all', label: 'All' },
  { value: 'active_offers', label: 'Active offers' },
  { value: 'active_outreaches', label: 'Outreaches' },
  { value: 'all_calls', label: 'Calls' },
  { value: 'failed_verifications', label: 'Failed verifications' },
  { value: 'active_notifications', label: 'Notifications' },
  { value: 'active_escalations', label: 'Escalations' },
  { value: 'booked', label: 'Booked' },
] as const satisfies readonly { value: Tab; label: string }[];

export const STATUSES = [
  'Created',
  'Unassigned',
  'Quotes Received',
  'Dispatched',
  'En Route',
  'Delivered',
  'Cancelled',
  'Exception',
] as const satisfies readonly Status[];

export const EQUIPMENT = [
  'VAN',
  'REEFER',
  'FLATBED',
  'STEPDECK',
  'RGN',
  'CONESTOGA',
  'BOX_TRUCK',
  'CONTAINER',
  'INTERMODAL',
  'POWER_ONLY',
  'TANKER',
  'LOWBOY',
  'HOTSHOT',
  'AUTO_CARRIER',
  'DRY_BULK',
  'DRY_TEAM',
  'REEFER_TEAM',
  'LTL',
  'OTHER',
  'VAN/REEFER',
] as const satisfies readonly Equipment[];

// Every status and equipment type of the contract is listed: one it adds and this list lacks does not compile.
const allStatuses: Exclude<Status, (typeof STATUSES)[number]> extends never ? true : never = true;
const allEquipment: Exclude<Equipment, (typeof EQUIPMENT)[number]> extends never ? true : never = true;
void allStatuses;
void allEquipment;

export const SORTS = [
  { value: 'created_at', label: 'Created' },
  { value: 'pickup_date', label: 'Pickup date' },
  { value: 'delivery_date', label: 'Delivery date' },
  { value: 'posted_rate', label: 'Posted rate' },
  { value: 'load_number', label: 'Load number' },
  { value: 'updated_at', label: 'Updated' },
  { value: 'distance', label: 'Distance' },
] as const satisfies readonly { value: Sort; label: string }[];

export const PAGE_SIZES = ['10', '25', '50', '100'] as const;

const oneOf = <T extends string>(list: readonly T[], v: string | null): T | undefined =>
  list.find((x) => x === v);

const text = (v: string | null) => (v === null || v.trim() === '' ? undefined : v.trim());
const positive = (v: string | null) => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/** The board's URL, read into the list's query: anything the contract would refuse is left out. */
export function queryOf(search: string): LoadListQuery {
  const p = new URLSearchParams(search);
  const status = oneOf(STATUSES, p.get('status'));
  const equipment = oneOf(EQUIPMENT, p.get('equipment_type'));
  const q: LoadListQuery = {
    tab: oneOf(
      TABS.map((t) => t.value),
      p.get('tab'),
    ),
    search: text(p.get('search')),
    status: status ? [status] : undefined,
    equipment_type: equipment ? [equipment] : undefined,
    origin_city: text(p.get('origin_city')),
    destination_city: text(p.get('destination_city')),
    pickup_date_from: text(p.get('pickup_date_from')),
    pickup_date_to: text(p.get('pickup_date_to')),
    order_by: oneOf(
      SORTS.map((s) => s.value),
      p.get('order_by'),
    ),
    order_desc: p.get('order_desc') === 'false' ? false : undefined,
    page: positive(p.get('page')),
    page_size: Number(oneOf(PAGE_SIZES, p.get('page_size')) ?? 25),
    view_id: text(p.get('view_id')),
  };
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as LoadListQuery;
}

/** The query back into the board's URL. */
export function searchOf(q: LoadListQuery): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === '') continue;
    p.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  return p.toString();
}

/** A saved view's filters: the query without paging, sorting, tab or view. */
export function viewFiltersOf(q: LoadListQuery): Record<string, string | string[]> {
  const { page: _p, page_size: _s, order_by: _o, order_desc: _d, view_id: _v, tab: _t, ...filters } = q;
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(filters)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.map(String) : String(v);
  }
  return out;
}
