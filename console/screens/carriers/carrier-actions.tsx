import { useState } from 'react';
import type { Operation } from '../../api/access';
import { type Carrier, useRunCheck, useSetCarrierActive, useStopContact } from '../../api/carriers';
import { useAnnounce } from '../../ui/announcer';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { Problem } from '../../ui/problem';
import { ReasonDialog } from '../../ui/reason-dialog';

type Asked = 'active' | 'stop' | null;

/** The carrier's actions, each shown only to a role the API accepts for it. */
export function CarrierActions({ carrier: c, can }: { carrier: Carrier; can(op: Operation): boolean }) {
  const setActive = useSetCarrierActive(c.id);
  const stop = useStopContact(c.id);
  const check = useRunCheck(c.id);
  const announce = useAnnounce();
  const [asked, setAsked] = useState<Asked>(null);
  const toggle = c.is_active ? 'disable' : 'enable';
  const mayToggle = can(`POST /api/v1/carriers/{carrier_id}/${toggle}`);
  const mayStop = c.stop_contact_requested_at
    ? can('DELETE /api/v1/carriers/{carrier_id}/stop-contact')
    : can('POST /api/v1/carriers/{carrier_id}/stop-contact');
  const mayCheck = can('POST /api/v1/carriers/{carrier_id}/compliance-checks');
  if (!mayToggle && !mayStop && !mayCheck) return null;
  return (
    <section className="actions" aria-label="Carrier actions">
      {mayToggle ? (
        <button
          type="button"
          onClick={() => {
            setActive.reset();
            setAsked('active');
          }}
        >
          {c.is_active ? 'Disable carrier' : 'Enable carrier'}
        </button>
      ) : null}
      {mayStop ? (
        <button type="button" onClick={() => setAsked('stop')}>
          {c.stop_contact_requested_at ? 'Clear stop-contact request' : 'Record stop-contact request'}
        </button>
      ) : null}
      {mayCheck ? (
        <button
          type="button"
          disabled={check.isPending}
          onClick={() =>
            check.mutate(undefined, {
              onSuccess: (r) =>
                announce(`Compliance check done: ${r.verdict}, risk ${r.risk_level ?? 'not assessed'}`),
            })
          }
        >
          {check.isPending ? 'Checking…' : 'Run compliance check'}
        </button>
      ) : null}
      <Problem error={check.error} />
      <Problem error={stop.error} />
      {asked === 'active' ? (
        <ReasonDialog
          title={c.is_active ? `Disable ${c.name}?` : `Enable ${c.name}?`}
          confirmLabel={c.is_active ? 'Disable' : 'Enable'}
          busy={setActive.isPending}
          error={setActive.error}
          onCancel={() => setAsked(null)}
          onConfirm={(reason) =>
            setActive.mutate(
              { active: !c.is_active, ...reason },
              {
                onSuccess: () => {
                  announce(`${c.name} ${c.is_active ? 'disabled' : 'enabled'}`);
                  setAsked(null);
                },
              },
            )
          }
        >
          <p>
            {c.is_active
              ? 'The agent stops contacting this carrier and no offer of it can be booked.'
              : 'The carrier can be contacted and booked again.'}{' '}
            The change is written to the audit log with the reason.
          </p>
        </ReasonDialog>
      ) : null}
      {asked === 'stop' ? (
        <ConfirmDialog
          title={
            c.stop_contact_requested_at ? 'Clear the stop-contact request?' : 'Record a stop-contact request?'
          }
          busy={stop.isPending}
          onCancel={() => setAsked(null)}
          onConfirm={() =>
            stop.mutate(!c.stop_contact_requested_at, {
              onSuccess: () =>
                announce(`Stop-contact request ${c.stop_contact_requested_at ? 'cleared' : 'recorded'}`),
              onSettled: () => setAsked(null),
            })
          }
        >
          <p>
            {c.stop_contact_requested_at
              ? `${c.name} may be contacted again, by the agent and by reps.`
              : `${c.name} asked not to be contacted: nobody contacts it, and its queued contacts are withdrawn.`}
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
