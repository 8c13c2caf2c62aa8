import { describe, expect, it } from 'vitest';
import { nextContactTime } from '../../src/lib/time-zones.js';
import {
  type ContactRules,
  channelsOf,
  type OpenBundle,
  openTime,
  planContact,
  type Reach,
} from '../../src/modules/agent/contact-plan.js';

// The contact rules as pure functions: every instant is given, every outcome exact. Chicago is
// UTC-5 in summer (CDT) and UTC-6 in winter (CST); New York one hour ahead, Los Angeles two behind.

const at = (iso: string) => new Date(iso);

/** Quiet 20:00 to 07:00 (the defaults), e-mail first, no gap, no pace, no grouping. */
const rules = (over: Partial<ContactRules> = {}): ContactRules => ({
  channelOrder: ['email', 'call', 'whatsapp'],
  quietStart: 20,
  quietEnd: 7,
  gapMinutes: 0,
  paceMinutes: 0,
  groupLaneLoads: false,
  fallbackZone: 'America/Chicago',
  ...over,
});

const carrier = (over: Partial<Reach> = {}): Reach => ({
  phone: '+13125550100',
  email: 'dispatch@carrier.example',
  preferred_channel: null,
  home_state: 'IL',
  last_contact_at: null,
  open_bundle: null,
  contacts_24h: 0,
  ...over,
});

describe('channelsOf: the carrier’s preference first, when the organization uses that channel', () => {
  it('puts the preferred channel first and keeps the rest in the organization’s order', () => {
    expect(channelsOf('whatsapp', ['email', 'call', 'whatsapp'])).toEqual(['whatsapp', 'email', 'call']);
    expect(channelsOf('email', ['call', 'email'])).toEqual(['email', 'call']);
  });

  it('ignores a preference the organization does not use, and no preference', () => {
    expect(channelsOf('whatsapp', ['email', 'call'])).toEqual(['email', 'call']);
    expect(channelsOf(null, ['call', 'whatsapp'])).toEqual(['call', 'whatsapp']);
  });

  it('returns a copy: the organization’s order is never changed', () => {
    const order = ['email', 'call'] as const;
    const channels = channelsOf(null, order);
    channels.push('whatsapp');
    expect(order).toEqual(['email', 'call']);
  });
});

