import { type FormEvent, useState } from 'react';
import { useCan } from '../../api/access';
import type { Schemas } from '../../api/client';
import { errorFor } from '../../api/errors';
import {
  type Endpoint,
  useAttempts,
  useCreateEndpoint,
  useDeleteEndpoint,
  useDeliveries,
  useEndpoints,
  useEventTypes,
  usePing,
  useReplay,
  useRotateSecret,
  useSetEndpointStatus,
} from '../../api/webhooks';
import { useAnnounce } from '../../ui/announcer';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { Field, Select } from '../../ui/field';
import { Problem, when } from '../../ui/problem';
import { OnceSecret } from '../../ui/secret';

type EventType = Schemas['CreateWebhookEndpointRequest']['event_types'][number];
/** The contract's event types (checked both ways at compile time). */
const EVENT_TYPES = [
  'load.created',
  'load.updated',
  'load.status_changed',
  'load.booked',
  'load.unbooked',
  'carrier.created',
  'carrier.updated',
  'carrier.disabled',
  'carrier.enabled',
  'carrier.compliance_changed',
  'lane_preference.restricted',
  'lane_preference.unrestricted',
  'offer.created',
  'offer.status_changed',
  'offer.countered',
  'offer.review_requested',
  'offer.review_escalated',
  'call.created',
  'call.status_changed',
  'outreach.created',
  'outreach.status_changed',
  'elp_test.completed',
  'elp_test.scored',
  'elp_test.failed',
  'ping',
] as const satisfies readonly EventType[];
const allTypes: Exclude<EventType, (typeof EVENT_TYPES)[number] | '*'> extends never ? true : never = true;
void allTypes;

/** Webhook endpoints (secret shown once; pause, resume, rotate, ping) and their deliveries (replay one). */
export function WebhooksSection() {
  const can = useCan();
  const allowed = can('GET /api/v1/webhooks/endpoints');
  const endpoints = useEndpoints(allowed);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  if (!allowed) {
    return (
      <section aria-labelledby="hooks-h">
        <h2 id="hooks-h">Webhook endpoints</h2>
        <p>Your role does not manage webhooks.</p>
      </section>
    );
  }
  const list = endpoints.data?.data ?? [];
  return (
    <>
      <section aria-labelledby="hooks-h">
        <h2 id="hooks-h">Webhook endpoints</h2>
        {secret ? (
          <OnceSecret label={secret.label} value={secret.value} onDone={() => setSecret(null)} />
        ) : null}
        {can('POST /api/v1/webhooks/endpoints') ? (
          <CreateEndpoint onCreated={(s) => setSecret({ label: 'Signing secret', value: s })} />
        ) : null}
        <Problem error={endpoints.error} />
        {endpoints.data && list.length === 0 ? <p>No endpoint yet.</p> : null}
        <ul className="cards">
          {list.map((e) => (
            <EndpointCard
              key={e.id}
              endpoint={e}
              onSecret={(s) => setSecret({ label: `New signing secret of ${e.url}`, value: s })}
            />
          ))}
        </ul>
      </section>
      <Deliveries endpoints={list} />
    </>
  );
}

