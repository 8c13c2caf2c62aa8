import { Link } from 'wouter';
import { useCan } from '../../api/access';
import {
  type Carrier,
  useCarrier,
  useCarrierAudit,
  useCarrierOffers,
  useCarrierOutreaches,
} from '../../api/carriers';
import { money, Problem, when } from '../../ui/problem';
import { CarrierActions } from './carrier-actions';
import { LanesSection } from './lanes-section';
import { VettingSection } from './vetting-section';

/** A carrier's page: vetting, checks, contacts, lanes, offers, outreaches and the audit log. */
export function CarrierScreen({ carrierId }: { carrierId: string }) {
  const carrier = useCarrier(carrierId);
  if (carrier.error) {
    return (
      <section>
        <h1>Carrier</h1>
        <Problem error={carrier.error} />
      </section>
    );
  }
  if (!carrier.data) return <p>Loading…</p>;
  return <CarrierPage carrier={carrier.data} />;
}

function CarrierPage({ carrier: c }: { carrier: Carrier }) {
  const can = useCan();
  return (
    <article className="carrier">
      <p className="muted">
        <Link href="/carriers">Carriers</Link>
      </p>
      <h1>{c.name}</h1>
      <p className="muted">
        {c.is_active ? 'Active' : 'Disabled'} · vetting {c.compliance_status} · risk{' '}
        {c.risk_level ?? 'not assessed'}
        {c.mc_number ? ` · MC ${c.mc_number}` : ''}
        {c.dot_number ? ` · DOT ${c.dot_number}` : ''}
        {c.stop_contact_requested_at
          ? ` · asked not to be contacted on ${when(c.stop_contact_requested_at)}`
          : ''}
      </p>
      <CarrierActions carrier={c} can={can} />
      <VettingSection carrier={c} />
      <Contacts carrier={c} />
      <LanesSection carrierId={c.id} can={can} />
      <Offers carrierId={c.id} />
      <Outreaches carrierId={c.id} />
      <AuditLog carrierId={c.id} />
    </article>
  );
}

function Contacts({ carrier: c }: { carrier: Carrier }) {
  return (
    <section aria-labelledby="contacts-h">
      <h2 id="contacts-h">Contacts</h2>
      <dl className="facts">
        <dt>Phone</dt>
        <dd>{c.phone ?? '—'}</dd>
        <dt>E-mail</dt>
        <dd>{c.email ?? '—'}</dd>
        <dt>Dispatcher</dt>
        <dd>
          {[c.dispatcher_name, c.dispatcher_phone, c.dispatcher_email].filter(Boolean).join(' · ') || '—'}
        </dd>
        <dt>Home state</dt>
        <dd>{c.home_state ?? '—'}</dd>
        <dt>Preferred channel</dt>
        <dd>{c.preferred_channel ?? 'the organization’s order'}</dd>
      </dl>
      {c.contacts.length > 0 ? (
        <ul>
          {c.contacts.map((k) => (
            <li key={k.id}>
              <span className="badge">{k.contact_type}</span>{' '}
              {[k.name, k.phone, k.email].filter(Boolean).join(' · ')}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function Offers({ carrierId }: { carrierId: string }) {
  const offers = useCarrierOffers(carrierId);
  return (
    <section aria-labelledby="offers-h">
      <h2 id="offers-h">Offers</h2>
      <Problem error={offers.error} />
      {offers.data && offers.data.data.length === 0 ? <p>No offers.</p> : null}
      <ul className="cards">
        {offers.data?.data.map((o) => (
          <li key={o.id} className="card">
            <Link href={`/loads/${o.load_id}`}>{o.load_number ?? o.load_id}</Link> · {money(o.offer_amount)} ·{' '}
            {o.status} · {o.channel ?? 'entered'} · {when(o.created_at)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Outreaches({ carrierId }: { carrierId: string }) {
  const outreaches = useCarrierOutreaches(carrierId);
  return (
    <section aria-labelledby="outreaches-h">
      <h2 id="outreaches-h">Outreaches</h2>
      <Problem error={outreaches.error} />
      {outreaches.data && outreaches.data.data.length === 0 ? <p>No outreaches.</p> : null}
      <ul className="cards">
        {outreaches.data?.data.map((o) => (
          <li key={o.id} className="card">
            <Link href={`/loads/${o.load_id}`}>{o.load_number ?? o.load_id}</Link> · {o.modality} ·{' '}
            {o.direction} · {o.status}
            {o.is_automated ? ' · by the agent' : ''} · {when(o.created_at)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function AuditLog({ carrierId }: { carrierId: string }) {
  const audit = useCarrierAudit(carrierId);
  const rows = audit.data?.data ?? [];
  return (
    <section aria-labelledby="audit-h">
      <h2 id="audit-h">Audit log</h2>
      <Problem error={audit.error} />
      {audit.data && rows.length === 0 ? <p>Nothing recorded yet.</p> : null}
      <ol className="timeline">
        {rows.map((a) => (
          <li key={a.id}>
            <strong>{a.action.replaceAll('_', ' ')}</strong> · {when(a.created_at)} · {a.actor_type}
            {a.reason ? ` · reason ${a.reason}` : ''}
            {a.reason_note ? ` · “${a.reason_note}”` : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}
