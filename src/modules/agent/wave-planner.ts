import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import { lanePreferenceStamps } from '../carriers/index.js';
import { lanesOf } from '../loads/index.js';
import { acceptablePendingOffer } from '../offers/index.js';
import {
  cancelAutomatedOutreaches,
  emitOutreachEvents,
  insertOutreaches,
  outreachEventData,
} from '../outreaches/index.js';
import { unworkableQueued } from '../read-side/index.js';
import {
  type ActivityEntry,
  type AgentLoad,
  agentLoadOf,
  enrolWorkableLoads,
  leaseDueLoads,
  recordActivity,
  recordDecision,
} from './agent-repository.js';
import { type AgentSettings, contactWindowOf, readAgentSettings } from './agent-settings.js';
import {
  ExpiringSet,
  type LoadLane,
  laneKey,
  type RankedCandidate,
  rankCandidates,
  type SelectionRules,
  type Skipped,
} from './carrier-selection.js';
import { planContact } from './contact-plan.js';
import { withLaneLoads } from './lane-sweep.js';
import {
  contactRulesOf,
  isUrgent,
  lastChanceOf,
  loadPlanningFacts,
  lockedContactStates,
  nextPlanning,
  type PlanningFacts,
  type Queued,
} from './planning-rules.js';
import { chosenBecause, offeredWith, skipEntries } from './planning-timeline.js';
import { type Pick, type PickedCandidate, pickWave, selectWave } from './wave-pick.js';

/** A lane's ranked candidates, and the carriers a pick found refused (guard or cap) meanwhile. */
export type LaneRanking = { ranked: RankedCandidate[]; refused: ExpiringSet };

type Lane = LoadLane & { organization_id: string };

type Leased = { load_id: string; organization_id: string };

/**
 * The agent's planning: which loads it works, and for each due load the next wave of carriers to
 * contact (queued outreaches, sent later by the dispatcher). Every decision is logged with the
 * load and carrier ids and kept on the load's planning state.
 */