describe('openTime: quiet hours in the carrier’s home state', () => {
  // 2026-07-15 02:30 UTC: 21:30 in Chicago (quiet), 22:30 in New York, 19:30 in Los Angeles.
  const evening = at('2026-07-15T02:30:00Z');

  it('holds a carrier in its quiet hours until they end, on the hour, in its own zone', () => {
    // Chicago 21:30 -> 07:00 CDT = 12:00 UTC.
    expect(openTime('IL', rules(), evening)).toEqual(at('2026-07-15T12:00:00Z'));
    // New York 22:30 -> 07:00 EDT = 11:00 UTC.
    expect(openTime('NY', rules(), evening)).toEqual(at('2026-07-15T11:00:00Z'));
  });

  it('lets a carrier in its hours be contacted now, to the millisecond', () => {
    const now = at('2026-07-15T02:30:17.250Z');
    // Los Angeles 19:30: still in its hours.
    expect(openTime('CA', rules(), now)).toEqual(now);
  });

  it('reads the state case-insensitively, and an unknown state in the fallback zone', () => {
    expect(openTime('ny', rules(), evening)).toEqual(at('2026-07-15T11:00:00Z'));
    const la = rules({ fallbackZone: 'America/Los_Angeles' });
    expect(openTime(null, la, evening)).toEqual(evening);
    expect(openTime('ZZ', la, evening)).toEqual(evening);
    expect(openTime(null, rules(), evening)).toEqual(at('2026-07-15T12:00:00Z'));
  });

  it('quiet hours crossing midnight: held from their start, through midnight, to their end', () => {
    // 20:00 CDT sharp (01:00 UTC) is quiet; 19:59 is not.
    expect(openTime('IL', rules(), at('2026-07-15T01:00:00Z'))).toEqual(at('2026-07-15T12:00:00Z'));
    expect(openTime('IL', rules(), at('2026-07-15T00:59:00Z'))).toEqual(at('2026-07-15T00:59:00Z'));
    // 00:10 CDT, after midnight: still quiet until 07:00 the same local day.
    expect(openTime('IL', rules(), at('2026-07-15T05:10:00Z'))).toEqual(at('2026-07-15T12:00:00Z'));
    // 06:59:30 CDT: quiet for the last half minute; 07:00 is in hours.
    expect(openTime('IL', rules(), at('2026-07-15T11:59:30Z'))).toEqual(at('2026-07-15T12:00:00Z'));
    expect(openTime('IL', rules(), at('2026-07-15T12:00:00Z'))).toEqual(at('2026-07-15T12:00:00Z'));
  });

  it('quiet hours within a day (start before end): held only between them', () => {
    const midday = rules({ quietStart: 12, quietEnd: 14 });
    // 12:30 CDT -> 14:00 CDT.
    expect(openTime('IL', midday, at('2026-07-15T17:30:00Z'))).toEqual(at('2026-07-15T19:00:00Z'));
    // 14:00 CDT and 11:59 CDT are in hours.
    expect(openTime('IL', midday, at('2026-07-15T19:00:00Z'))).toEqual(at('2026-07-15T19:00:00Z'));
    expect(openTime('IL', midday, at('2026-07-15T16:59:00Z'))).toEqual(at('2026-07-15T16:59:00Z'));
  });

  it('start equal to end means no quiet hours at all', () => {
    for (const hour of [0, 7, 23]) {
      const none = rules({ quietStart: hour, quietEnd: hour });
      expect(openTime('IL', none, evening)).toEqual(evening);
    }
  });

  it('in winter (CST, UTC-6) the same local hours fall an hour later in UTC', () => {
    // 2026-01-15 03:30 UTC: 21:30 CST -> 07:00 CST = 13:00 UTC.
    expect(openTime('TX', rules(), at('2026-01-15T03:30:00Z'))).toEqual(at('2026-01-15T13:00:00Z'));
  });

  it('the DST change in Chicago: a night that does not cross it ends at 07:00 local', () => {
    // The night before the spring change (Sat 7 March 2026, 21:00 CST = 03:00 UTC Sun 8) crosses
    // it; the night after (Sun 8 March, 21:00 CDT = 02:00 UTC Mon 9) does not: 07:00 CDT = 12:00 UTC.
    expect(openTime('IL', rules(), at('2026-03-09T02:00:00Z'))).toEqual(at('2026-03-09T12:00:00Z'));
    // The night after the autumn change (Sun 1 November, 21:00 CST = 03:00 UTC Mon 2): 07:00 CST.
    expect(openTime('IL', rules(), at('2026-11-02T03:00:00Z'))).toEqual(at('2026-11-02T13:00:00Z'));
  });

  it('the DST change in Chicago: held after the clocks moved, until 07:00 local', () => {
    // 03:30 CDT on Sun 8 March 2026, just after the spring jump (08:30 UTC): 07:00 CDT = 12:00 UTC.
    expect(openTime('IL', rules(), at('2026-03-08T08:30:00Z'))).toEqual(at('2026-03-08T12:00:00Z'));
    // 01:30 CST on Sun 1 November 2026, the second 01:30 after the autumn change (07:30 UTC):
    // 07:00 CST = 13:00 UTC.
    expect(openTime('IL', rules(), at('2026-11-01T07:30:00Z'))).toEqual(at('2026-11-01T13:00:00Z'));
  });

  // A night across a clock change is 23 or 25 hours long: the end of quiet hours is the local hour.
  it('a night crossing the autumn change in Chicago ends at 07:00 CST, not in quiet hours', () => {
    // 23:00 CDT on Sat 31 October 2026 = 04:00 UTC Sun 1 November; 07:00 CST = 13:00 UTC (now:
    // 12:00 UTC, 06:00 CST, still quiet).
    expect(openTime('IL', rules(), at('2026-11-01T04:00:00Z'))).toEqual(at('2026-11-01T13:00:00Z'));
  });

  it('a night crossing the spring change in Chicago ends at 07:00 CDT, not an hour later', () => {
    // 23:00 CST on Sat 7 March 2026 = 05:00 UTC Sun 8; 07:00 CDT = 12:00 UTC (now: 13:00 UTC).
    expect(openTime('IL', rules(), at('2026-03-08T05:00:00Z'))).toEqual(at('2026-03-08T12:00:00Z'));
  });

  it('quiet hours ending at the hour the spring change skips end at the first local time after it', () => {
    // Quiet 00:00-02:00; 01:30 CST on Sun 8 March 2026 (07:30 UTC); 02:00 does not exist that night,
    // so the first time out of quiet hours is 03:00 CDT (08:00 UTC), not 01:00 CST.
    expect(nextContactTime(at('2026-03-08T07:30:00Z'), 'America/Chicago', 0, 2)).toEqual(
      at('2026-03-08T08:00:00Z'),
    );
  });
});