function CreateEndpoint({ onCreated }: { onCreated(secret: string): void }) {
  const create = useCreateEndpoint();
  const types = useEventTypes(true);
  const announce = useAnnounce();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<EventType[]>(['*']);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { url, event_types: chosen, ...(description.trim() ? { description: description.trim() } : {}) },
      {
        onSuccess: (r) => {
          onCreated(r.signing_secret);
          announce(`Endpoint ${r.url} added`);
          setUrl('');
          setDescription('');
        },
      },
    );
  };
  const toggle = (type: EventType, on: boolean) =>
    setChosen(on ? [...chosen.filter((t) => t !== '*'), type] : chosen.filter((t) => t !== type));
  const onField =
    ['url', 'description'].some((f) => errorFor(create.error, f)) || errorFor(create.error, 'event_types');
  return (
    <form className="stack" aria-label="Add a webhook endpoint" onSubmit={submit}>
      <Field
        label="Endpoint URL"
        type="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        error={errorFor(create.error, 'url')}
        hint="https (plain http only to this machine outside production)"
      />
      <Field
        label="Endpoint description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={errorFor(create.error, 'description')}
      />
      <fieldset className="event-types">
        <legend>Events</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={chosen.includes('*')}
            onChange={(e) => setChosen(e.target.checked ? ['*'] : [])}
          />
          Every event
        </label>
        {types.data?.data.map((t) => {
          // The catalogue's types are the contract's event types; one outside it is not offered.
          const type = EVENT_TYPES.find((x) => x === t.type);
          return type ? (
            <label key={type} className="check" title={t.description}>
              <input
                type="checkbox"
                checked={chosen.includes(type)}
                disabled={chosen.includes('*')}
                onChange={(e) => toggle(type, e.target.checked)}
              />
              {type}
            </label>
          ) : null;
        })}
        {errorFor(create.error, 'event_types') ? (
          <small className="field-error">{errorFor(create.error, 'event_types')}</small>
        ) : null}
      </fieldset>
      <button type="submit" className="primary" disabled={create.isPending}>
        Add endpoint
      </button>
      {onField ? null : <Problem error={create.error} />}
    </form>
  );
}