export class WavePlanner {
  private readonly rankings = new Map<
    string,
    { ranking: Promise<LaneRanking>; refused: ExpiringSet; until: number; stamp: string }
  >();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly batchSize: number,
    private readonly rankingTtlMs: number,
    private readonly clock: Clock,
    /** Lanes planned at once (AGENT_PLANNING_LANES: about the database's cores). */
    private readonly lanesAtOnce = 2,
  ) {}

  /** Withdraws queued automated outreaches whose load is no longer worked; returns how many. */
  async cancelUnworkable(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const stale = await unworkableQueued(tx);
      if (stale.length === 0) return 0;
      const moved = await cancelAutomatedOutreaches(
        tx,
        { ids: stale },
        'cancelled: the load is no longer worked by the agent',
      );
      for (const o of moved) {
        this.log.info(
          { loadId: o.load_id, carrierId: o.carrier_id, outreachId: o.id },
          'agent: contact withdrawn',
        );
      }
      return moved.length;
    });
  }

  /**
   * Plans the next wave of every due load (at most `batchSize` per round), of one organization
   * when one is named; returns how many.
   */
  async planDue(now: Date, organizationId?: string): Promise<number> {
    await enrolWorkableLoads(this.db, now, organizationId);
    const leased = await leaseDueLoads(this.db, now, this.batchSize, organizationId);
    const settings = new Map<string, AgentSettings>();
    const stamps = await lanePreferenceStamps(this.db, [...new Set(leased.map((r) => r.organization_id))]);
    for (const { organization_id } of leased) {
      if (!settings.has(organization_id))
        settings.set(organization_id, await readAgentSettings(this.db, organization_id));
    }
    // Loads of one lane share their ranked candidates within the round: ranked once, picked per load.
    const laneOf = new Map(
      (
        await lanesOf(
          this.db,
          leased.map((r) => r.load_id),
        )
      ).map((l) => [l.id, l]),
    );
    // `lanesAtOnce` lanes at a time (planning is the database's work), a lane's loads one after
    // the other: loads of one lane want the same carriers, and would only wait on each other's
    // carrier locks.
    const byLane = new Map<string, Leased[]>();
    for (const row of leased) {
      const lane = laneOf.get(row.load_id);
      const key = lane ? `${lane.organization_id}|${laneKey(lane)}` : row.load_id;
      byLane.set(key, [...(byLane.get(key) ?? []), row]);
    }
    const groups = [...byLane.values()];
    const worker = async () => {
      for (let group = groups.shift(); group; group = groups.shift()) {
        for (const next of group) {
          const lane = laneOf.get(next.load_id);
          try {
            await this.planLoad(
              next.organization_id,
              next.load_id,
              defined(settings.get(next.organization_id), 'settings.get(next.organization_id)'),
              now,
              lane ? () => this.ranking(lane, now, stamps.get(lane.organization_id) ?? '') : undefined,
            );
          } catch (err) {
            this.log.error({ err, loadId: next.load_id }, 'agent: planning failed');
          }
        }
      }
    };
    await Promise.all(Array.from({ length: this.lanesAtOnce }, () => worker()));
    return leased.length;
  }

  /**
   * A lane's ranked candidates, shared by every load on the lane for `rankingTtlMs`: ranking reads
   * every candidate of the lane, picking a wave only a few. The window is checked fresh on every
   * pick, the guard and the cap too except for carriers a pick found refused in the last
   * `rankingTtlMs` (each remembered that long, across renewals of the ranking, so a busy lane's
   * capped carriers are not walked past again at every renewal). A carrier that joins a lane, or is
   * cleared (stop contact lifted, cap freed), is seen within `rankingTtlMs`. A change of the
   * organization's lane preferences (`stamp`: a carrier joining or leaving a lane, a lane tier)
   * renews the ranking at once: a carrier added to a lane is in the next wave planned after it.
   */
  private ranking(lane: Lane, now: Date, stamp: string): Promise<LaneRanking> {
    const key = `${lane.organization_id}|${laneKey(lane)}`;
    const cached = this.rankings.get(key);
    if (cached && cached.until > now.getTime() && cached.stamp === stamp) return cached.ranking;
    if (this.rankings.size > 10_000) this.rankings.clear();
    // Refusals outlive a ranking: rediscovering every capped carrier at the top of a busy lane
    // would cost a long walk each time the ranking is renewed.
    const refused = cached?.refused ?? new ExpiringSet(this.rankingTtlMs, () => this.clock.ms());
    const ranking = rankCandidates(this.db, lane.organization_id, lane).then((ranked) => ({
      ranked,
      refused,
    }));
    this.rankings.set(key, { ranking, refused, until: now.getTime() + this.rankingTtlMs, stamp });
    ranking.catch(() => this.rankings.delete(key));
    return ranking;
  }

  /**
   * Plans one load's next wave in one transaction; returns the outreaches queued. The planning's
   * timeline (the wave, each carrier chosen and why, each carrier skipped and why) is written in
   * the same transaction.
   */
  async planLoad(
    organizationId: string,
    loadId: string,
    settings: AgentSettings,
    now: Date,
    ranking?: () => Promise<LaneRanking>,
  ) {
    const waitMs = settings.wave_wait_minutes * 60_000;
    const later = new Date(now.getTime() + waitMs);
    return this.db.transaction(async (tx) => {
      const load = await agentLoadOf(tx, organizationId, loadId);
      if (!load) return [];
      const entry = (e: Omit<ActivityEntry, 'organization_id' | 'load_id'>): ActivityEntry => ({
        organization_id: organizationId,
        load_id: loadId,
        ...e,
      });
      const acceptable = await acceptablePendingOffer(tx, loadId, load.posted_rate);
      if (acceptable) {
        const text = `holding: offer ${acceptable.id} (${acceptable.amount}) is pending for a rep`;
        this.log.info({ loadId, offerId: acceptable.id }, 'agent: holding, an acceptable offer is pending');
        await recordDecision(tx, loadId, { text, outcome: 'holding_for_review', nextAt: later });
        await recordActivity(tx, [entry({ kind: 'planning', reason: 'holding_for_review' })]);
        return [];
      }
      const skipped: Skipped[] = [];
      const facts = await loadPlanningFacts(tx, loadId);
      const picked = await this.pick(tx, load, settings, skipped, now, facts, ranking);
      const capFreesAt = isUrgent(load, now) ? picked.capFreesAt : null;
      const { planned, swept } = await withLaneLoads(tx, load, settings, picked);
      const inserted = await this.queue(tx, load, [...planned, ...swept], now);
      const queued = inserted.filter((o) => o.load_id === loadId);
      if (queued.length === 0) {
        const outcome =
          picked.opensAt || facts.queuedFrom
            ? 'deferred'
            : picked.candidates === 0
              ? 'no_eligible_carriers'
              : 'exhausted';
        const nextAt = nextPlanning(now, waitMs, null, facts.queuedFrom, picked.opensAt, capFreesAt);
        const text =
          outcome === 'deferred'
            ? `no carrier reachable now (quiet hours, contact gap or queued contacts); next planning at ${nextAt.toISOString()}`
            : outcome === 'no_eligible_carriers'
              ? 'no carrier on this lane to contact'
              : 'every carrier on this lane was contacted or refused';
        this.log.info({ loadId }, `agent: ${text}`);
        const waves = await recordDecision(tx, loadId, { text, outcome, nextAt });
        // The skips belong to the wave that could not be made.
        await recordActivity(tx, [
          ...skipEntries(skipped, waves + 1).map(entry),
          entry({ kind: 'planning', reason: outcome }),
        ]);
        return [];
      }
      const firstSend = Math.min(...queued.map((o) => defined(o.send_after, 'o.send_after').getTime()));
      const tier = defined(picked.wave[0] ?? picked.later[0], '(picked.wave[0] ?? picked.later[0])').tier;
      const waveNumber = await recordDecision(tx, loadId, {
        text: `wave of ${queued.length} (tier ${tier ?? 'untiered'}) queued`,
        outcome: 'wave_queued',
        nextAt: nextPlanning(
          now,
          waitMs,
          firstSend <= now.getTime() ? now : new Date(firstSend),
          facts.queuedFrom,
          picked.opensAt,
          capFreesAt,
        ),
        wave: { tier: tier ?? null },
      });
      await recordActivity(tx, [
        entry({ kind: 'wave', wave: waveNumber, tier, reason: `${queued.length} carriers` }),
        ...planned.map(({ row, candidate }) =>
          entry({
            kind: 'carrier_chosen',
            wave: waveNumber,
            carrier_id: candidate.carrier_id,
            channel: row.modality,
            tier: candidate.tier,
            outreach_id: row.id,
            reason: chosenBecause(
              candidate,
              defined(row.send_after, 'row.send_after') > now
                ? defined(row.send_after, 'row.send_after')
                : null,
            ),
          }),
        ),
        ...skipEntries(skipped, waveNumber).map(entry),
        ...offeredWith(swept, load.load_number),
      ]);
      return queued;
    });
  }

  /**
   * The load's next wave: from the lane's shared ranking, else ranked for this load alone; then,
   * under each picked carrier's lock, its daily cap and contact gap counted again (another load
   * may have contacted it since the pick read them).
   */
  private async pick(
    tx: DbOrTx,
    load: AgentLoad,
    settings: AgentSettings,
    skipped: Skipped[],
    now: Date,
    facts: PlanningFacts,
    ranking?: () => Promise<LaneRanking>,
  ): Promise<Pick & { candidates: number }> {
    const organizationId = load.organization_id;
    const contact = contactRulesOf(settings, load, now);
    const rules: SelectionRules = {
      waveSize: settings.wave_size,
      contactWindow: contactWindowOf(settings),
      dailyCapPerCarrier: settings.daily_cap_per_carrier,
      contact,
      // One waiting wave at a time: while contacts wait for quiet hours to end, only carriers in
      // their hours are added.
      allowLater: !(facts.queuedFrom && facts.queuedFrom > now),
      exclude: facts.unreachable,
      // A load picked up soon has few waves left: each takes the next carriers whatever their tier.
      acrossTiers: isUrgent(load, now),
      // A carrier this wave is the last chance to reach before the pickup is not left for a next one.
      lastChance: lastChanceOf(load, now, settings.wave_wait_minutes * 60_000),
    };
    const lane = ranking ? await ranking() : null;
    const picked = lane
      ? {
          ...(await pickWave(tx, organizationId, load.id, lane.ranked, rules, lane.refused, skipped, now)),
          candidates: lane.ranked.length,
        }
      : await selectWave(tx, organizationId, load.id, rules, skipped, now);
    const all = [...picked.wave, ...picked.later];
    if (all.length === 0) return picked;
    const fresh = await lockedContactStates(
      tx,
      organizationId,
      load.id,
      all.map((c) => c.carrier_id),
      contactWindowOf(settings),
    );
    const recheck = (list: PickedCandidate[]) =>
      list.flatMap((c): PickedCandidate[] => {
        const state = fresh.get(c.carrier_id);
        if (state?.offered) {
          skipped.push({ carrier_id: c.carrier_id, tier: c.tier, reason: 'recently_contacted' });
          return [];
        }
        const plan = planContact(
          {
            ...c,
            last_contact_at: state?.last_at ?? null,
            open_bundle: state?.open_bundle ?? null,
            contacts_24h: state?.n ?? 0,
          },
          contact,
          now,
        );
        // Joining a queued message adds no contact: only a contact of its own counts for the cap.
        if (plan.kind === 'contact' && (state?.n ?? 0) >= settings.daily_cap_per_carrier) {
          skipped.push({ carrier_id: c.carrier_id, tier: c.tier, reason: 'daily_cap' });
          return [];
        }
        if (plan.kind === 'gap' || plan.kind === 'unreachable') {
          const reason = plan.kind === 'gap' && plan.paced ? 'carrier_pace' : 'carrier_gap';
          skipped.push({ carrier_id: c.carrier_id, tier: c.tier, reason });
          return [];
        }
        return [{ ...c, plan }];
      });
    return { ...picked, wave: recheck(picked.wave), later: recheck(picked.later) };
  }

  /** Inserts the planned outreaches and emits outreach.created for each. */
  private async queue(tx: DbOrTx, load: AgentLoad, planned: Queued[], now: Date) {
    const queued = planned.length
      ? await insertOutreaches(
          tx,
          planned.map((p) => p.row),
        )
      : [];
    for (const { row, candidate } of planned) {
      this.log.info(
        {
          loadId: row.load_id,
          carrierId: candidate.carrier_id,
          outreachId: row.id,
          channel: row.modality,
          tier: candidate.tier,
          source: candidate.source,
          sendAfter: defined(row.send_after, 'row.send_after').toISOString(),
        },
        defined(row.send_after, 'row.send_after') > now
          ? 'agent: contact queued until quiet hours end'
          : 'agent: contact queued',
      );
    }
    await emitOutreachEvents(
      tx,
      load.organization_id,
      queued.map((o) => ({ type: 'outreach.created', data: outreachEventData(o) })),
    );
    return queued;
  }
}
