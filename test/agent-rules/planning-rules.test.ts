import { describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_SETTINGS } from '../../src/modules/agent/agent-settings.js';
import type { OpenBundle } from '../../src/modules/agent/contact-plan.js';
import {
  contactRulesOf,
  isUrgent,
  lastChanceOf,
  nextPlanning,
  paceMinutesOf,
  plannedContact,
  URGENT_PICKUP_HOURS,
} from '../../src/modules/agent/planning-rules.js';
import type { PickedCandidate } from '../../src/modules/agent/wave-pick.js';

// The planner's rules as pure functions: every instant is given, every outcome exact.

const HOUR = 3_600_000;
const MINUTE = 60_000;
const now = new Date('2026-07-15T15:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const pickupIn = (ms: number | null) => ({ pickup_date: ms === null ? null : later(ms) });

describe('isUrgent: a pickup within URGENT_PICKUP_HOURS', () => {
  it('is twelve hours', () => {
    expect(URGENT_PICKUP_HOURS).toBe(12);
  });

  it('is urgent a millisecond inside twelve hours, not at twelve hours exactly', () => {
    expect(isUrgent(pickupIn(12 * HOUR - 1), now)).toBe(true);
    expect(isUrgent(pickupIn(12 * HOUR), now)).toBe(false);
    expect(isUrgent(pickupIn(2 * 24 * HOUR), now)).toBe(false);
  });

  it('is urgent once the pickup is due or past, and never without a pickup date', () => {
    expect(isUrgent(pickupIn(0), now)).toBe(true);
    expect(isUrgent(pickupIn(-HOUR), now)).toBe(true);
    expect(isUrgent(pickupIn(null), now)).toBe(false);
  });
});

describe('lastChanceOf: for a load picked up soon and not yet', () => {
  it('is planned next after the wave wait, before its pickup', () => {
    expect(lastChanceOf(pickupIn(3 * HOUR), now, 30 * MINUTE)).toEqual({
      after: later(30 * MINUTE),
      pickup: later(3 * HOUR),
    });
    // A millisecond before the pickup still counts.
    expect(lastChanceOf(pickupIn(1), now, 30 * MINUTE)).toEqual({
      after: later(30 * MINUTE),
      pickup: later(1),
    });
  });

  it('is none at or after the pickup, for a load not urgent, or without a pickup date', () => {
    expect(lastChanceOf(pickupIn(0), now, 30 * MINUTE)).toBeUndefined();
    expect(lastChanceOf(pickupIn(-MINUTE), now, 30 * MINUTE)).toBeUndefined();
    expect(lastChanceOf(pickupIn(12 * HOUR), now, 30 * MINUTE)).toBeUndefined();
    expect(lastChanceOf(pickupIn(null), now, 30 * MINUTE)).toBeUndefined();
  });
});

describe('paceMinutesOf: a carrier’s hours shared among its daily contacts', () => {
  const pace = (over: Partial<typeof DEFAULT_AGENT_SETTINGS>) =>
    paceMinutesOf({ ...DEFAULT_AGENT_SETTINGS, ...over });

  it('the defaults: 13 waking hours (quiet 20:00 to 07:00, 11 hours) over 3 contacts a day', () => {
    expect(pace({})).toBe(260);
  });

  it('quiet hours crossing midnight and within a day count the same way', () => {
    // 22:00 to 06:00: 16 hours awake, 320 minutes for 3.
    expect(pace({ quiet_hours_start: 22, quiet_hours_end: 6 })).toBe(320);
    // 06:00 to 22:00 (quiet all day long): 8 hours awake, 160 minutes for 3.
    expect(pace({ quiet_hours_start: 6, quiet_hours_end: 22 })).toBe(160);
    // No quiet hours: the whole day; rounded down (1440 / 7 = 205.7).
    expect(pace({ quiet_hours_start: 9, quiet_hours_end: 9 })).toBe(480);
    expect(pace({ quiet_hours_start: 0, quiet_hours_end: 0, daily_cap_per_carrier: 7 })).toBe(205);
  });

  it('is none without lane grouping or with a cap of one', () => {
    expect(pace({ group_lane_loads: false })).toBe(0);
    expect(pace({ daily_cap_per_carrier: 1 })).toBe(0);
    expect(pace({ daily_cap_per_carrier: 2 })).toBe(390);
  });
});

describe('contactRulesOf: the settings as contact rules for one load', () => {
  const settings = { ...DEFAULT_AGENT_SETTINGS, channel_order: ['email' as const, 'call' as const] };

  it('carries the settings over and paces a load that is not urgent', () => {
    expect(contactRulesOf(settings, { origin_state: 'CA', pickup_date: later(24 * HOUR) }, now)).toEqual({
      channelOrder: ['email', 'call'],
      quietStart: 20,
      quietEnd: 7,
      gapMinutes: 30,
      paceMinutes: 260,
      groupLaneLoads: true,
      fallbackZone: 'America/Los_Angeles',
    });
  });

  it('does not pace an urgent load: the pace drops to none at the urgent boundary', () => {
    const at12h = contactRulesOf(settings, { origin_state: 'IL', pickup_date: later(12 * HOUR) }, now);
    const inside = contactRulesOf(settings, { origin_state: 'IL', pickup_date: later(12 * HOUR - 1) }, now);
    expect(at12h.paceMinutes).toBe(260);
    expect(inside.paceMinutes).toBe(0);
    expect(inside.gapMinutes).toBe(30);
  });

  it('falls back to the default zone (Chicago) for an unknown or missing origin state', () => {
    for (const origin_state of [null, 'ZZ']) {
      expect(contactRulesOf(settings, { origin_state, pickup_date: null }, now).fallbackZone).toBe(
        'America/Chicago',
      );
    }
  });
});

describe('plannedContact: the outreach a picked carrier gets', () => {
  const load = {
    id: 'load_1',
    organization_id: 'org_1',
    load_number: 'L-100',
    equipment_type: 'VAN',
    origin: 'Chicago, IL',
    destination: 'Dallas, TX',
    pickup_date: later(24 * HOUR),
    posted_rate: 2000,
    max_buy_rate: 2400,
    distance: 925,
    origin_state: 'IL',
  };
  const candidate = {
    carrier_id: 'carrier_1',
    name: 'Carrier',
    tier: 1,
    on_time_pct: null,
    source: 'lane_preference' as const,
    home_state: 'IL',
    phone: '+13125550100',
    email: 'dispatch@carrier.example',
    preferred_channel: null,
    last_contact_at: null,
    open_bundle: null,
  };
  const base = {
    organization_id: 'org_1',
    carrier_id: 'carrier_1',
    load_id: 'load_1',
    load_number: 'L-100',
    direction: 'outbound',
    status: 'pending',
    is_automated: true,
  };

  it('a contact of its own: a new conversation for a message, none for a call, sent at its time', () => {
    const sendAt = later(16 * HOUR);
    const email: PickedCandidate = {
      ...candidate,
      plan: { kind: 'contact', channel: 'email', address: 'dispatch@carrier.example', sendAt },
    };
    const { row, candidate: picked } = plannedContact(email, load);
    expect(picked).toBe(email);
    expect(row).toEqual({
      ...base,
      id: expect.stringMatching(/^otr_/),
      modality: 'email',
      address: 'dispatch@carrier.example',
      conversation_id: expect.stringMatching(/^conv_/),
      send_after: sendAt,
    });
    const call: PickedCandidate = {
      ...candidate,
      plan: { kind: 'contact', channel: 'call', address: '+13125550100', sendAt: now },
    };
    expect(plannedContact(call, load).row).toMatchObject({
      modality: 'call',
      address: '+13125550100',
      conversation_id: null,
      send_after: now,
    });
  });

  it('a join: the queued message’s channel, address, conversation and bundle, at its time', () => {
    const bundle: OpenBundle = {
      bundle_id: 'bundle_1',
      modality: 'whatsapp',
      address: '+13125550100',
      conversation_id: 'conversation_9',
      send_after: later(20 * MINUTE),
    };
    const join: PickedCandidate = {
      ...candidate,
      plan: { kind: 'join', bundle, sendAt: later(20 * MINUTE) },
    };
    expect(plannedContact(join, load).row).toEqual({
      ...base,
      id: expect.stringMatching(/^otr_/),
      modality: 'whatsapp',
      address: '+13125550100',
      conversation_id: 'conversation_9',
      bundle_id: 'bundle_1',
      send_after: later(20 * MINUTE),
    });
  });
});

describe('nextPlanning: when the load is planned next', () => {
  const wait = 30 * MINUTE;

  it('a wave sent now (or before): after the wave wait', () => {
    expect(nextPlanning(now, wait, now, null, null)).toEqual(later(wait));
    expect(nextPlanning(now, wait, later(-MINUTE), later(HOUR), later(10 * MINUTE))).toEqual(later(wait));
  });

  it('nobody at all: after the wave wait', () => {
    expect(nextPlanning(now, wait, null, null, null)).toEqual(later(wait));
  });

  it('contacts queued for later: the wave wait after the first goes out', () => {
    expect(nextPlanning(now, wait, later(8 * HOUR), null, null)).toEqual(later(8 * HOUR + wait));
    // The earlier of this wave's first send and the load's queued contacts counts.
    expect(nextPlanning(now, wait, later(8 * HOUR), later(2 * HOUR), null)).toEqual(later(2 * HOUR + wait));
    // A queued contact already due is not waited for.
    expect(nextPlanning(now, wait, later(8 * HOUR), later(-MINUTE), null)).toEqual(later(8 * HOUR + wait));
  });

  it('a carrier that opens before the queued contacts: planned when it opens', () => {
    expect(nextPlanning(now, wait, later(8 * HOUR), null, later(3 * HOUR))).toEqual(later(3 * HOUR));
    // Opening after the first queued send: the queue decides.
    expect(nextPlanning(now, wait, later(2 * HOUR), null, later(3 * HOUR))).toEqual(later(2 * HOUR + wait));
  });

  it('nothing queued, a carrier opens later: planned then, at least a minute ahead', () => {
    expect(nextPlanning(now, wait, null, null, later(4 * HOUR))).toEqual(later(4 * HOUR));
    expect(nextPlanning(now, wait, null, null, now)).toEqual(later(MINUTE));
    expect(nextPlanning(now, wait, null, null, later(-HOUR))).toEqual(later(MINUTE));
  });

  it('a carrier under its daily cap again sooner: planned then, at least a minute ahead', () => {
    expect(nextPlanning(now, wait, now, null, null, later(10 * MINUTE))).toEqual(later(10 * MINUTE));
    expect(nextPlanning(now, wait, now, null, null, later(2 * HOUR))).toEqual(later(wait));
    expect(nextPlanning(now, wait, null, null, null, now)).toEqual(later(MINUTE));
    expect(nextPlanning(now, wait, later(8 * HOUR), null, later(3 * HOUR), later(HOUR))).toEqual(later(HOUR));
  });
});
