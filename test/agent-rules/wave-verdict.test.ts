import { describe, expect, it } from 'vitest';
import { type Checked, RefusalMemo, type Skipped } from '../../src/modules/agent/carrier-selection.js';
import type { ContactRules, OpenBundle } from '../../src/modules/agent/contact-plan.js';
import { type Pick, verdict } from '../../src/modules/agent/wave-pick.js';

// How a checked carrier stands for a load, as a pure function of its checks, its contacts and the
// contact rules at a given instant: the planner's gap, pace and daily-cap rules.

const MINUTE = 60_000;
const now = new Date('2026-07-15T15:00:00Z'); // 10:00 in Chicago.
const ago = (minutes: number) => new Date(now.getTime() - minutes * MINUTE);
const later = (minutes: number) => new Date(now.getTime() + minutes * MINUTE);

/** No quiet hours, a 30-minute gap, a 320-minute pace, lane loads grouped. */
const rules: ContactRules = {
  channelOrder: ['email', 'call'],
  quietStart: 0,
  quietEnd: 0,
  gapMinutes: 30,
  paceMinutes: 320,
  groupLaneLoads: true,
  fallbackZone: 'America/Chicago',
};

const checked = (over: Partial<Checked> = {}): Checked => ({
  carrier_id: 'carrier_1',
  name: 'Carrier',
  tier: 1,
  on_time_pct: null,
  source: 'lane_preference',
  home_state: 'IL',
  phone: '+13125550100',
  email: 'dispatch@carrier.example',
  preferred_channel: null,
  last_contact_at: null,
  contacts_24h: 0,
  open_bundle: null,
  refusal: null,
  cap_ok: true,
  load_ok: true,
  cap_frees_at: null,
  ...over,
});

/** Runs the verdict on a fresh pick; returns the plan and what it recorded. */
function judge(c: Checked, contact = rules) {
  const refused = new RefusalMemo();
  const skipped: Skipped[] = [];
  const pick: Pick = { wave: [], later: [], opensAt: null, unreachable: [], capFreesAt: null };
  const plan = verdict(c, contact, now, refused, skipped, pick);
  return { plan, skipped, pick, refused: refused.reasonOf(c.carrier_id) };
}

describe('verdict: a checked carrier for one load', () => {
  it('qualifies a carrier never contacted: contacted now on its first channel', () => {
    expect(judge(checked())).toEqual({
      plan: { kind: 'contact', channel: 'email', address: 'dispatch@carrier.example', sendAt: now },
      skipped: [],
      pick: { wave: [], later: [], opensAt: null, unreachable: [], capFreesAt: null },
      refused: null,
    });
  });

  it('holds a carrier contacted today to the pace: skipped as carrier_pace until it opens', () => {
    const r = judge(checked({ last_contact_at: ago(120), contacts_24h: 1 }));
    expect(r.plan).toBeNull();
    expect(r.skipped).toEqual([{ carrier_id: 'carrier_1', tier: 1, reason: 'carrier_pace' }]);
    expect(r.pick.opensAt).toEqual(later(200));
    // The pace holds for this load only: not a refusal on the lane.
    expect(r.refused).toBeNull();
  });

  it('holds a carrier inside the least gap as carrier_gap, and frees it once the pace has passed', () => {
    const inGap = judge(checked({ last_contact_at: ago(10), contacts_24h: 1 }));
    expect(inGap.skipped).toEqual([{ carrier_id: 'carrier_1', tier: 1, reason: 'carrier_gap' }]);
    expect(inGap.pick.opensAt).toEqual(later(310));
    const unpaced = { ...rules, paceMinutes: 0 };
    expect(judge(checked({ last_contact_at: ago(10), contacts_24h: 1 }), unpaced).pick.opensAt).toEqual(
      later(20),
    );
    expect(judge(checked({ last_contact_at: ago(320), contacts_24h: 1 })).plan).toMatchObject({
      kind: 'contact',
      sendAt: now,
    });
  });

  it('skips a carrier at its daily cap, refused on the lane until its cap frees', () => {
    const frees = later(45).toISOString();
    const r = judge(checked({ cap_ok: false, cap_frees_at: frees }));
    expect(r.plan).toBeNull();
    expect(r.skipped).toEqual([{ carrier_id: 'carrier_1', tier: 1, reason: 'daily_cap' }]);
    expect(r.pick.capFreesAt).toEqual(later(45));
    expect(r.refused).toBe('daily_cap');
  });

  it('lets a carrier at its cap join its queued message: joining is no new contact', () => {
    const bundle: OpenBundle = {
      bundle_id: 'bundle_1',
      modality: 'email',
      address: 'dispatch@carrier.example',
      conversation_id: 'conv_1',
      send_after: later(5),
    };
    const r = judge(
      checked({ cap_ok: false, open_bundle: bundle, last_contact_at: later(5), contacts_24h: 3 }),
    );
    expect(r.plan).toEqual({ kind: 'join', bundle, sendAt: later(5) });
    expect(r.skipped).toEqual([]);
    // Without grouping there is nothing to join: the cap holds, for this load (a message is queued).
    const single = judge(checked({ cap_ok: false, open_bundle: bundle }), {
      ...rules,
      groupLaneLoads: false,
    });
    expect(single.skipped).toEqual([{ carrier_id: 'carrier_1', tier: 1, reason: 'daily_cap' }]);
    expect(single.refused).toBeNull();
  });

  it('skips a carrier the guard refuses with the refusal’s reason, refused on the lane', () => {
    const r = judge(checked({ refusal: 'stop_contact_requested: asked on a call' }));
    expect(r.plan).toBeNull();
    expect(r.skipped).toEqual([{ carrier_id: 'carrier_1', tier: 1, reason: 'stop_contact_requested' }]);
    expect(r.refused).toBe('stop_contact_requested');
  });

  it('skips a carrier contacted about this load within the window, for this load only', () => {
    const r = judge(checked({ load_ok: false }));
    expect(r.skipped).toEqual([{ carrier_id: 'carrier_1', tier: 1, reason: 'recently_contacted' }]);
    expect(r.refused).toBeNull();
  });

  it('records a carrier with no address on any channel as unreachable, with the channels', () => {
    const r = judge(checked({ email: null, phone: null }));
    expect(r.plan).toBeNull();
    expect(r.pick.unreachable).toEqual(['carrier_1']);
    expect(r.skipped).toEqual([
      { carrier_id: 'carrier_1', tier: 1, reason: 'unreachable: no address for email, call' },
    ]);
  });
});
