import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { systemScope } from '../../domain/scope.js';
import type {
  EmailDeliveryEvent,
  EmailSender,
  InboundEmail,
} from '../../integrations/email/email-channel.js';
import type { ChatModel } from '../../integrations/llm/chat-model.js';
import type { InboundWhatsApp, WhatsAppSender } from '../../integrations/whatsapp/whatsapp-channel.js';
import type { CallsService } from '../calls/calls-service.js';
import { carriers } from '../carriers/carriers-tables.js';
import { loads } from '../loads/loads-tables.js';
import { offers } from '../offers/offers-tables.js';
import { refusalSql } from '../outreaches/contact-guard.js';
import {
  cancelAutomatedOutreaches,
  type OutreachRow,
  recordReply,
} from '../outreaches/outreaches-repository.js';
import { outreaches } from '../outreaches/outreaches-tables.js';
import { emitEvent, emitEvents, outreachEventData } from '../webhooks/events.js';
import { type AgentSettings, readAgentSettings } from './agent-settings.js';
import { agentLoadStates, agentMessages } from './agent-tables.js';
import { DEFAULT_TIME_ZONE, nextContactTime, timeZoneOfState } from './cadence.js';
import {
  type Candidate,
  type LoadLane,
  laneKey,
  pickWave,
  type RankedCandidate,
  type RefusedCarriers,
  rankCandidates,
  selectWave,
} from './carrier-selection.js';
import { counterOffered, type OfferChannel, receiveOffer, stopContactRequested } from './channel-rules.js';
import { type LoadSummary, type ReplyIntent, replyText } from './negotiation.js';
import { understandReply } from './reply-understanding.js';

/**
 * A load the agent may work, as SQL over a `loads` row aliased `l`: handed to the agent, a
 * workable status, no accepted offer, and the organization has not switched the agent off.
 */
const workableSql = sql`(l.assigned_to_ai_agent
  AND l.load_status IN ('Created', 'Unassigned', 'Quotes Received')
  AND NOT EXISTS (SELECT 1 FROM offers a WHERE a.load_id = l.id AND a.status = 'accepted')
  AND NOT EXISTS (SELECT 1 FROM agent_settings s WHERE s.organization_id = l.organization_id AND NOT s.enabled))`;

export interface AgentChannels {
  email: EmailSender;
  whatsapp: WhatsAppSender;
  chatModel: ChatModel | null;
  emailFrom: string;
  replyDomain: string;
  whatsappTemplate: { name: string; language: string };
}

/** A lane's ranked candidates, and the carriers a pick found refused (guard or cap) meanwhile. */
type LaneRanking = { ranked: RankedCandidate[]; refused: ExpiringSet };

/**
 * Carriers a pick found refused on a lane. A guard refusal is remembered for `ttlMs`; a carrier at
 * its daily cap stays there until its contacts age out of the 24 hours, so that is remembered
 * twenty times longer (withdrawn contacts can free it earlier; it is then seen a little late).
 */
class ExpiringSet implements RefusedCarriers {
  private readonly until = new Map<string, number>();
  constructor(private readonly ttlMs: number) {}
  has(id: string) {
    const t = this.until.get(id);
    if (t === undefined) return false;
    if (t > Date.now()) return true;
    this.until.delete(id);
    return false;
  }
  add(id: string, why: 'guard' | 'cap') {
    this.until.set(id, Date.now() + (why === 'cap' ? 20 : 1) * this.ttlMs);
  }
}

type LoadRow = LoadSummary & {
  id: string;
  organization_id: string;
  max_buy_rate: number | null;
  distance: number | null;
  origin_state: string | null;
};

/** What became of a bounce, spam complaint or subscription change. */
export interface DeliveryResult {
  status: 'bounce_recorded' | 'stop_contact_recorded' | 'ignored';
  record_type: string;
  outreach_id: string | null;
  carrier_id: string | null;
  reason: string | null;
}

export interface InboundResult {
  status: 'ignored' | 'recorded' | 'replied' | 'restriction_notice';
  outreach_id: string | null;
  offer_id: string | null;
  reason: string | null;
}

/**
 * The load-working agent. Each round: withdraw queued contacts of loads that left the workable
 * set, plan the next wave of loads that are due, send the contacts whose time has come. Replies
 * arrive from the channels' webhooks (or the simulations) and go through the reply extractor and
 * the negotiation rules. Every decision is logged with the load and carrier ids.
 */
