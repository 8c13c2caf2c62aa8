import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { EmailDeliveryEvent, InboundEmail } from '../../integrations/email/email-channel.js';
import type { InboundWhatsApp } from '../../integrations/whatsapp/whatsapp-channel.js';
import type { StopContactRequests } from '../carriers/index.js';
import type { OfferReceiver } from '../offers/index.js';
import type { OutreachRow } from '../outreaches/index.js';
import { type AgentChannels, AgentMessenger } from './agent-messenger.js';
import type { AgentSettings } from './agent-settings.js';
import { type CallPlacer, ContactDispatcher } from './contact-dispatcher.js';
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
  private readonly db: Db;
  private readonly log: FastifyBaseLogger;
  /** Where a rep's counter-offer is said: the offer's conversation, through the agent's messenger. */
  readonly repCounters: RepCounterMessages;

  constructor(
    db: Db,
    calls: CallPlacer,
    channels: AgentChannels,
    rules: { offers: OfferReceiver; stopContact: StopContactRequests },
    log: FastifyBaseLogger,
    batchSize = 50,
    rankingTtlMs = 30_000,
  ) {
    this.db = db;
    this.log = log;
    const messenger = new AgentMessenger(db, channels);
    this.planner = new WavePlanner(db, log, batchSize, rankingTtlMs);
    this.dispatcher = new ContactDispatcher(db, calls, messenger, log, batchSize);
    this.replies = new ReplyHandler(db, messenger, rules.offers, rules.stopContact, channels.chatModel, log);
    this.repCounters = new RepCounterMessages(db, messenger);
  }

  /** One round of the worker; returns what it did. */
  async tick(now = new Date()) {
    const cancelled = await this.planner.cancelUnworkable();
    const planned = await this.planner.planDue(now);
    const dispatched = await this.dispatcher.dispatchDue();
    const reviews = await sweepReviewItems(this.db, this.log);
    return { cancelled, planned, dispatched, reviews: reviews.raised + reviews.escalated };
  }

  /**
   * One round for one organization only (the demo seed works its own organization this way,
   * leaving every other one to the servers' loops): plans its due waves, sends its due contacts.
   */
  async workOrganization(organizationId: string, now = new Date()) {
    const planned = await this.planner.planDue(now, organizationId);
    const dispatched = await this.dispatcher.dispatchDue(organizationId);
    await sweepReviewItems(this.db, this.log, organizationId);
    return { planned, dispatched };
  }

  cancelUnworkable(): Promise<number> {
    return this.planner.cancelUnworkable();
  }

  planDue(now = new Date()): Promise<number> {
    return this.planner.planDue(now);
  }

  planLoad(
    organizationId: string,
    loadId: string,
    settings: AgentSettings,
    now = new Date(),
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
}
