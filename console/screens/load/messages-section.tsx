import { useState } from 'react';
import { type Outreach, useLoadOutreaches, useMessages } from '../../api/activity';
import { Problem, when } from '../../ui/problem';

const MODALITY: Record<string, string> = { call: 'Call', email: 'E-mail', whatsapp: 'WhatsApp' };

/** The load's outreaches, each with its message thread (read when opened). */
export function MessagesSection({ loadId }: { loadId: string }) {
  const outreaches = useLoadOutreaches(loadId);
  return (
    <section aria-labelledby="messages-h">
      <h2 id="messages-h">Messages</h2>
      <Problem error={outreaches.error} />
      {outreaches.data && outreaches.data.data.length === 0 ? <p>No outreach yet.</p> : null}
      <ul className="cards">
        {outreaches.data?.data.map((o) => (
          <OutreachItem key={o.id} outreach={o} />
        ))}
      </ul>
    </section>
  );
}

export function Thread({ outreachId, enabled = true }: { outreachId: string; enabled?: boolean }) {
  const messages = useMessages(outreachId, enabled);
  if (!enabled) return null;
  if (messages.error) return <Problem error={messages.error} />;
  if (!messages.data) return <p>Loading…</p>;
  if (messages.data.data.length === 0) return <p>No message in this conversation.</p>;
  return (
    <ol className="thread">
      {messages.data.data.map((m) => (
        <li key={m.id} className={`message ${m.direction}`}>
          <p className="muted">
            {m.direction === 'inbound' ? 'Carrier' : 'Us'} · {when(m.created_at)}
            {m.intent ? ` · ${m.intent.replace('_', ' ')}` : ''}
          </p>
          <p className="body">{m.body}</p>
        </li>
      ))}
    </ol>
  );
}

function OutreachItem({ outreach }: { outreach: Outreach }) {
  const [open, setOpen] = useState(false);
  const messaged = outreach.modality !== 'call';
  return (
    <li className="card">
      <p className="card-title">
        <strong>{outreach.carrier.name}</strong> · {MODALITY[outreach.modality] ?? outreach.modality} ·{' '}
        <span className="badge">{outreach.status}</span>
        {outreach.delivery_failed_at ? <span className="badge bad"> not delivered</span> : null}
      </p>
      <p className="muted">
        {outreach.is_automated ? 'By the agent' : 'By a rep'} · {when(outreach.created_at)}
      </p>
      {messaged ? (
        <details onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary>Conversation with {outreach.carrier.name}</summary>
          <Thread outreachId={outreach.id} enabled={open} />
        </details>
      ) : null}
    </li>
  );
}
