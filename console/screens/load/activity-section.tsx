import { useAgentActivity } from '../../api/activity';
import { money, Problem, when } from '../../ui/problem';

const STATUS: Record<string, string> = {
  waiting_for_wave: 'Waiting for its next wave',
  contacting: 'Contacting carriers',
  offers_pending_review: 'Offers waiting for a rep',
  booked: 'Booked',
  no_eligible_carriers: 'No carrier it may contact',
  exhausted: 'Every carrier tried',
  paused: 'Paused by quiet hours',
  not_workable: 'Not worked by the agent',
};

/** Where the agent stands on the load, and each wave, carrier, contact and offer it went through. */
export function ActivitySection({ loadId }: { loadId: string }) {
  const activity = useAgentActivity(loadId);
  const a = activity.data;
  return (
    <section aria-labelledby="activity-h">
      <h2 id="activity-h">Agent activity</h2>
      <Problem error={activity.error} />
      {a ? (
        <>
          <p>
            <strong>{STATUS[a.status] ?? a.status}</strong>
            {a.status_reason ? ` — ${a.status_reason}` : ''}
            {a.next_wave_at ? ` · next wave ${when(a.next_wave_at)}` : ''}
          </p>
          {a.timeline.length === 0 ? <p>Nothing yet.</p> : null}
          <ol className="timeline">
            {a.timeline.map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: entries have no id; the timeline is replaced whole, never reordered
              <li key={`${e.at}-${i}`}>
                <time dateTime={e.at}>{when(e.at)}</time>{' '}
                <span className="badge">{e.kind.replace('_', ' ')}</span>
                {e.wave !== null ? ` wave ${e.wave}` : ''}
                {e.carrier_name ? ` · ${e.carrier_name}` : ''}
                {e.channel ? ` · ${e.channel}` : ''}
                {e.amount !== null ? ` · ${money(e.amount)}` : ''}
                {e.reason ? ` · ${e.reason}` : ''}
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </section>
  );
}