export class AgentService {
  private readonly rankings = new Map<
    string,
    { ranking: Promise<LaneRanking>; refused: ExpiringSet; until: number }
  >();

  constructor(
    private readonly db: Db,
    private readonly calls: CallsService,
    private readonly channels: AgentChannels,
    private readonly log: FastifyBaseLogger,
    private readonly batchSize = 50,
    private readonly rankingTtlMs = 30_000,
  ) {}

  /** One round of the worker; returns what it did. */
  async tick(now = new Date()) {
    const cancelled = await this.cancelUnworkable();
    const planned = await this.planDue(now);
    const dispatched = await this.dispatchDue();
    return { cancelled, planned, dispatched };
  }

  // ---------------------------------------------------------------- work selection and waves

  /** Withdraws queued automated outreaches whose load is no longer worked; returns how many. */
  async cancelUnworkable(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const stale = await tx.execute<{ id: string }>(sql`
        SELECT o.id FROM outreaches o JOIN loads l ON l.id = o.load_id
        WHERE o.is_automated AND o.status = 'pending' AND NOT ${workableSql}
        FOR UPDATE OF o SKIP LOCKED`);
      if (stale.rows.length === 0) return 0;
      const moved = await cancelAutomatedOutreaches(
        tx,
        { ids: stale.rows.map((r) => r.id) },
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

  /** Plans the next wave of every due load (at most `batchSize` per round); returns how many. */
  async planDue(now = new Date()): Promise<number> {
    await this.db.execute(sql`
      INSERT INTO agent_load_states (load_id, organization_id, next_wave_at)
      SELECT l.id, l.organization_id, ${now} FROM loads l
      WHERE ${workableSql} AND NOT EXISTS (SELECT 1 FROM agent_load_states s WHERE s.load_id = l.id)
      ON CONFLICT DO NOTHING`);
    const leased = await this.db.execute<{ load_id: string; organization_id: string }>(sql`
      UPDATE agent_load_states SET lease_until = now() + interval '2 minutes'
      WHERE load_id IN (
        SELECT s.load_id FROM agent_load_states s JOIN loads l ON l.id = s.load_id
        WHERE s.next_wave_at <= ${now} AND (s.lease_until IS NULL OR s.lease_until < now()) AND ${workableSql}
        ORDER BY s.next_wave_at LIMIT ${this.batchSize}
        FOR UPDATE OF s SKIP LOCKED)
      RETURNING load_id, organization_id`);
    const settings = new Map<string, AgentSettings>();
    for (const { organization_id } of leased.rows) {
      if (!settings.has(organization_id))
        settings.set(organization_id, await readAgentSettings(this.db, organization_id));
    }
    // Loads of one lane share their ranked candidates within the round: ranked once, picked per load.
    const lanes = leased.rows.length
      ? await this.db.execute<LoadLane & { organization_id: string }>(sql`
          SELECT id, organization_id, origin_city, origin_state, destination_city, destination_state, equipment_type
          FROM loads WHERE id = ANY(${sql.param(leased.rows.map((r) => r.load_id))}::text[])`)
      : { rows: [] };
    const laneOf = new Map(lanes.rows.map((l) => [l.id, l]));
    const rankingFor = (lane: LoadLane & { organization_id: string }) => () => this.ranking(lane, now);
    // Two lanes at a time (the database has two cores), a lane's loads one after the other: loads
    // of one lane want the same carriers, and would only wait on each other's carrier locks.
    const byLane = new Map<string, typeof leased.rows>();
    for (const row of leased.rows) {
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
              settings.get(next.organization_id)!,
              now,
              lane ? rankingFor(lane) : undefined,
            );
          } catch (err) {
            this.log.error({ err, loadId: next.load_id }, 'agent: planning failed');
          }
        }
      }
    };
    await Promise.all([worker(), worker()]);
    return leased.rows.length;
  }

  /**
   * A lane's ranked candidates, shared by every load on the lane for `rankingTtlMs`: ranking reads
   * every candidate of the lane, picking a wave only a few. The window is checked fresh on every
   * pick, the guard and the cap too except for carriers a pick found refused in the last
   * `rankingTtlMs` (each remembered that long, across renewals of the ranking, so a busy lane's
   * capped carriers are not walked past again at every renewal). A carrier that joins a lane, or is
   * cleared (stop contact lifted, cap freed), is seen within `rankingTtlMs`.
   */
  private ranking(lane: LoadLane & { organization_id: string }, now: Date): Promise<LaneRanking> {
    const key = `${lane.organization_id}|${laneKey(lane)}`;
    const cached = this.rankings.get(key);
    if (cached && cached.until > now.getTime()) return cached.ranking;
    if (this.rankings.size > 10_000) this.rankings.clear();
    // Refusals outlive a ranking: rediscovering every capped carrier at the top of a busy lane
    // would cost a long walk each time the ranking is renewed.
    const refused = cached?.refused ?? new ExpiringSet(this.rankingTtlMs);
    const ranking = rankCandidates(this.db, lane.organization_id, lane).then((ranked) => ({
      ranked,
      refused,
    }));
    this.rankings.set(key, { ranking, refused, until: now.getTime() + this.rankingTtlMs });
    ranking.catch(() => this.rankings.delete(key));
    return ranking;
  }

  /** Plans one load's next wave in one transaction; returns the outreaches queued. */
  async planLoad(
    organizationId: string,
    loadId: string,
    settings: AgentSettings,
    now = new Date(),
    ranking?: () => Promise<LaneRanking>,
  ) {
    const waitMs = settings.wave_wait_minutes * 60_000;
    return this.db.transaction(async (tx) => {
      const decide = async (decision: string, nextAt: Date, tier?: number | null, planned = 0) => {
        await tx
          .update(agentLoadStates)
          .set({
            next_wave_at: nextAt,
            lease_until: null,
            last_decision: decision,
            updated_at: sql`now()`,
            ...(planned
              ? { waves_planned: sql`${agentLoadStates.waves_planned} + 1`, last_wave_tier: tier ?? null }
              : {}),
          })
          .where(eq(agentLoadStates.load_id, loadId));
      };
      const load = await this.loadOf(tx, organizationId, loadId);
      if (!load) return [];
      const [acceptable] = await tx
        .select({ id: offers.id, amount: offers.offer_amount })
        .from(offers)
        .where(
          and(
            eq(offers.load_id, loadId),
            eq(offers.status, 'pending'),
            load.posted_rate === null ? sql`true` : sql`${offers.offer_amount} <= ${load.posted_rate}`,
          ),
        )
        .limit(1);
      if (acceptable) {
        const decision = `holding: offer ${acceptable.id} (${acceptable.amount}) is pending for a rep`;
        this.log.info({ loadId, offerId: acceptable.id }, 'agent: holding, an acceptable offer is pending');
        await decide(decision, new Date(now.getTime() + waitMs));
        return [];
      }
      const rules = {
        waveSize: settings.wave_size,
        recontactWindowHours: settings.recontact_window_hours,
        dailyCapPerCarrier: settings.daily_cap_per_carrier,
      };
      const lane = ranking ? await ranking() : null;
      let wave = lane
        ? await pickWave(tx, organizationId, loadId, lane.ranked, rules, lane.refused)
        : await selectWave(tx, organizationId, loadId, rules);
      if (wave.length) {
        // The daily cap holds across loads planned at once, on any instance: count again under a
        // per-carrier lock that lasts until this transaction ends.
        const ids = wave.map((c) => c.carrier_id).sort();
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('agent-carrier:' || id))
          FROM unnest(${sql.param(ids)}::text[]) AS id ORDER BY id`);
        const counts = await tx.execute<{ carrier_id: string; n: number }>(sql`
          SELECT carrier_id, count(*)::int AS n FROM outreaches
          WHERE organization_id = ${organizationId} AND carrier_id = ANY(${sql.param(ids)}::text[])
            AND is_automated AND cancelled_at IS NULL AND created_at > now() - interval '24 hours'
          GROUP BY carrier_id`);
        const capped = new Set(
          counts.rows.filter((r) => r.n >= settings.daily_cap_per_carrier).map((r) => r.carrier_id),
        );
        wave = wave.filter((c) => !capped.has(c.carrier_id));
      }
      const planned: { row: typeof outreaches.$inferInsert; candidate: Candidate }[] = [];
      for (const candidate of wave) {
        const channel = settings.channel_order.find((ch) =>
          ch === 'email' ? candidate.email : candidate.phone,
        );
        if (!channel) {
          this.log.info(
            { loadId, carrierId: candidate.carrier_id },
            'agent: carrier has no address for any channel',
          );
          continue;
        }
        const zone =
          timeZoneOfState(candidate.home_state) ?? timeZoneOfState(load.origin_state) ?? DEFAULT_TIME_ZONE;
        const sendAfter = nextContactTime(now, zone, settings.quiet_hours_start, settings.quiet_hours_end);
        planned.push({
          candidate,
          row: {
            id: newId('outreach'),
            organization_id: organizationId,
            carrier_id: candidate.carrier_id,
            load_id: loadId,
            load_number: load.load_number,
            modality: channel,
            direction: 'outbound',
            status: 'pending',
            is_automated: true,
            send_after: sendAfter,
            address: channel === 'email' ? candidate.email : candidate.phone,
            conversation_id: channel === 'call' ? null : newId('conversation'),
          },
        });
      }
      const queued = planned.length
        ? await tx
            .insert(outreaches)
            .values(planned.map((p) => p.row))
            .returning()
        : [];
      for (const { row, candidate } of planned) {
        this.log.info(
          {
            loadId,
            carrierId: candidate.carrier_id,
            outreachId: row.id,
            channel: row.modality,
            tier: candidate.tier,
            source: candidate.source,
            sendAfter: row.send_after!.toISOString(),
          },
          row.send_after! > now ? 'agent: contact queued until quiet hours end' : 'agent: contact queued',
        );
      }
      await emitEvents(
        tx,
        organizationId,
        queued.map((o) => ({ type: 'outreach.created', data: outreachEventData(o) })),
      );
      if (queued.length === 0) {
        const decision = 'no eligible carrier for the next wave';
        this.log.info({ loadId }, `agent: ${decision}`);
        await decide(decision, new Date(now.getTime() + waitMs));
        return [];
      }
      const lastSend = Math.max(...queued.map((o) => o.send_after!.getTime()));
      const tier = wave[0]!.tier;
      await decide(
        `wave of ${queued.length} (tier ${tier ?? 'untiered'}) queued`,
        new Date(lastSend + waitMs),
        tier,
        1,
      );
      return queued;
    });
  }

  private async loadOf(db: DbOrTx, organizationId: string, loadId: string): Promise<LoadRow | null> {
    const [row] = await db
      .select({
        id: loads.id,
        organization_id: loads.organization_id,
        load_number: loads.load_number,
        equipment_type: loads.equipment_type,
        origin_city: loads.origin_city,
        origin_state: loads.origin_state,
        destination_city: loads.destination_city,
        destination_state: loads.destination_state,
        pickup_date: loads.pickup_date,
        posted_rate: loads.posted_rate,
        max_buy_rate: loads.max_buy_rate,
        distance: loads.distance,
      })
      .from(loads)
      .where(and(eq(loads.organization_id, organizationId), eq(loads.id, loadId)));
    if (!row) return null;
    const place = (city: string | null, state: string | null) =>
      [city, state].filter(Boolean).join(', ') || 'TBD';
    return {
      ...row,
      origin: place(row.origin_city, row.origin_state),
      destination: place(row.destination_city, row.destination_state),
    };
  }

  // ---------------------------------------------------------------- sending

  /**
   * Sends queued automated contacts whose time has come. Each is claimed (pending to active, or
   * to failed when the guard or the load says no) in one statement with SKIP LOCKED, so two
   * instances never send one twice; the channel is called after the commit. A crash between the
   * two leaves the outreach active without a message: it ends no_response rather than contacting a
   * carrier twice.
   */
  async dispatchDue(): Promise<number> {
    const claimed = await this.db.transaction(async (tx) => {
      const due = await tx.execute<{ id: string; refusal: string | null; workable: boolean }>(sql`
        SELECT o.id, ${refusalSql(sql`o.organization_id`)} AS refusal, ${workableSql} AS workable
        FROM outreaches o
        JOIN carriers c ON c.id = o.carrier_id
        JOIN loads ld ON ld.id = o.load_id
        JOIN loads l ON l.id = o.load_id
        WHERE o.is_automated AND o.status = 'pending' AND o.send_after <= now()
        ORDER BY o.send_after LIMIT ${this.batchSize}
        FOR UPDATE OF o SKIP LOCKED`);
      const refused = due.rows.filter((r) => r.refusal || !r.workable);
      for (const r of refused) {
        const reason = r.refusal
          ? `not contacted: ${r.refusal.split(':')[0]}`
          : 'cancelled: the load is no longer worked';
        await cancelAutomatedOutreaches(tx, { ids: [r.id] }, reason);
      }
      const go = due.rows.filter((r) => !r.refusal && r.workable).map((r) => r.id);
      if (go.length === 0) return [];
      const rows = await tx
        .update(outreaches)
        .set({ status: 'active', sent_at: sql`now()`, updated_at: sql`now()` })
        .where(inArray(outreaches.id, go))
        .returning();
      for (const o of rows) {
        await emitEvent(tx, o.organization_id, 'outreach.status_changed', outreachEventData(o, 'pending'));
      }
      return rows;
    });
    for (const outreach of claimed) await this.sendOrFail(outreach);
    return claimed.length;
  }

  /** Sends the outreach; a channel that refuses ends it failed with the reason. */
  async sendOrFail(outreach: OutreachRow): Promise<void> {
    try {
      await this.send(outreach);
    } catch (err) {
      this.log.warn(
        { err, loadId: outreach.load_id, carrierId: outreach.carrier_id, outreachId: outreach.id },
        'agent: contact failed',
      );
      await this.fail(outreach, err instanceof Error ? err.message : 'the channel refused the contact');
    }
  }

  /** Sends one outreach now on its channel (the agent's queued ones, and POST /outreaches e-mail and WhatsApp). */
  async send(outreach: OutreachRow): Promise<void> {
    const scope = systemScope(outreach.organization_id);
    const load = (await this.loadOf(this.db, outreach.organization_id, outreach.load_id))!;
    const [carrier] = await this.db.select().from(carriers).where(eq(carriers.id, outreach.carrier_id));
    const ids = { loadId: load.id, carrierId: outreach.carrier_id, outreachId: outreach.id };
    if (outreach.modality === 'call') {
      const call = await this.calls.create(
        scope,
        {
          phone_number: outreach.address!,
          load_id: load.id,
          call_type: 'LOAD_BOOKING',
          template_variables: { purpose: 'load_booking', automated: true },
        },
        { carrier_id: outreach.carrier_id, outreach_id: outreach.id },
      );
      this.log.info({ ...ids, callId: call.id }, 'agent: call placed');
      return;
    }
    const text = replyText('first_contact', load, carrier!.name);
    const externalId = await this.deliver(outreach, load, text, null);
    await this.db
      .update(outreaches)
      .set({ external_message_id: externalId, sent_at: sql`now()`, updated_at: sql`now()` })
      .where(eq(outreaches.id, outreach.id));
    await this.record(outreach, 'outbound', 'first_contact', text, externalId);
    this.log.info({ ...ids, channel: outreach.modality }, 'agent: message sent');
  }

  /** Puts one message on the outreach's channel; returns the channel's message id. */
  private async deliver(outreach: OutreachRow, load: LoadRow, text: string, inReplyTo: string | null) {
    if (outreach.modality === 'email') {
      const messageId = `${newId('agentMessage')}@${this.channels.replyDomain}`;
      const sent = await this.channels.email.send({
        messageId,
        from: this.channels.emailFrom,
        to: outreach.address!,
        replyTo: `reply+${outreach.conversation_id}@${this.channels.replyDomain}`,
        subject: `Load ${load.load_number}: ${load.origin} to ${load.destination}`,
        text,
        inReplyTo,
        outreachId: outreach.id,
      });
      return sent.messageId;
    }
    const sent = inReplyTo
      ? await this.channels.whatsapp.sendText(outreach.address!, text, inReplyTo)
      : await this.channels.whatsapp.sendTemplate(outreach.address!, {
          ...this.channels.whatsappTemplate,
          bodyParameters: [text],
        });
    return sent.messageId;
  }

  private async record(
    outreach: OutreachRow,
    direction: 'outbound' | 'inbound',
    intent: string | null,
    body: string,
    externalId: string | null,
  ) {
    await this.db.insert(agentMessages).values({
      id: newId('agentMessage'),
      organization_id: outreach.organization_id,
      outreach_id: outreach.id,
      load_id: outreach.load_id,
      carrier_id: outreach.carrier_id,
      channel: outreach.modality,
      direction,
      intent,
      body: body.slice(0, 20_000),
      external_message_id: externalId,
    });
  }

  private async fail(outreach: OutreachRow, reason: string) {
    await this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(outreaches)
        .set({ status: 'failed', error_reason: reason.slice(0, 500), updated_at: sql`now()` })
        .where(and(eq(outreaches.id, outreach.id), inArray(outreaches.status, ['pending', 'active'])))
        .returning();
      if (row)
        await emitEvent(
          tx,
          row.organization_id,
          'outreach.status_changed',
          outreachEventData(row, outreach.status),
        );
    });
  }

  // ---------------------------------------------------------------- replies

  /** A reply e-mail from the inbound-parse webhook (or the simulation). */
  async onInboundEmail(email: InboundEmail): Promise<InboundResult> {
    const outreach = await this.conversationOf('email', {
      conversationId: email.mailboxHash,
      messageIds: [email.inReplyTo, ...email.references].filter((x): x is string => !!x),
      address: email.from,
    });
    if (!outreach) return ignored('no conversation matches the reply');
    await this.record(outreach, 'inbound', null, email.text, email.messageId);
    const [carrier] = await this.db.select().from(carriers).where(eq(carriers.id, outreach.carrier_id));
    const settings = await readAgentSettings(this.db, outreach.organization_id);
    const ids = { loadId: outreach.load_id, carrierId: outreach.carrier_id, outreachId: outreach.id };
    if (!carrier!.is_active) {
      const status = carrier!.tms_status?.trim().toLowerCase();
      if (
        settings.restriction_notices_enabled &&
        status &&
        settings.restriction_tms_statuses.includes(status)
      ) {
        await this.answer(outreach, 'restriction_notice', null, email.messageId, carrier!.tms_status);
        this.log.info(ids, 'agent: restriction notice sent to an inactive carrier');
        return { status: 'restriction_notice', outreach_id: outreach.id, offer_id: null, reason: null };
      }
      this.log.info(ids, 'agent: reply from an inactive carrier recorded, not answered');
      return recordedOnly(outreach.id);
    }
    return this.understand(outreach, email.text, email.messageId, 'email');
  }

  /**
   * What the e-mail platform reports after a message left: a bounce stamps `delivery_failed_at`;
   * a spam complaint or an unsubscribe is the carrier asking to stop, honoured like a "stop" reply
   * (without an answer: nothing more is sent to that address). Matched to the outreach by the id
   * the platform echoes, else the message id, else the address and the time.
   */
  async onEmailDelivery(e: EmailDeliveryEvent): Promise<DeliveryResult> {
    const result = (status: DeliveryResult['status'], row: OutreachRow | null, reason: string | null) => ({
      status,
      record_type: e.recordType,
      outreach_id: row?.id ?? null,
      carrier_id: row?.carrier_id ?? null,
      reason,
    });
    if (e.type === 'notice') return result('ignored', null, `not a failure or a stop request: ${e.reason}`);
    const outreach = await this.sentEmailOutreach(e);
    if (!outreach) return result('ignored', null, 'no e-mail outreach matches');
    const ids = { loadId: outreach.load_id, carrierId: outreach.carrier_id, outreachId: outreach.id };
    if (e.type === 'bounce') {
      await this.markUndelivered(outreach, e.reason, e.at);
      return result('bounce_recorded', outreach, null);
    }
    await this.record(
      outreach,
      'inbound',
      e.type,
      e.type === 'spam_complaint' ? `Marked our e-mail as spam (${e.reason})` : `Unsubscribed (${e.reason})`,
      null,
    );
    await stopContactRequested(this.db, outreach.organization_id, outreach.carrier_id);
    this.log.info({ ...ids, event: e.type }, 'agent: carrier asked not to be e-mailed; stop-contact stamped');
    return result('stop_contact_recorded', outreach, e.type);
  }

  /** The e-mail outreach a delivery event is about. */
  private async sentEmailOutreach(e: EmailDeliveryEvent): Promise<OutreachRow | null> {
    if (e.outreachId) {
      const [row] = await this.db
        .select()
        .from(outreaches)
        .where(and(eq(outreaches.id, e.outreachId), eq(outreaches.modality, 'email')));
      if (row) return row;
    }
    const byMessage = await this.byMessageIds('email', e.messageId ? [e.messageId] : []);
    if (byMessage) return byMessage;
    return this.latestToAddress('email', e.email, e.at, true);
  }

  /** A WhatsApp delivery failure: the message never reached the carrier. */
  async onWhatsAppFailure(messageId: string, reason: string, at: Date) {
    const outreach = await this.byMessageIds('whatsapp', [messageId]);
    if (outreach) await this.markUndelivered(outreach, reason, at);
    return outreach;
  }

  /** Stamps `delivery_failed_at` on an outreach whose message never arrived; `status` stays as it is. */
  private async markUndelivered(outreach: OutreachRow, reason: string, at: Date) {
    await this.db
      .update(outreaches)
      .set({ delivery_failed_at: at, delivery_failure_reason: reason.slice(0, 500), updated_at: sql`now()` })
      .where(eq(outreaches.id, outreach.id));
    this.log.info(
      {
        loadId: outreach.load_id,
        carrierId: outreach.carrier_id,
        outreachId: outreach.id,
        modality: outreach.modality,
      },
      'agent: message not delivered',
    );
  }

  /** A WhatsApp message from the Cloud API webhook (or the simulation). */
  async onInboundWhatsApp(message: InboundWhatsApp): Promise<InboundResult> {
    const outreach = await this.conversationOf('whatsapp', {
      conversationId: null,
      messageIds: message.contextMessageId ? [message.contextMessageId] : [],
      address: message.from,
    });
    if (!outreach) return ignored('no conversation matches the message');
    await this.record(outreach, 'inbound', null, message.text, message.messageId);
    const [carrier] = await this.db.select().from(carriers).where(eq(carriers.id, outreach.carrier_id));
    if (!carrier!.is_active) return recordedOnly(outreach.id);
    return this.understand(outreach, message.text, message.messageId, 'messaging');
  }

  /**
   * The outreach a reply belongs to: by our conversation id, then by the message it answers, then
   * the latest outreach on that channel to the sender's address (in the last 30 days, and only when
   * a single organization contacted that address).
   */
  private async conversationOf(
    modality: 'email' | 'whatsapp',
    key: { conversationId: string | null; messageIds: string[]; address: string },
  ): Promise<OutreachRow | null> {
    if (key.conversationId) {
      const [row] = await this.db
        .select()
        .from(outreaches)
        .where(eq(outreaches.conversation_id, key.conversationId));
      if (row) return row;
    }
    const byMessage = await this.byMessageIds(modality, key.messageIds);
    if (byMessage) return byMessage;
    return this.latestToAddress(modality, key.address, new Date());
  }

  /** The outreach whose first message, or any later one, carries one of these channel message ids. */
  private async byMessageIds(modality: 'email' | 'whatsapp', messageIds: string[]) {
    if (!messageIds.length) return null;
    const ids = sql.param(messageIds);
    const [row] = await this.db
      .select()
      .from(outreaches)
      .where(
        and(
          eq(outreaches.modality, modality),
          sql`(${outreaches.external_message_id} = ANY(${ids}::text[]) OR ${outreaches.id} IN (
            SELECT outreach_id FROM agent_messages WHERE external_message_id = ANY(${ids}::text[])))`,
        ),
      )
      .limit(1);
    return row ?? null;
  }

  /**
   * The latest outreach on a channel to an address, started in the 30 days before `at` (with
   * `sentOnly`, one whose message went out), and only when a single organization contacted that
   * address then: several brokers may reach the same dispatcher, and an event must never land in
   * another organization's conversation.
   */
  private async latestToAddress(
    modality: 'email' | 'whatsapp',
    address: string,
    at: Date,
    sentOnly = false,
  ): Promise<OutreachRow | null> {
    const rows = await this.db
      .select()
      .from(outreaches)
      .where(
        and(
          eq(outreaches.modality, modality),
          sql`lower(${outreaches.address}) = ${address.toLowerCase()}`,
          sentOnly ? sql`${outreaches.sent_at} IS NOT NULL` : undefined,
          sql`${outreaches.created_at} <= ${at.toISOString()}::timestamptz + interval '5 minutes'`,
          sql`${outreaches.created_at} > ${at.toISOString()}::timestamptz - interval '30 days'`,
        ),
      )
      .orderBy(desc(outreaches.created_at))
      .limit(20);
    if (new Set(rows.map((r) => r.organization_id)).size > 1) {
      this.log.warn(
        { modality },
        'agent: an event matched by address alone belongs to several organizations; ignored',
      );
      return null;
    }
    return rows[0] ?? null;
  }

  /** What the carrier said, and the agent's answer: stop, an offer, a question for a rate. */
  private async understand(
    outreach: OutreachRow,
    text: string,
    theirMessageId: string | null,
    channel: OfferChannel,
  ): Promise<InboundResult> {
    const ids = { loadId: outreach.load_id, carrierId: outreach.carrier_id, outreachId: outreach.id };
    await recordReply(this.db, systemScope(outreach.organization_id), outreach.id);
    const load = (await this.loadOf(this.db, outreach.organization_id, outreach.load_id))!;
    let heard = understandReply(text, { distance: load.distance });
    if (this.channels.chatModel && heard.rate === null && heard.available === null && !heard.stop_contact) {
      try {
        const { extractWithModel } = await import('../../integrations/llm/reply-extraction.js');
        const fromModel = await extractWithModel(this.channels.chatModel, text);
        heard = { ...heard, ...fromModel };
      } catch (err) {
        this.log.warn({ err, ...ids }, 'agent: the chat model could not read the reply');
      }
    }
    if (heard.stop_contact) {
      await stopContactRequested(this.db, outreach.organization_id, outreach.carrier_id);
      await this.answer(outreach, 'stop_confirmed', null, theirMessageId);
      this.log.info(ids, 'agent: carrier asked not to be contacted; stamped and withdrawn');
      return { status: 'replied', outreach_id: outreach.id, offer_id: null, reason: 'stop_contact' };
    }
    let rate = heard.rate;
    if (rate === null && heard.available === true) {
      // "Yes, that works" after our counter-offer: the carrier takes the countered amount.
      rate = await counterOffered(this.db, outreach.load_id, outreach.carrier_id);
    }
    if (rate !== null) {
      const { offerId, decision, amount } = await receiveOffer(
        this.db,
        this.log,
        systemScope(outreach.organization_id),
        {
          loadId: outreach.load_id,
          carrierId: outreach.carrier_id,
          amount: rate,
          channel,
          notes: heard.rate_basis === 'plus_fuel' ? 'plus fuel surcharge' : null,
          conversationId: outreach.conversation_id,
          emailMessageId: channel === 'email' ? theirMessageId : null,
        },
      );
      await this.answer(
        outreach,
        decision.kind,
        decision.kind === 'counter' ? decision.amount : amount,
        theirMessageId,
      );
      return { status: 'replied', outreach_id: outreach.id, offer_id: offerId, reason: decision.kind };
    }
    const intent: ReplyIntent = heard.available === false ? 'not_available' : 'ask_rate';
    await this.answer(outreach, intent, null, theirMessageId);
    this.log.info({ ...ids, intent }, 'agent: reply without a rate');
    return { status: 'replied', outreach_id: outreach.id, offer_id: null, reason: intent };
  }

  private async answer(
    outreach: OutreachRow,
    intent: ReplyIntent,
    amount: number | null,
    theirMessageId: string | null,
    detail?: string | null,
  ) {
    const load = (await this.loadOf(this.db, outreach.organization_id, outreach.load_id))!;
    const [carrier] = await this.db
      .select({ name: carriers.name })
      .from(carriers)
      .where(eq(carriers.id, outreach.carrier_id));
    let text = replyText(intent, load, carrier!.name, amount, detail);
    if (this.channels.chatModel) {
      try {
        const { draftReply } = await import('../../integrations/llm/reply-extraction.js');
        const drafted = await draftReply(this.channels.chatModel, {
          carrierName: carrier!.name,
          loadSummary: `load ${load.load_number}: ${load.origin} to ${load.destination}, ${load.equipment_type}`,
          intent:
            intent === 'accept' ||
            intent === 'review' ||
            intent === 'not_available' ||
            intent === 'stop_confirmed'
              ? 'thanks'
              : intent === 'counter' ||
                  intent === 'decline' ||
                  intent === 'ask_rate' ||
                  intent === 'restriction_notice'
                ? intent
                : 'thanks',
          ...(amount !== null ? { amount } : {}),
        });
        if (drafted) text = drafted;
      } catch (err) {
        this.log.warn(
          { err, outreachId: outreach.id },
          'agent: the chat model could not draft; default wording sent',
        );
      }
    }
    const externalId = await this.deliver(outreach, load, text, theirMessageId).catch((err) => {
      this.log.warn({ err, outreachId: outreach.id }, 'agent: reply could not be sent');
      return null;
    });
    await this.record(outreach, 'outbound', intent, text, externalId);
  }
}

const recordedOnly = (outreachId: string): InboundResult => ({
  status: 'recorded',
  outreach_id: outreachId,
  offer_id: null,
  reason: 'the carrier is disabled',
});
const ignored = (reason: string): InboundResult => ({
  status: 'ignored',
  outreach_id: null,
  offer_id: null,
  reason,
});
