import { type Load, useAssignAgent, useLoad } from '../../api/loads';
import { useLoadOffers } from '../../api/offers';
import { useAnnounce } from '../../ui/announcer';
import { money, Problem, when } from '../../ui/problem';
import { localTime, place, zoneOf } from '../../ui/stops';
import { ActivitySection } from './activity-section';
import { CallsSection } from './calls-section';
import { MessagesSection } from './messages-section';
import { OffersSection } from './offers-section';

/** A load's page: stops, rates, booking, offers, the agent's activity, calls and messages. */
export function LoadScreen({ loadId }: { loadId: string }) {
  const load = useLoad(loadId);
  if (load.error) {
    return (
      <section>
        <h1>Load</h1>
        <Problem error={load.error} />
      </section>
    );
  }
  if (!load.data) return <p>Loading…</p>;
  return <LoadPage load={load.data} />;
}

function LoadPage({ load }: { load: Load }) {
  const offers = useLoadOffers(load.id);
  const phones = (offers.data?.data ?? []).flatMap((o) =>
    o.carrier?.phone ? [{ label: o.carrier.name, phone: o.carrier.phone }] : [],
  );
  return (
    <article className="load">
      <h1>{load.load_number}</h1>
      <p className="muted">
        {load.load_status ?? 'No status'} · {load.equipment_type}
        {load.customer_name ? ` · ${load.customer_name}` : ''}
        {load.tms_load_id ? ` · TMS ${load.tms_load_id}` : ''}
      </p>
      <AgentAssignment load={load} />
      <div className="columns">
        <Stops load={load} />
        <Rates load={load} />
      </div>
      <section aria-labelledby="booking-h">
        <h2 id="booking-h">Booking</h2>
        {load.booked_offer ? (
          <p>
            Booked with <strong>{load.booked_offer.carrier_name ?? load.booked_offer.carrier_id}</strong> at{' '}
            {money(load.booked_offer.amount)} on {when(load.booked_offer.booked_at)} (
            {load.booked_offer.booked_by === 'agent' ? 'by the agent' : 'by a rep'}).
          </p>
        ) : (
          <p>Not booked.</p>
        )}
      </section>
      <OffersSection load={load} />
      <ActivitySection loadId={load.id} />
      <CallsSection loadId={load.id} phones={phones} />
      <MessagesSection loadId={load.id} />
    </article>
  );
}

function AgentAssignment({ load }: { load: Load }) {
  const assign = useAssignAgent(load);
  const announce = useAnnounce();
  const handed = load.assigned_to_ai_agent;
  return (
    <div className="actions">
      <span>{handed ? 'The agent works this load.' : 'The agent does not work this load.'}</span>
      <button
        type="button"
        disabled={assign.isPending}
        onClick={() =>
          assign.mutate(!handed, {
            onSuccess: () => announce(handed ? 'Load taken back from the agent' : 'Load handed to the agent'),
          })
        }
      >
        {handed ? 'Take back from the agent' : 'Hand to the agent'}
      </button>
      <Problem error={assign.error} />
    </div>
  );
}

function Stops({ load }: { load: Load }) {
  return (
    <section aria-labelledby="stops-h">
      <h2 id="stops-h">Stops</h2>
      <ol className="stops">
        {load.stops.map((s, i) => (
          <li key={s.id}>
            <p className="card-title">
              <span className="badge">{s.type ?? `Stop ${i + 1}`}</span> <strong>{place(s)}</strong>
              {s.location.company_name ? ` · ${s.location.company_name}` : ''}
            </p>
            <p className="muted">
              Window {localTime(s.planned?.start ?? s.expected_date, s)} – {localTime(s.planned?.end, s)}{' '}
              (local, {zoneOf(s)})
            </p>
            {s.notes ? <p>{s.notes}</p> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The load's rates; customer rate and margin only where the API returns them (not to a MEMBER). */
function Rates({ load }: { load: Load }) {
  return (
    <section aria-labelledby="rates-h">
      <h2 id="rates-h">Rates</h2>
      <dl className="facts">
        <dt>Posted rate</dt>
        <dd>{money(load.posted_rate)}</dd>
        <dt>Max buy rate</dt>
        <dd>{money(load.max_buy_rate)}</dd>
        <dt>Market rate</dt>
        <dd>{money(load.suggested_market_rate)}</dd>
        {load.customer_rate !== null && load.customer_rate !== undefined ? (
          <>
            <dt>Customer rate</dt>
            <dd>{money(load.customer_rate)}</dd>
          </>
        ) : null}
        {load.margin !== null && load.margin !== undefined ? (
          <>
            <dt>Margin</dt>
            <dd>{money(load.margin)}</dd>
          </>
        ) : null}
        <dt>Offers</dt>
        <dd>
          {load.offer_count} {load.offer_count ? `(best ${money(load.min_offer_amount)})` : ''}
        </dd>
      </dl>
    </section>
  );
}
