import { type FormEvent, useState } from 'react';
import { type Call, useCallDetail, useJoinCall, useLoadCalls, useStartCall } from '../../api/activity';
import { errorFor } from '../../api/errors';
import { useAnnounce } from '../../ui/announcer';
import { Field } from '../../ui/field';
import { Problem, when } from '../../ui/problem';

const JOINABLE = new Set(['AGENT_ASSIGNED', 'IN_PROGRESS']);

/** The load's calls with their status; start one, join one in progress, read a transcript. */
export function CallsSection({
  loadId,
  phones,
}: {
  loadId: string;
  phones: { label: string; phone: string }[];
}) {
  const calls = useLoadCalls(loadId);
  const start = useStartCall(loadId);
  const join = useJoinCall(loadId);
  const announce = useAnnounce();
  const [phone, setPhone] = useState(phones[0]?.phone ?? '');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // A 202 receipt (the call was created, its answer not read back) is a start too.
    start.mutate(phone, { onSuccess: () => announce(`Call to ${phone} started`) });
  };

  return (
    <section aria-labelledby="calls-h">
      <h2 id="calls-h">Calls</h2>
      <form className="inline" onSubmit={submit}>
        <Field
          label="Phone number"
          type="tel"
          value={phone}
          list="load-phones"
          onChange={(e) => setPhone(e.target.value)}
          error={errorFor(start.error, 'phone_number')}
          hint="E.164, for example +14155552671"
        />
        <datalist id="load-phones">
          {phones.map((p) => (
            <option key={p.phone} value={p.phone} label={p.label} />
          ))}
        </datalist>
        <button type="submit" disabled={start.isPending}>
          Start call
        </button>
      </form>
      {start.error && !errorFor(start.error, 'phone_number') ? <Problem error={start.error} /> : null}
      <Problem error={join.error} />
      <Problem error={calls.error} />
      {calls.data && calls.data.length === 0 ? <p>No calls yet.</p> : null}
      <ul className="cards">
        {calls.data?.map((c) => (
          <CallItem
            key={c.id}
            call={c}
            onJoin={() => join.mutate(c.id, { onSuccess: (r) => announce(r.message) })}
          />
        ))}
      </ul>
    </section>
  );
}

function CallItem({ call, onJoin }: { call: Call; onJoin(): void }) {
  const [open, setOpen] = useState(false);
  const detail = useCallDetail(call.id, open);
  return (
    <li className="card">
      <p className="card-title">
        <span className="badge">{call.status}</span> {call.call_direction === 'INBOUND' ? 'From' : 'To'}{' '}
        {call.phone_number ?? call.to_number ?? '—'} · {when(call.call_time)}
      </p>
      {JOINABLE.has(call.status) ? (
        <button type="button" onClick={onJoin}>
          Join call
        </button>
      ) : null}
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Transcript and analysis</summary>
        {detail.data ? (
          <>
            {detail.data.analysis?.summary ? <p>{detail.data.analysis.summary}</p> : null}
            <ol className="transcript">
              {detail.data.transcript.map((m, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: transcript lines have no id and never move
                <li key={`${m.role}-${i}`}>
                  <strong>{m.role}:</strong> {m.content}
                </li>
              ))}
            </ol>
          </>
        ) : (
          <p>{open ? 'Loading…' : ''}</p>
        )}
      </details>
    </li>
  );
}