describe('planContact: channel, gap, pace, joining a queued message, quiet hours', () => {
  const now = at('2026-07-15T15:00:00Z'); // 10:00 in Chicago: in hours.

  it('contacts the carrier now on the first channel it has an address for', () => {
    expect(planContact(carrier(), rules(), now)).toEqual({
      kind: 'contact',
      channel: 'email',
      address: 'dispatch@carrier.example',
      sendAt: now,
    });
    expect(planContact(carrier({ email: null }), rules(), now)).toEqual({
      kind: 'contact',
      channel: 'call',
      address: '+13125550100',
      sendAt: now,
    });
    // WhatsApp goes to the phone number; the carrier's preference comes first.
    expect(planContact(carrier({ preferred_channel: 'whatsapp' }), rules(), now)).toEqual({
      kind: 'contact',
      channel: 'whatsapp',
      address: '+13125550100',
      sendAt: now,
    });
  });

  it('finds a carrier with no address on any allowed channel unreachable, naming the channels', () => {
    expect(planContact(carrier({ email: null }), rules({ channelOrder: ['email'] }), now)).toEqual({
      kind: 'unreachable',
      channels: ['email'],
    });
    expect(planContact(carrier({ email: null, phone: null }), rules(), now)).toEqual({
      kind: 'unreachable',
      channels: ['email', 'call', 'whatsapp'],
    });
  });

  it('queues a carrier in its quiet hours for when they end, in its home state', () => {
    // 21:30 in Chicago, 19:30 in Los Angeles.
    const evening = at('2026-07-15T02:30:00Z');
    expect(planContact(carrier(), rules(), evening)).toMatchObject({
      kind: 'contact',
      sendAt: at('2026-07-15T12:00:00Z'),
    });
    expect(planContact(carrier({ home_state: 'CA' }), rules(), evening)).toMatchObject({
      kind: 'contact',
      sendAt: evening,
    });
  });

  it('holds a carrier contacted less than the gap ago until the gap has passed, exactly', () => {
    const gap = rules({ gapMinutes: 30 });
    const last = new Date(now.getTime() - 29 * 60_000);
    expect(planContact(carrier({ last_contact_at: last }), gap, now)).toEqual({
      kind: 'gap',
      opensAt: new Date(now.getTime() + 60_000),
      paced: false,
    });
    // Exactly the gap ago (also given as a string, as the database returns it): contacted now.
    const exactly = new Date(now.getTime() - 30 * 60_000).toISOString();
    expect(planContact(carrier({ last_contact_at: exactly }), gap, now)).toMatchObject({
      kind: 'contact',
      sendAt: now,
    });
    // No gap: a contact a minute ago holds nothing.
    const fresh = carrier({ last_contact_at: new Date(now.getTime() - 60_000) });
    expect(planContact(fresh, rules(), now)).toMatchObject({ kind: 'contact' });
  });

  it('paces a carrier contacted in the last 24 hours: the pace, not the gap, and says so', () => {
    const paced = rules({ gapMinutes: 30, paceMinutes: 320 });
    const twoHoursAgo = new Date(now.getTime() - 120 * 60_000);
    expect(planContact(carrier({ last_contact_at: twoHoursAgo, contacts_24h: 1 }), paced, now)).toEqual({
      kind: 'gap',
      opensAt: new Date(twoHoursAgo.getTime() + 320 * 60_000),
      paced: true,
    });
    // Within the least gap itself, the hold is the gap's (paced: false), until the pace's end.
    const tenMinutesAgo = new Date(now.getTime() - 10 * 60_000);
    expect(planContact(carrier({ last_contact_at: tenMinutesAgo, contacts_24h: 1 }), paced, now)).toEqual({
      kind: 'gap',
      opensAt: new Date(tenMinutesAgo.getTime() + 320 * 60_000),
      paced: false,
    });
    // No contact in the last 24 hours (or not known): only the gap holds.
    for (const contacts of [0, null, undefined]) {
      expect(
        planContact(carrier({ last_contact_at: twoHoursAgo, contacts_24h: contacts }), paced, now),
      ).toMatchObject({ kind: 'contact', sendAt: now });
    }
    // A pace no longer than the gap is the gap.
    const short = rules({ gapMinutes: 30, paceMinutes: 30 });
    expect(planContact(carrier({ last_contact_at: tenMinutesAgo, contacts_24h: 2 }), short, now)).toEqual({
      kind: 'gap',
      opensAt: new Date(tenMinutesAgo.getTime() + 30 * 60_000),
      paced: false,
    });
  });

  it('joins the carrier’s queued message when loads are grouped, whatever the gap', () => {
    const bundle: OpenBundle = {
      bundle_id: 'bundle_1',
      modality: 'email',
      address: 'dispatch@carrier.example',
      conversation_id: 'conversation_1',
      send_after: '2026-07-15T15:20:00.000Z',
    };
    const queued = carrier({ open_bundle: bundle, last_contact_at: now, contacts_24h: 2 });
    const grouped = rules({ groupLaneLoads: true, gapMinutes: 30, paceMinutes: 320 });
    expect(planContact(queued, grouped, now)).toEqual({
      kind: 'join',
      bundle,
      sendAt: at('2026-07-15T15:20:00Z'),
    });
    // Without grouping the queued message is not joined: the gap holds.
    expect(planContact(queued, rules({ gapMinutes: 30 }), now)).toMatchObject({ kind: 'gap' });
    // Unreachable comes first: a carrier with no address joins nothing.
    const none = carrier({ open_bundle: bundle, email: null, phone: null });
    expect(planContact(none, grouped, now)).toMatchObject({ kind: 'unreachable' });
  });
});
