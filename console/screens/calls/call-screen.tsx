import { Link } from 'wouter';
import { type CallDetail, useCall, useRecording } from '../../api/calls';
import { Problem, when } from '../../ui/problem';

/** A call's page: its status history, transcript, analysis, cost and recording. */
export function CallScreen({ callId }: { callId: string }) {
  const call = useCall(callId);
  if (call.error) {
    return (
      <section>
        <h1>Call</h1>
        <Problem error={call.error} />
      </section>
    );
  }
  if (!call.data) return <p>Loading…</p>;
  return <CallPage call={call.data} />;
}

const number = (c: CallDetail) =>
  (c.call_direction === 'INBOUND' ? c.from_number : c.phone_number) ?? c.to_number ?? 'unknown number';

function CallPage({ call: c }: { call: CallDetail }) {
  const ended = c.call_end_time !== null;
  const recording = useRecording(c.id, ended && c.recording_status !== null);
  const history = [
    { label: 'Scheduled for', at: c.scheduled_at },
    { label: 'Created', at: c.created_at },
    { label: 'Answered', at: c.call_start_time },
    { label: 'Transfer', at: c.transfer?.updated_at ?? null, note: c.transfer?.status },
    { label: 'Ended', at: c.call_end_time, note: c.ended_reason },
  ].filter((h) => h.at);
  return (
    <article>
      <p className="muted">
        <Link href="/calls">Calls</Link>
      </p>
      <h1>
        {c.call_direction === 'INBOUND' ? 'Call from' : 'Call to'} {number(c)}
      </h1>
      <p className="muted">
        <span className="badge">{c.status}</span> · {c.call_type ?? 'no type'} · {c.purpose}
        {c.load_id ? (
          <>
            {' '}
            · load <Link href={`/loads/${c.load_id}`}>{c.load_number ?? c.load_id}</Link>
          </>
        ) : null}
      </p>
      <section aria-labelledby="history-h">
        <h2 id="history-h">Status history</h2>
        <ol className="timeline">
          {history.map((h) => (
            <li key={h.label}>
              <strong>{h.label}</strong> {when(h.at)}
              {h.note ? ` · ${h.note}` : ''}
            </li>
          ))}
          <li>
            <strong>Now</strong> {c.status}
          </li>
        </ol>
      </section>
      <section aria-labelledby="analysis-h">
        <h2 id="analysis-h">Analysis</h2>
        {c.analysis ? (
          <dl className="facts">
            <dt>Summary</dt>
            <dd className="wrap">{c.analysis.summary ?? '—'}</dd>
            <dt>Success evaluation</dt>
            <dd>{c.analysis.success_evaluation ?? '—'}</dd>
            {Object.entries(c.analysis.structured_data ?? {}).map(([k, v]) => (
              <Fact key={k} label={k.replaceAll('_', ' ')} value={v} />
            ))}
          </dl>
        ) : (
          <p>No analysis yet (it comes with the end-of-call report).</p>
        )}
      </section>
      <section aria-labelledby="cost-h">
        <h2 id="cost-h">Cost and recording</h2>
        <dl className="facts">
          <dt>Cost</dt>
          <dd>{c.cost === null ? '—' : `$${c.cost.toFixed(2)}`}</dd>
          <dt>Recording</dt>
          <dd>
            {recording.data?.recording_url ? (
              <a href={recording.data.recording_url}>Open the recording</a>
            ) : (
              (c.recording_status ?? 'none')
            )}
          </dd>
        </dl>
      </section>
      <section aria-labelledby="transcript-h">
        <h2 id="transcript-h">Transcript</h2>
        {c.transcript.length === 0 ? <p>No transcript.</p> : null}
        <ol className="transcript">
          {c.transcript.map((m, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: transcript lines have no id and never move
            <li key={`${m.role}-${i}`}>
              <strong>{m.role}:</strong> {m.content}
            </li>
          ))}
        </ol>
      </section>
    </article>
  );
}

function Fact({ label, value }: { label: string; value: unknown }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className="wrap">{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
    </>
  );
}
