import { type FormEvent, useId, useState } from 'react';
import { Link } from 'wouter';
import { useLoadOutreaches } from '../../api/activity';
import { errorFor } from '../../api/errors';
import { type ReviewItem, useCounterOffer, useDecideOffer, useReviews } from '../../api/offers';
import { useAnnounce } from '../../ui/announcer';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { Field } from '../../ui/field';
import { money, Problem, when } from '../../ui/problem';
import { Thread } from '../load/messages-section';
import { carrierName, channelName } from '../load/offers-section';

/** Offers waiting for a rep: escalated first; approve (book), decline or counter each. */
export function ReviewScreen() {
  const reviews = useReviews();
  return (
    <section>
      <h1>Review</h1>
      <Problem error={reviews.error} />
      {reviews.data && reviews.data.data.length === 0 ? <p>Nothing waits for a decision.</p> : null}
      <ul className="cards">
        {reviews.data?.data.map((item) => (
          <ReviewCard key={item.offer_id} item={item} />
        ))}
      </ul>
    </section>
  );
}

function ReviewCard({ item }: { item: ReviewItem }) {
  const { offer } = item;
  const decide = useDecideOffer();
  const counter = useCounterOffer();
  const announce = useAnnounce();
  const titleId = useId();
  const [asked, setAsked] = useState<'accepted' | 'rejected' | null>(null);
  const [countering, setCountering] = useState(false);
  const [amount, setAmount] = useState('');
  // One key per counter the rep means to send: a retry after a lost answer cannot send it twice.
  const [attempt, setAttempt] = useState(() => crypto.randomUUID());
  const [open, setOpen] = useState(false);
  const carrier = offer.carrier;

  const sendCounter = (e: FormEvent) => {
    e.preventDefault();
    counter.mutate(
      { offer, amount: Number(amount), key: `${offer.id}:${amount}:${attempt}` },
      {
        onSuccess: (c) => {
          announce(
            `Counter of ${money(c.amount)} sent to ${carrierName(offer)}${c.final ? ' as our final' : ''}`,
          );
          setCountering(false);
          setAttempt(crypto.randomUUID());
        },
      },
    );
  };

  return (
    <li className={`card${item.escalated_at ? ' escalated' : ''}`} aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {item.escalated_at ? <span className="badge bad">Escalated</span> : null}{' '}
        <Link href={`/loads/${item.load_id}`}>{item.load_number ?? item.load_id}</Link> · {carrierName(offer)}{' '}
        · {money(offer.offer_amount)}
      </h2>
      <p className="muted">
        {channelName(offer.channel)} · waiting since {when(item.requested_at)}
        {carrier
          ? ` · vetting ${carrier.compliance_status}, risk ${carrier.risk_level ?? 'not assessed'}`
          : ''}
        {offer.counter_offer_amount ? ` · our counter ${money(offer.counter_offer_amount)}` : ''}
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={() => setAsked('accepted')}>
          Approve
        </button>
        <button type="button" onClick={() => setCountering(!countering)} aria-expanded={countering}>
          Counter
        </button>
        <button type="button" onClick={() => setAsked('rejected')}>
          Decline
        </button>
      </div>
      {countering ? (
        <form className="inline" onSubmit={sendCounter}>
          <Field
            label="Counter amount"
            type="number"
            inputMode="decimal"
            min={1}
            step="any"
            required
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            error={errorFor(counter.error, 'amount')}
            hint={`The carrier asked ${money(offer.offer_amount)}`}
          />
          <button type="submit" className="primary" disabled={counter.isPending}>
            Send counter
          </button>
        </form>
      ) : null}
      {counter.error && !errorFor(counter.error, 'amount') ? <Problem error={counter.error} /> : null}
      <Problem error={decide.error} />
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Conversation so far</summary>
        {open ? <Conversation item={item} /> : null}
      </details>
      {asked ? (
        <ConfirmDialog
          title={asked === 'accepted' ? 'Approve and book?' : 'Decline this offer?'}
          busy={decide.isPending}
          onCancel={() => setAsked(null)}
          onConfirm={() =>
            decide.mutate(
              { offer, status: asked },
              {
                onSuccess: () => announce(`Offer from ${carrierName(offer)} ${asked}`),
                onSettled: () => setAsked(null),
              },
            )
          }
        >
          <p>
            {asked === 'accepted' ? 'Book' : 'Decline'} load {item.load_number} with{' '}
            <strong>{carrierName(offer)}</strong> at <strong>{money(offer.offer_amount)}</strong>.
          </p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}

function Conversation({ item }: { item: ReviewItem }) {
  const outreaches = useLoadOutreaches(item.load_id, item.carrier_id ?? undefined);
  const messaged = outreaches.data?.data.find((o) => o.modality !== 'call');
  if (outreaches.error) return <Problem error={outreaches.error} />;
  if (!outreaches.data) return <p>Loading…</p>;
  if (!messaged) return <p>No e-mail or WhatsApp conversation with this carrier on this load.</p>;
  return <Thread outreachId={messaged.id} />;
}