function EndpointCard({ endpoint: e, onSecret }: { endpoint: Endpoint; onSecret(secret: string): void }) {
  const can = useCan();
  const setStatus = useSetEndpointStatus();
  const rotate = useRotateSecret();
  const ping = usePing();
  const remove = useDeleteEndpoint();
  const announce = useAnnounce();
  const [open, setOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const attempts = useAttempts(e.id, open);
  const error = setStatus.error ?? rotate.error ?? ping.error ?? remove.error;
  const paused = e.status !== 'ACTIVE';
  return (
    <li className="card" aria-label={`Endpoint ${e.url}`}>
      <p className="card-title">
        <span className={`badge${paused ? ' bad' : ''}`}>{e.status}</span> <strong>{e.url}</strong>
      </p>
      <p className="muted">
        {e.description ? `${e.description} · ` : ''}
        {e.event_types.join(', ')}
        {e.disabled_reason ? ` · ${e.disabled_reason}` : ''}
      </p>
      <div className="actions">
        {can('PATCH /api/v1/webhooks/endpoints/{endpoint_id}') ? (
          <button
            type="button"
            onClick={() =>
              setStatus.mutate(
                { id: e.id, status: paused ? 'ACTIVE' : 'PAUSED' },
                { onSuccess: () => announce(`Endpoint ${paused ? 'resumed' : 'paused'}`) },
              )
            }
          >
            {paused ? 'Resume' : 'Pause'}
          </button>
        ) : null}
        {can('POST /api/v1/webhooks/endpoints/{endpoint_id}/test') ? (
          <button
            type="button"
            onClick={() => ping.mutate(e.id, { onSuccess: () => announce(`Test ping queued for ${e.url}`) })}
          >
            Send test ping
          </button>
        ) : null}
        {can('POST /api/v1/webhooks/endpoints/{endpoint_id}/rotate-secret') ? (
          <button
            type="button"
            onClick={() => rotate.mutate(e.id, { onSuccess: (r) => onSecret(r.signing_secret) })}
          >
            Rotate secret
          </button>
        ) : null}
        {can('DELETE /api/v1/webhooks/endpoints/{endpoint_id}') ? (
          <button type="button" onClick={() => setDeleting(true)}>
            Delete endpoint
          </button>
        ) : null}
      </div>
      <Problem error={error} />
      <details onToggle={(ev) => setOpen(ev.currentTarget.open)}>
        <summary>Attempts</summary>
        <Problem error={attempts.error} />
        {attempts.data && attempts.data.data.length === 0 ? <p>No attempt yet.</p> : null}
        <ol className="timeline">
          {attempts.data?.data.map((a) => (
            <li key={a.id}>
              {when(a.created_at)} · {a.event_type} · attempt {a.attempt_number} ·{' '}
              {a.succeeded ? 'succeeded' : 'failed'} · {a.status_code ?? 'no answer'} · {a.duration_ms} ms
              {a.error ? ` · ${a.error}` : ''}
            </li>
          ))}
        </ol>
      </details>
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${e.url}?`}
          confirmLabel="Delete"
          busy={remove.isPending}
          onCancel={() => setDeleting(false)}
          onConfirm={() =>
            remove.mutate(e.id, {
              onSuccess: () => announce('Endpoint deleted'),
              onSettled: () => setDeleting(false),
            })
          }
        >
          <p>Its secrets, queued deliveries and attempts are deleted with it.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}

function Deliveries({ endpoints }: { endpoints: readonly Endpoint[] }) {
  const can = useCan();
  const [endpointId, setEndpointId] = useState('');
  const [status, setStatus] = useState('');
  const statusFilter =
    status === 'pending' || status === 'succeeded' || status === 'failed' ? status : undefined;
  const deliveries = useDeliveries(
    {
      page_size: 50,
      ...(endpointId ? { endpoint_id: endpointId } : {}),
      ...(statusFilter ? { status: [statusFilter] } : {}),
    },
    can('GET /api/v1/webhooks/deliveries'),
  );
  const replay = useReplay();
  const announce = useAnnounce();
  const mayReplay = can('POST /api/v1/webhooks/deliveries/{delivery_id}/replay');
  return (
    <section aria-labelledby="deliveries-h">
      <h2 id="deliveries-h">Deliveries</h2>
      <div className="inline">
        <Select
          label="Endpoint"
          value={endpointId}
          onChange={(e) => setEndpointId(e.target.value)}
          options={[
            { value: '', label: 'Every endpoint' },
            ...endpoints.map((e) => ({ value: e.id, label: e.url })),
          ]}
        />
        <Select
          label="Delivery status"
          value={status}
          onChange={(e) => setStatus(e.target.value)}
          options={[
            { value: '', label: 'Any' },
            { value: 'pending', label: 'Pending' },
            { value: 'succeeded', label: 'Succeeded' },
            { value: 'failed', label: 'Failed' },
          ]}
        />
        <button type="button" onClick={() => void deliveries.refetch()}>
          Refresh deliveries
        </button>
      </div>
      <Problem error={deliveries.error ?? replay.error} />
      {deliveries.data && deliveries.data.data.length === 0 ? <p>No delivery.</p> : null}
      {deliveries.data && deliveries.data.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last attempt</th>
              {mayReplay ? <th scope="col">Action</th> : null}
            </tr>
          </thead>
          <tbody>
            {deliveries.data.data.map((d) => (
              <tr key={d.id}>
                <th scope="row">
                  {d.event_type} <small className="muted">{when(d.created_at)}</small>
                </th>
                <td>{d.endpoint_url}</td>
                <td>{d.status}</td>
                <td>{d.attempt_count}</td>
                <td>
                  {d.last_attempt
                    ? `${d.last_attempt.status_code ?? 'no answer'}${d.last_attempt.error ? ` · ${d.last_attempt.error}` : ''} · ${when(d.last_attempt.created_at)}`
                    : d.next_attempt_at
                      ? `next ${when(d.next_attempt_at)}`
                      : '—'}
                </td>
                {mayReplay ? (
                  <td>
                    <button
                      type="button"
                      aria-label={`Replay ${d.event_type} to ${d.endpoint_url}`}
                      onClick={() =>
                        replay.mutate(d.id, { onSuccess: () => announce(`${d.event_type} replayed`) })
                      }
                    >
                      Replay
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
