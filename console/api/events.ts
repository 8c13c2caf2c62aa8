import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from './client';
import { keys } from './keys';

/** The event types the console follows; each invalidates the queries it changes. */
const FOLLOWED = [
  'load.created',
  'load.updated',
  'load.status_changed',
  'load.booked',
  'load.unbooked',
  'offer.created',
  'offer.status_changed',
  'offer.countered',
  'offer.review_requested',
  'offer.review_escalated',
  'call.created',
  'call.status_changed',
  'outreach.created',
  'outreach.status_changed',
  'carrier.created',
  'carrier.updated',
  'carrier.disabled',
  'carrier.enabled',
  'carrier.compliance_changed',
  'lane_preference.restricted',
  'lane_preference.unrestricted',
  'lane_preference.updated',
  'elp_test.completed',
  'elp_test.scored',
  'elp_test.failed',
] as const;

type Followed = (typeof FOLLOWED)[number];

const STREAM_DELAY_MS = 400;

interface EventData {
  id?: string;
  carrier_id?: string;
  name?: string;
  load_id?: string;
  offer_id?: string;
  load_number?: string | null;
  offer_amount?: number;
  amount?: number;
  status?: string;
  offer?: { load_id?: string };
}

const usd = (n: number | undefined) =>
  n === undefined
    ? ''
    : ` of ${n.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 })}`;

/** The sentence a screen reader hears for an event. */
function describe(type: Followed, d: EventData): string {
  const load = d.load_number ? ` on load ${d.load_number}` : '';
  switch (type) {
    case 'offer.created':
      return `New offer${usd(d.offer_amount)}${load}`;
    case 'offer.status_changed':
      return `Offer${usd(d.offer_amount)}${load} is now ${d.status}`;
    case 'offer.countered':
      return `Counter${usd(d.amount)} sent`;
    case 'offer.review_requested':
      return `An offer${usd(d.offer_amount)}${load} waits for review`;
    case 'offer.review_escalated':
      return `An offer${usd(d.offer_amount)}${load} waited too long for review`;
    case 'load.booked':
      return `Load ${d.load_number ?? ''} booked`;
    case 'carrier.disabled':
    case 'carrier.enabled':
      return `Carrier ${d.name ?? ''} ${type.slice('carrier.'.length)}`;
    default:
      return `${type.replace('.', ' ').replace('_', ' ')}${load}`;
  }
}

/** The load an event is about, when it names one. */
const loadOf = (type: Followed, d: EventData) =>
  type.startsWith('load.') ? (d.id ?? d.load_id) : (d.load_id ?? d.offer?.load_id);

/** Marks stale exactly the queries an event changes (the screens refetch what they show). */
function invalidate(client: QueryClient, type: Followed, d: EventData) {
  const loadId = loadOf(type, d);
  if (type.startsWith('load.') || type.startsWith('offer.'))
    void client.invalidateQueries({ queryKey: keys.loads });
  if (type.startsWith('offer.')) void client.invalidateQueries({ queryKey: keys.reviews });
  if (loadId) void client.invalidateQueries({ queryKey: keys.load(loadId) });
  if (type.startsWith('outreach.')) void client.invalidateQueries({ queryKey: ['messages'] });
  if (type.startsWith('carrier.')) {
    void client.invalidateQueries({ queryKey: keys.carriers });
    if (d.id) void client.invalidateQueries({ queryKey: keys.carrier(d.id) });
  }
  if (type.startsWith('lane_preference.') && d.carrier_id)
    void client.invalidateQueries({ queryKey: keys.carrier(d.carrier_id) });
  if (type.startsWith('call.')) void client.invalidateQueries({ queryKey: keys.calls });
  if (type.startsWith('elp_test.')) void client.invalidateQueries({ queryKey: keys.elpTests });
}

export type StreamState = 'connecting' | 'open' | 'reconnecting';

/**
 * Follows the organization's events (GET /events/stream with a one-use ticket) while signed in.
 * Each event invalidates the queries it changes and is announced; after a drop the stream is opened
 * again with a new ticket and `last_event_id`, so no event is lost (a `stream.resync` reloads all).
 */
export function useEventStream(
  enabled: boolean,
  organizationId: string | null,
  announce: (text: string) => void,
) {
  const client = useQueryClient();
  const [state, setState] = useState<StreamState>('connecting');
  const announceRef = useRef(announce);
  announceRef.current = announce;

  // biome-ignore lint/correctness/useExhaustiveDependencies: another organization needs a stream of its own
  useEffect(() => {
    if (!enabled) return;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let stopped = false;
    let lastEventId: string | null = null;
    let failures = 0;

    const reconnect = () => {
      source?.close();
      source = null;
      if (stopped) return;
      setState('reconnecting');
      failures += 1;
      timer = setTimeout(open, Math.min(10_000, 500 * 2 ** Math.min(failures, 5)));
    };

    async function open() {
      if (stopped) return;
      try {
        const { stream_url } = await unwrap(api.POST('/api/v1/events/stream-tickets'));
        if (stopped) return;
        const url = new URL(stream_url, window.location.origin);
        url.searchParams.set('types', FOLLOWED.join(','));
        if (lastEventId) url.searchParams.set('last_event_id', lastEventId);
        source = new EventSource(url);
      } catch {
        reconnect();
        return;
      }
      source.onopen = () => {
        // Back after a drop, with no event seen yet to resume after: what happened meanwhile is read afresh.
        if (failures > 0 && !lastEventId) void client.invalidateQueries();
        failures = 0;
        setState('open');
      };
      source.onerror = reconnect;
      for (const type of FOLLOWED) {
        source.addEventListener(type, (e) => {
          lastEventId = e.lastEventId || lastEventId;
          const data = (JSON.parse(e.data) as { data?: EventData }).data ?? {};
          invalidate(client, type, data);
          announceRef.current(describe(type, data));
        });
      }
      source.addEventListener('stream.resync', () => void client.invalidateQueries());
      source.addEventListener('stream.closed', reconnect);
    }

    // The stream opens once the screen's first data had the connection to itself.
    timer = setTimeout(open, STREAM_DELAY_MS);
    const online = () => {
      if (!source) {
        if (timer) clearTimeout(timer);
        void open();
      }
    };
    window.addEventListener('online', online);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      source?.close();
      window.removeEventListener('online', online);
    };
  }, [enabled, organizationId, client]);

  return state;
}
