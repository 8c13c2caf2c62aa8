import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { EmailDeliveryEvent, InboundEmail } from '../../integrations/email/email-channel.js';
import { parseInboundEmailWebhook } from '../../integrations/email/inbound-parse.js';
import { parseWhatsAppWebhook } from '../../integrations/whatsapp/cloud-api-webhook.js';
import type { InboundWhatsApp } from '../../integrations/whatsapp/whatsapp-channel.js';
import type { Clock } from '../../lib/clock.js';
import type { StopContactRequests } from '../carriers/index.js';
import type { OfferReceiver } from '../offers/index.js';
import type { OutreachRow } from '../outreaches/index.js';
import { type AgentChannels, AgentMessenger } from './agent-messenger.js';
import { AgentOutbox } from './agent-outbox.js';
import type { AgentSettings } from './agent-settings.js';
import { CarrierTurns } from './carrier-turn.js';
import { type CallPlacer, ContactDispatcher } from './contact-dispatcher.js';
import { releaseHeldOffers } from './held-offers.js';
import { RepCounterMessages } from './rep-counters.js';
import { type DeliveryResult, type InboundResult, ReplyHandler } from './reply-handler.js';
import { sweepReviewItems } from './review-items.js';
import { type LaneRanking, WavePlanner } from './wave-planner.js';

export type { AgentChannels, DeliveryResult, InboundResult };

/**
 * The load-working agent, put together: each round the planner withdraws queued contacts of loads
 * that left the workable set and plans the next wave of loads that are due, then the dispatcher
 * sends the contacts whose time has come. Replies and delivery events from the channels' webhooks
 * (or the simulations) go to the reply handler.
 */
export class AgentService {
  private readonly planner: WavePlanner;
  private readonly dispatcher: ContactDispatcher;
  private readonly replies: ReplyHandler;
  /** The agent's answers to carriers, sent after the turn that decided them committed. */
  readonly outbox: AgentOutbox;
  private readonly offers: OfferReceiver;
  private readonly db: Db;
  private readonly log: FastifyBaseLogger;
  /** The product clock: every round plans at its time. */
  readonly clock: Clock;
  private readonly channels: AgentChannels;

  constructor(
    db: Db,
    calls: CallPlacer,
    channels: AgentChannels,
    rules: { offers: OfferReceiver; stopContact: StopContactRequests },
    log: FastifyBaseLogger,
    clock: Clock,
    batchSize = 50,
    rankingTtlMs = 30_000,
    planningLanes = 2,
  ) {
    this.db = db;
    this.log = log;
    this.clock = clock;
    const messenger = new AgentMessenger(db, channels);
    this.planner = new WavePlanner(db, log, batchSize, rankingTtlMs, clock, planningLanes);
    this.dispatcher = new ContactDispatcher(db, calls, messenger, log, batchSize);
    this.offers = rules.offers;
    this.outbox = new AgentOutbox(db, messenger, channels.chatModel, log);
    const turns = new CarrierTurns(db, this.outbox, rules.offers, rules.stopContact, channels.chatModel, log);
    this.replies = new ReplyHandler(db, messenger, turns, rules.stopContact, log, clock);
    this.channels = channels;
  }

  /**
   * Where a rep's counter-offer is said (the offer's conversation, through the agent's messenger),
   * writing on `db`: the pool, or the transaction of the request that counters.
   */
  repCountersOn(db: Db): RepCounterMessages {
    return new RepCounterMessages(db, new AgentMessenger(db, this.channels));
  }

  /** One round of the worker; returns what it did. */
  async tick(now = this.clock.now()) {
    const cancelled = await this.planner.cancelUnworkable();
    const planned = await this.planner.planDue(now);
    const dispatched = await this.dispatcher.dispatchDue();
    const released = await releaseHeldOffers(this.db, this.offers, this.outbox, this.log);
    const reviews = await sweepReviewItems(this.db, this.log);
    return { cancelled, planned, dispatched, released, reviews: reviews.raised + reviews.escalated };
  }

  /**
   * One round for one organization only (the demo seed works its own organization this way,
   * leaving every other one to the servers' loops): plans its due waves, sends its due contacts.
   */
  async workOrganization(organizationId: string, now = this.clock.now()) {
    const planned = await this.planner.planDue(now, organizationId);
    const dispatched = await this.dispatcher.dispatchDue(organizationId);
    await sweepReviewItems(this.db, this.log, organizationId);
    return { planned, dispatched };
  }

  cancelUnworkable(): Promise<number> {
    return this.planner.cancelUnworkable();
  }

  planDue(now = this.clock.now()): Promise<number> {
    return this.planner.planDue(now);
  }

  planLoad(
    organizationId: string,
    loadId: string,
    settings: AgentSettings,
    now = this.clock.now(),
    ranking?: () => Promise<LaneRanking>,
  ) {
    return this.planner.planLoad(organizationId, loadId, settings, now, ranking);
  }

  dispatchDue(): Promise<number> {
    return this.dispatcher.dispatchDue();
  }

  sendOrFail(outreach: OutreachRow): Promise<void> {
    return this.dispatcher.sendOrFail(outreach);
  }

  send(outreach: OutreachRow): Promise<void> {
    return this.dispatcher.send(outreach);
  }

  onInboundEmail(email: InboundEmail): Promise<InboundResult> {
    return this.replies.onInboundEmail(email);
  }

  onEmailDelivery(e: EmailDeliveryEvent): Promise<DeliveryResult> {
    return this.replies.onEmailDelivery(e);
  }

  onWhatsAppFailure(messageId: string, reason: string, at: Date) {
    return this.replies.onWhatsAppFailure(messageId, reason, at);
  }

  onInboundWhatsApp(message: InboundWhatsApp): Promise<InboundResult> {
    return this.replies.onInboundWhatsApp(message);
  }

  /**
   * What the inbound e-mail webhook (Postmark's inbound and bounce payloads) carries, applied: the
   * route's handler and the simulated market's carriers alike. A payload that is not one throws
   * the validation error naming its field.
   */
  async onPostmarkPayload(payload: unknown): Promise<InboundResult | DeliveryResult> {
    const event = parseInboundEmailWebhook(payload);
    if (event.kind === 'delivery') return this.onEmailDelivery(event.event);
    if (event.kind === 'ignored') {
      return {
        status: 'ignored',
        record_type: event.recordType,
        outreach_id: null,
        carrier_id: null,
        reason: 'record type not acted on',
      };
    }
    return this.onInboundEmail(event.email);
  }

  /** A WhatsApp Cloud API webhook's messages and delivery statuses, applied (its signature checked by the caller). */
  async onWhatsAppPayload(payload: unknown): Promise<{ results: InboundResult[] }> {
    const batch = parseWhatsAppWebhook(payload);
    for (const s of batch.statuses) {
      if (s.status === 'failed')
        await this.onWhatsAppFailure(s.messageId, s.error ?? 'delivery failed', s.at);
    }
    const results: InboundResult[] = [];
    for (const m of batch.messages) results.push(await this.onInboundWhatsApp(m));
    return { results };
  }
}
