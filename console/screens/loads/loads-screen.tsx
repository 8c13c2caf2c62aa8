import { type FormEvent, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { errorFor } from '../../api/errors';
import type { Load, LoadListQuery } from '../../api/loads';
import { useLoadList, useLoadStats, useLoadViews, useSaveView } from '../../api/loads';
import { Field, Select } from '../../ui/field';
import { day, money, Problem } from '../../ui/problem';
import { firstPickup, lastDropoff, place, plannedAt } from '../../ui/stops';
import {
  EQUIPMENT,
  PAGE_SIZES,
  queryOf,
  SORTS,
  STATUSES,
  searchOf,
  TABS,
  viewFiltersOf,
} from './board-query';

/** Where the agent stands on a load, as the list row tells it. */
function agentStatus(load: Load): string {
  if (load.booked_offer) return load.booked_offer.booked_by === 'agent' ? 'Booked by the agent' : 'Booked';
  if (!load.assigned_to_ai_agent) return 'Not handed to the agent';
  if (load.offer_count > 0) return 'Offers in';
  return 'Working';
}

/** The load board: filters, tabs with counts, search, sort, paging and saved views; live. */
export function LoadsScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const query = queryOf(search);
  const list = useLoadList(query);
  // The rows first: the counts and the saved views are asked for once the first rows are in.
  const rowsIn = list.data !== undefined || list.isError;
  const stats = useLoadStats(query, rowsIn);
  const set = (change: Partial<LoadListQuery>, keepPage = false) =>
    navigate(`/loads?${searchOf({ ...query, ...change, ...(keepPage ? {} : { page: undefined }) })}`, {
      replace: true,
    });
  const pagination = list.data?.pagination;

  return (
    <section className="board">
      <h1>Loads</h1>
      <Filters query={query} onApply={(q) => set(q)} />
      <div role="tablist" aria-label="Load tabs" className="tabs">
        {TABS.map((t) => {
          const selected = (query.tab ?? 'all') === t.value;
          const count = stats.data?.by_tab[t.value];
          return (
            <button
              key={t.value}
              type="button"
              role="tab"
              aria-selected={selected}
              className={selected ? 'tab selected' : 'tab'}
              onClick={() => set({ tab: t.value === 'all' ? undefined : t.value })}
            >
              {t.label} <span className="count">{count ?? '…'}</span>
            </button>
          );
        })}
      </div>
      <div className="board-controls">
        <Select
          label="Sort by"
          value={query.order_by ?? 'created_at'}
          options={SORTS}
          onChange={(e) => set({ order_by: SORTS.find((s) => s.value === e.target.value)?.value })}
        />
        <label className="check">
          <input
            type="checkbox"
            checked={query.order_desc !== false}
            onChange={(e) => set({ order_desc: e.target.checked ? undefined : false })}
          />
          Descending
        </label>
        <Select
          label="Rows per page"
          value={String(query.page_size ?? 25)}
          options={PAGE_SIZES.map((s) => ({ value: s, label: s }))}
          onChange={(e) => set({ page_size: Number(e.target.value) })}
        />
        <Views query={query} enabled={rowsIn} onPick={(view_id) => set({ view_id })} />
      </div>
      <Problem error={list.error} />
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways (a phone) must be reachable by keyboard */}
      <section className="table-wrap" aria-label="Loads" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Load</th>
              <th scope="col">Status</th>
              <th scope="col">Origin</th>
              <th scope="col">Destination</th>
              <th scope="col">Pickup</th>
              <th scope="col">Equipment</th>
              <th scope="col">Posted rate</th>
              <th scope="col">Offers</th>
              <th scope="col">Agent</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.data.map((load) => (
              <tr key={load.id}>
                <th scope="row">
                  <Link href={`/loads/${load.id}`}>{load.load_number}</Link>
                </th>
                <td>{load.load_status ?? '—'}</td>
                <td>{place(firstPickup(load.stops))}</td>
                <td>{place(lastDropoff(load.stops))}</td>
                <td>{day(plannedAt(firstPickup(load.stops)))}</td>
                <td>{load.equipment_type}</td>
                <td>{money(load.posted_rate)}</td>
                <td>
                  {load.offer_count > 0 ? `${load.offer_count} · best ${money(load.min_offer_amount)}` : '0'}
                </td>
                <td>{agentStatus(load)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {list.data && list.data.data.length === 0 ? (
          <p className="empty">No load matches these filters.</p>
        ) : null}
        {list.isPending ? <p className="empty">Loading…</p> : null}
      </section>
      {pagination ? (
        <nav aria-label="Pages" className="pager">
          <button
            type="button"
            disabled={!pagination.has_prev}
            onClick={() => set({ page: pagination.page - 1 }, true)}
          >
            Previous page
          </button>
          <span>
            Page {pagination.page} of {Math.max(1, pagination.total_pages)} · {pagination.total_count} loads
          </span>
          <button
            type="button"
            disabled={!pagination.has_next}
            onClick={() => set({ page: pagination.page + 1 }, true)}
          >
            Next page
          </button>
        </nav>
      ) : null}
    </section>
  );
}

/** The spec's filters; applied together, and kept when the API refuses one (its field says why). */
function Filters({ query, onApply }: { query: LoadListQuery; onApply(q: Partial<LoadListQuery>): void }) {
  const list = useLoadList(query);
  const [draft, setDraft] = useState({
    search: query.search ?? '',
    status: query.status?.[0] ?? '',
    equipment_type: query.equipment_type?.[0] ?? '',
    origin_city: query.origin_city ?? '',
    destination_city: query.destination_city ?? '',
    pickup_date_from: query.pickup_date_from ?? '',
    pickup_date_to: query.pickup_date_to ?? '',
  });
  const edit = (k: keyof typeof draft) => (e: { target: { value: string } }) =>
    setDraft({ ...draft, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const status = STATUSES.find((s) => s === draft.status);
    const equipment = EQUIPMENT.find((s) => s === draft.equipment_type);
    onApply({
      search: draft.search.trim() || undefined,
      status: status ? [status] : undefined,
      equipment_type: equipment ? [equipment] : undefined,
      origin_city: draft.origin_city.trim() || undefined,
      destination_city: draft.destination_city.trim() || undefined,
      pickup_date_from: draft.pickup_date_from || undefined,
      pickup_date_to: draft.pickup_date_to || undefined,
    });
  };
  const err = (param: string) => errorFor(list.error, param);
  return (
    <form className="filters" aria-label="Filter loads" onSubmit={submit}>
      <Field
        label="Search"
        type="search"
        value={draft.search}
        onChange={edit('search')}
        error={err('search')}
      />
      <Select
        label="Status"
        value={draft.status}
        onChange={edit('status')}
        options={[{ value: '', label: 'Any' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
      />
      <Select
        label="Equipment"
        value={draft.equipment_type}
        onChange={edit('equipment_type')}
        options={[{ value: '', label: 'Any' }, ...EQUIPMENT.map((s) => ({ value: s, label: s }))]}
      />
      <Field
        label="Origin city"
        value={draft.origin_city}
        onChange={edit('origin_city')}
        error={err('origin_city')}
      />
      <Field
        label="Destination city"
        value={draft.destination_city}
        onChange={edit('destination_city')}
        error={err('destination_city')}
      />
      <Field
        label="Pickup from"
        type="date"
        value={draft.pickup_date_from}
        onChange={edit('pickup_date_from')}
        error={err('pickup_date_from')}
      />
      <Field
        label="Pickup to"
        type="date"
        value={draft.pickup_date_to}
        onChange={edit('pickup_date_to')}
        error={err('pickup_date_to')}
      />
      <button type="submit" className="primary">
        Apply filters
      </button>
    </form>
  );
}

/** Saved views: pick one (its filters stack with the board's), or save the current filters as one. */
function Views({
  query,
  enabled,
  onPick,
}: {
  query: LoadListQuery;
  enabled: boolean;
  onPick(id: string | undefined): void;
}) {
  const views = useLoadViews(enabled);
  const save = useSaveView();
  const [name, setName] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ name, filters: viewFiltersOf(query) }, { onSuccess: () => setName('') });
  };
  return (
    <div className="views">
      <Select
        label="Saved view"
        value={query.view_id ?? ''}
        onChange={(e) => onPick(e.target.value || undefined)}
        options={[
          { value: '', label: 'None' },
          ...(views.data?.data ?? []).map((v) => ({ value: v.id, label: v.name })),
        ]}
      />
      <form onSubmit={submit} className="inline">
        <Field
          label="View name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={errorFor(save.error, 'name')}
        />
        <button type="submit">Save view</button>
      </form>
      {save.error && !errorFor(save.error, 'name') ? <Problem error={save.error} /> : null}
    </div>
  );
}
