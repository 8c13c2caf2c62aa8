import { type FormEvent, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { type CarrierListQuery, useCarrierList } from '../../api/carriers';
import { errorFor } from '../../api/errors';
import { Field, Select } from '../../ui/field';
import { Pager } from '../../ui/pager';
import { Problem } from '../../ui/problem';
import { EQUIPMENT } from '../loads/board-query';
import { AddCarriers } from './add-carriers';

const COMPLIANCE = ['PASSED', 'BLOCKED', 'UNVERIFIED'] as const;
type Compliance = NonNullable<CarrierListQuery['compliance_status']>[number];
const allCompliance: Exclude<Compliance, (typeof COMPLIANCE)[number]> extends never ? true : never = true;
void allCompliance;

/** The filters with a field of their own: the API's refusal of one is shown on it. */
const FILTER_PARAMS = ['search', 'routing_guide_tier', 'origin_state', 'destination_state'];

/** The carrier list's query as the URL keeps it. */
function queryOf(search: string): CarrierListQuery {
  const p = new URLSearchParams(search);
  const text = (k: string) => p.get(k)?.trim() || undefined;
  const compliance = COMPLIANCE.find((c) => c === p.get('compliance_status'));
  const equipment = EQUIPMENT.find((e) => e === p.get('equipment_type'));
  const tier = Number(p.get('routing_guide_tier'));
  const active = p.get('is_active');
  return {
    search: text('search'),
    is_active: active === 'true' ? true : active === 'false' ? false : undefined,
    compliance_status: compliance ? [compliance] : undefined,
    equipment_type: equipment ? [equipment] : undefined,
    routing_guide_tier: Number.isInteger(tier) && tier > 0 ? [tier] : undefined,
    origin_state: text('origin_state'),
    destination_state: text('destination_state'),
    page: Number(p.get('page')) || undefined,
    page_size: 25,
  };
}

function searchOf(q: Record<string, unknown>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === '' || k === 'page_size') continue;
    p.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  return p.toString();
}

/** Carriers: search and filters, each carrier a link to its page; create one or upload the batch CSV. */
export function CarriersScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const query = queryOf(search);
  const list = useCarrierList(query);
  const go = (q: Record<string, unknown>) => navigate(`/carriers?${searchOf(q)}`, { replace: true });
  return (
    <section>
      <h1>Carriers</h1>
      <CarrierFilters key={search} search={search} error={list.error} onApply={go} />
      <Problem error={FILTER_PARAMS.some((f) => errorFor(list.error, f)) ? null : list.error} />
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways (a phone) must be reachable by keyboard */}
      <section className="table-wrap" aria-label="Carriers" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Carrier</th>
              <th scope="col">MC</th>
              <th scope="col">DOT</th>
              <th scope="col">State</th>
              <th scope="col">Vetting</th>
              <th scope="col">Risk</th>
              <th scope="col">Tier</th>
              <th scope="col">Contact</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.data.map((c) => (
              <tr key={c.id}>
                <th scope="row">
                  <Link href={`/carriers/${c.id}`}>{c.name}</Link>
                </th>
                <td>{c.mc_number ?? '—'}</td>
                <td>{c.dot_number ?? '—'}</td>
                <td>{c.is_active ? 'Active' : 'Disabled'}</td>
                <td>{c.compliance_status}</td>
                <td>{c.risk_level ?? 'not assessed'}</td>
                <td>{c.effective_routing_guide_tier ?? '—'}</td>
                <td>{c.stop_contact_requested_at ? 'Asked not to be contacted' : 'Allowed'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {list.data && list.data.data.length === 0 ? <p className="empty">No carrier matches.</p> : null}
        {list.isPending ? <p className="empty">Loading…</p> : null}
      </section>
      <Pager
        pagination={list.data?.pagination}
        noun="carriers"
        onPage={(page) => go({ ...Object.fromEntries(new URLSearchParams(search)), page })}
      />
      <AddCarriers />
    </section>
  );
}

function CarrierFilters({
  search,
  error,
  onApply,
}: {
  search: string;
  error: unknown;
  onApply(q: Record<string, string>): void;
}) {
  const p = new URLSearchParams(search);
  const [draft, setDraft] = useState({
    search: p.get('search') ?? '',
    is_active: p.get('is_active') ?? '',
    compliance_status: p.get('compliance_status') ?? '',
    equipment_type: p.get('equipment_type') ?? '',
    routing_guide_tier: p.get('routing_guide_tier') ?? '',
    origin_state: p.get('origin_state') ?? '',
    destination_state: p.get('destination_state') ?? '',
  });
  const edit = (k: keyof typeof draft) => (e: { target: { value: string } }) =>
    setDraft({ ...draft, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply(draft);
  };
  const err = (param: string) => errorFor(error, param);
  return (
    <form className="filters" aria-label="Filter carriers" onSubmit={submit}>
      <Field
        label="Search"
        type="search"
        value={draft.search}
        onChange={edit('search')}
        error={err('search')}
      />
      <Select
        label="State"
        value={draft.is_active}
        onChange={edit('is_active')}
        options={[
          { value: '', label: 'Any' },
          { value: 'true', label: 'Active' },
          { value: 'false', label: 'Disabled' },
        ]}
      />
      <Select
        label="Vetting"
        value={draft.compliance_status}
        onChange={edit('compliance_status')}
        options={[{ value: '', label: 'Any' }, ...COMPLIANCE.map((c) => ({ value: c, label: c }))]}
      />
      <Select
        label="Equipment"
        value={draft.equipment_type}
        onChange={edit('equipment_type')}
        options={[{ value: '', label: 'Any' }, ...EQUIPMENT.map((c) => ({ value: c, label: c }))]}
      />
      <Field
        label="Tier"
        type="number"
        min={1}
        value={draft.routing_guide_tier}
        onChange={edit('routing_guide_tier')}
        error={err('routing_guide_tier')}
      />
      <Field
        label="Lane origin state"
        value={draft.origin_state}
        onChange={edit('origin_state')}
        error={err('origin_state')}
        maxLength={2}
      />
      <Field
        label="Lane destination state"
        value={draft.destination_state}
        onChange={edit('destination_state')}
        error={err('destination_state')}
        maxLength={2}
      />
      <button type="submit" className="primary">
        Apply filters
      </button>
    </form>
  );
}
