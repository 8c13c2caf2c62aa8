import { useState } from 'react';
import type { Load } from '../../api/loads';
import { type Offer, useDecideOffer, useLoadOffers } from '../../api/offers';
import { useAnnounce } from '../../ui/announcer';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { money, Problem, when } from '../../ui/problem';

const CHANNELS: Record<string, string> = { voice: 'Call', email: 'E-mail', messaging: 'WhatsApp' };
export const channelName = (c: string | null | undefined) => (c ? (CHANNELS[c] ?? c) : 'Entered by a rep');
export const carrierName = (o: Offer) => o.carrier?.name ?? 'Unknown carrier';

/** The load's offers with their carrier and channel; a pending one can be accepted or rejected. */
export function OffersSection({ load }: { load: Load }) {
  const offers = useLoadOffers(load.id);
  const decide = useDecideOffer();
  const announce = useAnnounce();
  const [asked, setAsked] = useState<{ offer: Offer; status: 'accepted' | 'rejected' } | null>(null);

  const confirm = () => {
    if (!asked) return;
    decide.mutate(asked, {
      onSuccess: () => announce(`Offer from ${carrierName(asked.offer)} ${asked.status}`),
      onSettled: () => setAsked(null),
    });
  };

  return (
    <section aria-labelledby="offers-h">
      <h2 id="offers-h">Offers</h2>
      <Problem error={decide.error} />
      <Problem error={offers.error} />
      {offers.data && offers.data.data.length === 0 ? <p>No offers yet.</p> : null}
      <ul className="cards">
        {offers.data?.data.map((o) => (
          <li key={o.id} className={`card offer-${o.status}`}>
            <p className="card-title">
              <strong>{carrierName(o)}</strong> · {money(o.offer_amount)} ·{' '}
              <span className="badge">{o.status}</span>
            </p>
            <p className="muted">
              {channelName(o.channel)} · {when(o.created_at)}
              {o.counter_offer_amount ? ` · our counter ${money(o.counter_offer_amount)}` : ''}
              {o.carrier ? ` · compliance ${o.carrier.compliance_status}` : ''}
            </p>
            {o.status === 'pending' ? (
              <div className="actions">
                <button
                  type="button"
                  className="primary"
                  aria-label="Accept"
                  aria-describedby={`offer-${o.id}`}
                  onClick={() => setAsked({ offer: o, status: 'accepted' })}
                >
                  Accept
                </button>
                <button
                  type="button"
                  aria-label="Reject"
                  aria-describedby={`offer-${o.id}`}
                  onClick={() => setAsked({ offer: o, status: 'rejected' })}
                >
                  Reject
                </button>
                <span id={`offer-${o.id}`} className="visually-hidden">
                  the offer of {money(o.offer_amount)} from {carrierName(o)}
                </span>
              </div>
            ) : null}
          </li>
        ))}
      </ul>
      {asked ? (
        <ConfirmDialog
          title={asked.status === 'accepted' ? 'Accept this offer?' : 'Reject this offer?'}
          busy={decide.isPending}
          onConfirm={confirm}
          onCancel={() => setAsked(null)}
        >
          <p>
            {asked.status === 'accepted' ? 'Book' : 'Reject'} load {load.load_number} with{' '}
            <strong>{carrierName(asked.offer)}</strong> at <strong>{money(asked.offer.offer_amount)}</strong>.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
