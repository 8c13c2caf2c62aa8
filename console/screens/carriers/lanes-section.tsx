import { useState } from 'react';
import type { Operation } from '../../api/access';
import { type LanePreference, useLanePreferences, useRestrictLane } from '../../api/carriers';
import { useAnnounce } from '../../ui/announcer';
import { Problem, when } from '../../ui/problem';
import { ReasonDialog } from '../../ui/reason-dialog';

const place = (p: { city?: string | null; state?: string | null }) =>
  [p.city, p.state].filter(Boolean).join(', ') || 'any';

const laneName = (p: LanePreference) => `${place(p.lane.origin)} to ${place(p.lane.destination)}`;

/** The carrier's lanes with their tiers and restrictions; restrict or lift, with a reason. */
export function LanesSection({ carrierId, can }: { carrierId: string; can(op: Operation): boolean }) {
  const lanes = useLanePreferences(carrierId);
  const restrict = useRestrictLane(carrierId);
  const announce = useAnnounce();
  const [asked, setAsked] = useState<LanePreference | null>(null);
  const rows = lanes.data?.data ?? [];
  const mayRestrict = can('POST /api/v1/carriers/{carrier_id}/lane-preferences/{preference_id}/restrict');
  const mayLift = can('POST /api/v1/carriers/{carrier_id}/lane-preferences/{preference_id}/unrestrict');
  return (
    <section aria-labelledby="lanes-h">
      <h2 id="lanes-h">Lanes</h2>
      <Problem error={lanes.error} />
      {lanes.data && rows.length === 0 ? <p>No lane preferences.</p> : null}
      {rows.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Lane</th>
              <th scope="col">Equipment</th>
              <th scope="col">Preference</th>
              <th scope="col">Tier</th>
              <th scope="col">Restriction</th>
              {mayRestrict || mayLift ? <th scope="col">Action</th> : null}
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id}>
                <th scope="row">{laneName(p)}</th>
                <td>{p.lane.equipment_type}</td>
                <td>
                  {p.preference_type}
                  {p.is_active ? '' : ' (inactive)'}
                </td>
                <td>{p.routing_guide_tier ?? '—'}</td>
                <td>
                  {p.dnu ? `Restricted (${p.dnu_reason ?? 'no reason'}) since ${when(p.dnu_set_at)}` : 'None'}
                </td>
                {(p.dnu ? mayLift : mayRestrict) ? (
                  <td>
                    <button
                      type="button"
                      aria-label={`${p.dnu ? 'Lift restriction on' : 'Restrict on'} ${laneName(p)}`}
                      onClick={() => {
                        restrict.reset();
                        setAsked(p);
                      }}
                    >
                      {p.dnu ? 'Lift restriction' : 'Restrict'}
                    </button>
                  </td>
                ) : mayRestrict || mayLift ? (
                  <td />
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {asked ? (
        <ReasonDialog
          title={
            asked.dnu ? `Lift the restriction on ${laneName(asked)}?` : `Restrict on ${laneName(asked)}?`
          }
          confirmLabel={asked.dnu ? 'Lift restriction' : 'Restrict'}
          busy={restrict.isPending}
          error={restrict.error}
          onCancel={() => setAsked(null)}
          onConfirm={(reason) =>
            restrict.mutate(
              { preferenceId: asked.id, restrict: !asked.dnu, ...reason },
              {
                onSuccess: () => {
                  announce(`Lane ${laneName(asked)} ${asked.dnu ? 'no longer restricted' : 'restricted'}`);
                  setAsked(null);
                },
              },
            )
          }
        >
          <p>
            {asked.dnu
              ? 'The agent may work this carrier on the lane again.'
              : 'The agent stops working this carrier on the lane (do not use).'}
          </p>
        </ReasonDialog>
      ) : null}
    </section>
  );
}
