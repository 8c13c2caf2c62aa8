import { type FormEvent, useDeferredValue, useMemo, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { errorFor } from '../../api/errors';
import {
  type GroupBy,
  type ResultRow,
  type ResultsQuery,
  resultsCsv,
  useAgentResults,
} from '../../api/results';
import { useAnnounce } from '../../ui/announcer';
import { Field, Select } from '../../ui/field';
import { Problem } from '../../ui/problem';
import { BarChart } from './bar-chart';
import { FIGURES, GROUPINGS, groupName, marginsShown } from './figures';
import { ResultsTable } from './results-table';

const DAY_MS = 86_400_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
/** At most this many groups in the chart (the most loads handed first); the table has them all. */
const CHART_GROUPS = 40;

/** The range and grouping as the URL keeps them (days, UTC; `to` inclusive), with their defaults. */
function rangeOf(search: string) {
  const p = new URLSearchParams(search);
  const today = isoDay(new Date());
  const grouping = GROUPINGS.find((g) => g.value === p.get('group_by'))?.value || undefined;
  return {
    from: p.get('from') ?? isoDay(new Date(Date.now() - 30 * DAY_MS)),
    to: p.get('to') ?? today,
    group_by: grouping as GroupBy | undefined,
  };
}

/** The API's query for a range of whole UTC days: from the first day's start to the last day's end. */
function queryOf(r: ReturnType<typeof rangeOf>): ResultsQuery {
  const to = new Date(`${r.to}T00:00:00Z`);
  const end = Number.isNaN(to.getTime()) ? r.to : new Date(to.getTime() + DAY_MS).toISOString();
  return { from: `${r.from}T00:00:00Z`, to: end, ...(r.group_by ? { group_by: r.group_by } : {}) };
}

/** What the agent achieves over a range: a chart of one figure beside the table of every figure. */
export function ResultsScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const range = rangeOf(search);
  const query = queryOf(range);
  const results = useAgentResults(query);
  const rows = useDeferredValue(results.data?.data);

  return (
    <section className="results">
      <h1>Results</h1>
      <p className="muted">
        Loads handed to the agent in the range, by the day they were handed (UTC). Each figure shows what it
        was computed from.
      </p>
      <RangeForm
        key={search}
        range={range}
        error={results.error}
        onApply={(r) => navigate(`/results?${new URLSearchParams(r).toString()}`, { replace: true })}
      />
      <Problem error={results.error && !errorFor(results.error, 'from') ? results.error : null} />
      {results.isPending ? <p>Loading…</p> : null}
      {rows ? <Figures rows={rows} query={query} groupBy={range.group_by} /> : null}
    </section>
  );
}

function RangeForm({
  range,
  error,
  onApply,
}: {
  range: ReturnType<typeof rangeOf>;
  error: unknown;
  onApply(r: Record<string, string>): void;
}) {
  const [draft, setDraft] = useState({ from: range.from, to: range.to, group_by: range.group_by ?? '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { group_by, ...days } = draft;
    onApply(group_by ? { ...days, group_by } : days);
  };
  return (
    <form className="filters" aria-label="Range and grouping" onSubmit={submit}>
      <Field
        label="From"
        type="date"
        required
        value={draft.from}
        onChange={(e) => setDraft({ ...draft, from: e.target.value })}
        error={errorFor(error, 'from')}
      />
      <Field
        label="To (inclusive)"
        type="date"
        required
        value={draft.to}
        onChange={(e) => setDraft({ ...draft, to: e.target.value })}
        error={errorFor(error, 'to')}
      />
      <Select
        label="Group by"
        value={draft.group_by}
        onChange={(e) => setDraft({ ...draft, group_by: e.target.value })}
        options={GROUPINGS}
      />
      <button type="submit" className="primary">
        Show results
      </button>
    </form>
  );
}

function Figures({
  rows,
  query,
  groupBy,
}: {
  rows: readonly ResultRow[];
  query: ResultsQuery;
  groupBy: GroupBy | undefined;
}) {
  const margins = marginsShown(rows);
  const figures = FIGURES.filter((f) => !f.margin || margins);
  const [figureKey, setFigureKey] = useState('coverage');
  const figure = figures.find((f) => f.key === figureKey) ?? figures[0];
  const announce = useAnnounce();
  const [csvError, setCsvError] = useState<unknown>(null);
  const timeOrder = groupBy === 'day' || groupBy === 'week';
  const charted = useMemo(
    () =>
      timeOrder
        ? [...rows].sort((a, b) => String(a.group).localeCompare(String(b.group)))
        : [...rows].sort((a, b) => b.loads_handed - a.loads_handed).slice(0, CHART_GROUPS),
    [rows, timeOrder],
  );
  const labels = useMemo(() => charted.map((r) => groupName(r, groupBy)), [charted, groupBy]);
  const values = useMemo(() => (figure ? charted.map((r) => figure.value(r)) : []), [charted, figure]);

  const download = async () => {
    setCsvError(null);
    try {
      const blob = await resultsCsv(query);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `agent-results-${query.from?.slice(0, 10)}-${groupBy ?? 'all'}.csv`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      announce('Results downloaded as CSV');
    } catch (err) {
      setCsvError(err);
    }
  };

  return (
    <>
      <div className="actions">
        <button type="button" onClick={() => void download()}>
          Download CSV
        </button>
        <span className="muted">
          {rows.length} {rows.length === 1 ? 'row' : 'rows'}
        </span>
      </div>
      <Problem error={csvError} />
      {rows.length === 0 ? <p>No load was handed to the agent in this range.</p> : null}
      <div className="results-grid">
        <section aria-labelledby="chart-h" className="chart-panel">
          <h2 id="chart-h">Chart</h2>
          <Select
            label="Figure"
            value={figure?.key ?? ''}
            onChange={(e) => setFigureKey(e.target.value)}
            options={figures.map((f) => ({ value: f.key, label: f.label }))}
          />
          {figure && charted.length > 0 ? (
            <BarChart title={figure.label} labels={labels} values={values} format={figure.format} />
          ) : null}
          {!timeOrder && rows.length > CHART_GROUPS ? (
            <p className="muted">
              The {CHART_GROUPS} groups with the most loads handed; the table has all {rows.length}.
            </p>
          ) : null}
        </section>
        <ResultsTable rows={rows} groupBy={groupBy} margins={margins} />
      </div>
    </>
  );
}

export default ResultsScreen;
