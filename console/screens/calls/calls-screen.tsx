import { type FormEvent, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { type CallListQuery, useCallList, useElpList } from '../../api/calls';
import { errorFor } from '../../api/errors';
import { Field, Select } from '../../ui/field';
import { Pager } from '../../ui/pager';
import { Problem, when } from '../../ui/problem';

const STATUSES = [
  'SCHEDULED',
  'PENDING',
  'AGENT_ASSIGNED',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'VOICEMAIL',
  'NO_RESPONSE',
  'TRANSFERRED',
] as const;
type Status = NonNullable<CallListQuery['status']>[number];
const allStatuses: Exclude<Status, (typeof STATUSES)[number]> extends never ? true : never = true;
void allStatuses;

/** The call list's query as the URL keeps it. */
function callQueryOf(p: URLSearchParams): CallListQuery {
  const status = STATUSES.find((s) => s === p.get('status'));
  const type = p.get('call_type');
  const direction = p.get('call_direction');
  return {
    status: status ? [status] : undefined,
    call_type: type === 'LOAD_BOOKING' || type === 'ELP' ? [type] : undefined,
    call_direction: direction === 'INBOUND' || direction === 'OUTBOUND' ? [direction] : undefined,
    start_date: p.get('start_date') || undefined,
    end_date: p.get('end_date') || undefined,
    page: Number(p.get('page')) || undefined,
    page_size: 25,
  };
}

/** Calls and English-proficiency tests: two lists with their filters, each row a link to its page. */
export function CallsScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const set = (change: Record<string, string>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(change)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    navigate(`/calls?${next.toString()}`, { replace: true });
  };
  return (
    <section>
      <h1>Calls</h1>
      <CallList params={params} onChange={set} />
      <ElpList params={params} onChange={set} />
    </section>
  );
}

interface ListProps {
  params: URLSearchParams;
  onChange(change: Record<string, string>): void;
}

function CallList({ params, onChange }: ListProps) {
  const query = callQueryOf(params);
  const calls = useCallList(query);
  const [draft, setDraft] = useState({
    status: params.get('status') ?? '',
    call_type: params.get('call_type') ?? '',
    call_direction: params.get('call_direction') ?? '',
    start_date: params.get('start_date') ?? '',
    end_date: params.get('end_date') ?? '',
  });
  const edit = (k: keyof typeof draft) => (e: { target: { value: string } }) =>
    setDraft({ ...draft, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onChange({ ...draft, page: '' });
  };
  const fieldError = ['start_date', 'end_date'].some((f) => errorFor(calls.error, f));
  return (
    <section aria-labelledby="call-list-h">
      <h2 id="call-list-h">Call list</h2>
      <form className="filters" aria-label="Filter calls" onSubmit={submit}>
        <Select
          label="Status"
          value={draft.status}
          onChange={edit('status')}
          options={[{ value: '', label: 'Any' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
        />
        <Select
          label="Type"
          value={draft.call_type}
          onChange={edit('call_type')}
          options={[
            { value: '', label: 'Any' },
            { value: 'LOAD_BOOKING', label: 'Load booking' },
            { value: 'ELP', label: 'ELP test' },
          ]}
        />
        <Select
          label="Direction"
          value={draft.call_direction}
          onChange={edit('call_direction')}
          options={[
            { value: '', label: 'Any' },
            { value: 'OUTBOUND', label: 'Outbound' },
            { value: 'INBOUND', label: 'Inbound' },
          ]}
        />
        <Field
          label="From day"
          type="date"
          value={draft.start_date}
          onChange={edit('start_date')}
          error={errorFor(calls.error, 'start_date')}
        />
        <Field
          label="To day"
          type="date"
          value={draft.end_date}
          onChange={edit('end_date')}
          error={errorFor(calls.error, 'end_date')}
        />
        <button type="submit" className="primary">
          Filter calls
        </button>
      </form>
      {fieldError ? null : <Problem error={calls.error} />}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways (a phone) must be reachable by keyboard */}
      <section className="table-wrap" aria-label="Calls" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Call</th>
              <th scope="col">Status</th>
              <th scope="col">Type</th>
              <th scope="col">Direction</th>
              <th scope="col">Number</th>
              <th scope="col">Load</th>
            </tr>
          </thead>
          <tbody>
            {calls.data?.data.map((c) => (
              <tr key={c.id}>
                <th scope="row">
                  <Link href={`/calls/${c.id}`}>{when(c.call_time)}</Link>
                </th>
                <td>{c.status}</td>
                <td>{c.call_type ?? '—'}</td>
                <td>{c.call_direction}</td>
                <td>
                  {(c.call_direction === 'INBOUND' ? c.from_number : c.phone_number) ?? c.to_number ?? '—'}
                </td>
                <td>
                  {c.load_id ? <Link href={`/loads/${c.load_id}`}>{c.load_number ?? 'load'}</Link> : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {calls.data && calls.data.data.length === 0 ? <p className="empty">No call matches.</p> : null}
      </section>
      <Pager pagination={calls.data?.pagination} noun="calls" onPage={(p) => onChange({ page: String(p) })} />
    </section>
  );
}

function ElpList({ params, onChange }: ListProps) {
  const query = {
    phone_number: params.get('elp_phone') || undefined,
    mc_number: params.get('elp_mc') || undefined,
    page: Number(params.get('elp_page')) || undefined,
    page_size: 25,
  };
  const tests = useElpList(query);
  const [phone, setPhone] = useState(query.phone_number ?? '');
  const [mc, setMc] = useState(query.mc_number ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onChange({ elp_phone: phone.trim(), elp_mc: mc.trim(), elp_page: '' });
  };
  const fieldError = errorFor(tests.error, 'phone_number') ?? errorFor(tests.error, 'mc_number');
  return (
    <section aria-labelledby="elp-h">
      <h2 id="elp-h">ELP tests</h2>
      <form className="filters" aria-label="Filter ELP tests" onSubmit={submit}>
        <Field
          label="Driver phone"
          type="tel"
          value={phone}
          onChange={(e) => setPhone(e.target.value)}
          error={errorFor(tests.error, 'phone_number')}
        />
        <Field
          label="Carrier MC"
          value={mc}
          onChange={(e) => setMc(e.target.value)}
          error={errorFor(tests.error, 'mc_number')}
        />
        <button type="submit" className="primary">
          Filter ELP tests
        </button>
      </form>
      {fieldError ? null : <Problem error={tests.error} />}
      {tests.data && tests.data.data.length === 0 ? <p>No ELP test matches.</p> : null}
      <ul className="cards">
        {tests.data?.data.map((t) => (
          <li key={t.id} className="card">
            <Link href={`/calls/elp/${t.id}`}>
              {t.driver_name ?? t.phone_number ?? 'Driver'} · {when(t.created_at)}
            </Link>{' '}
            · {t.status}
            {t.total_score !== null ? ` · score ${t.total_score} of 40` : ''}
            {t.carrier_name ? ` · ${t.carrier_name}` : ''}
          </li>
        ))}
      </ul>
      <Pager
        pagination={tests.data?.pagination}
        noun="ELP tests"
        onPage={(p) => onChange({ elp_page: String(p) })}
      />
    </section>
  );
}
