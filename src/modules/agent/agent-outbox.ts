import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Db, DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import type { Language, ReplyIntent } from '../../domain/negotiation.js';
import { systemScope } from '../../domain/scope.js';
import type { ChatModel } from '../../integrations/llm/chat-model.js';
import type { DraftIntent } from '../../integrations/llm/reply-extraction.js';
import { errorMessage } from '../../lib/error-text.js';
import { findOutreach, type OutreachRow } from '../outreaches/index.js';
import type { AgentMessenger } from './agent-messenger.js';
import { type AgentLoad, agentLoadOf } from './agent-repository.js';
import { agentMessages, agentOutbox } from './agent-tables.js';

/** Sends of one answer, the first included, before it is left failed. */
export const OUTBOX_ATTEMPTS = 5;
/** How long one sender holds an answer it is sending (wall clock, as every lease). */
const LEASE_SECONDS = 60;

/** The intents the chat model words itself; the others keep the default wording, exactly. */
const DRAFTED: Partial<Record<ReplyIntent, DraftIntent>> = {
  counter: 'counter',
  final: 'counter',
  pass: 'decline',
  decline: 'decline',
  ask_rate: 'ask_rate',
  restriction_notice: 'restriction_notice',
};

/** What the chat model may word in its own way instead of the default body (one-load English answers). */
const draftSchema = z.object({
  intent: z.string(),
  amount: z.number().nullable(),
  language: z.enum(['en', 'es']),
  carrierName: z.string(),
  told: z.string().nullable(),
});
export type Draft = {
  intent: ReplyIntent;
  amount: number | null;
  language: Language;
  carrierName: string;
  /** Answers to the carrier's questions, said before the reply. */
  told: string | null;
};

/**
 * The agent's answers to carriers, queued in the transaction that decided them and sent after it
 * committed (a crash between the two leaves the answer queued, and the next sweep sends it; a send
 * that fails is retried with a growing delay, OUTBOX_ATTEMPTS times in all).
 */
export class AgentOutbox {
  constructor(
    private readonly db: Db,
    private readonly messenger: AgentMessenger,
    private readonly chatModel: ChatModel | null,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Queues the answer in the caller's transaction; returns its id. */
  async queue(
    tx: DbOrTx,
    a: {
      organizationId: string;
      outreachId: string;
      loadIds: string[];
      messageIds: string[];
      body: string;
      inReplyTo: string | null;
      draft: Draft | null;
    },
  ): Promise<string> {
    const id = newId('agentMessage');
    await tx.insert(agentOutbox).values({
      id,
      organization_id: a.organizationId,
      outreach_id: a.outreachId,
      load_ids: a.loadIds,
      message_ids: a.messageIds,
      body: a.body,
      in_reply_to: a.inReplyTo,
      draft: a.draft,
    });
    return id;
  }

  /** Sends the answers that are due (queued by a turn that did not send them, or to retry). */
  async flushDue(limit = 50): Promise<number> {
    const due = await this.db
      .select({ id: agentOutbox.id })
      .from(agentOutbox)
      .where(and(eq(agentOutbox.status, 'queued'), lte(agentOutbox.next_attempt_at, sql`envoy_now()`)))
      .orderBy(agentOutbox.next_attempt_at)
      .limit(limit);
    let sent = 0;
    for (const { id } of due) if (await this.flush(id)) sent += 1;
    return sent;
  }

  /** Sends one queued answer, unless another sender holds it; returns whether it went out. */
  async flush(id: string, known?: { outreach: OutreachRow; loads: AgentLoad[] }): Promise<boolean> {
    const [row] = await this.db
      .update(agentOutbox)
      .set({
        lease_until: sql`now() + make_interval(secs => ${LEASE_SECONDS})`,
        attempts: sql`${agentOutbox.attempts} + 1`,
      })
      .where(
        and(
          eq(agentOutbox.id, id),
          eq(agentOutbox.status, 'queued'),
          sql`(${agentOutbox.lease_until} IS NULL OR ${agentOutbox.lease_until} < now())`,
        ),
      )
      .returning();
    if (!row) return false;
    try {
      // What the turn that queued it knows is not read again.
      const outreach =
        known?.outreach ?? (await findOutreach(this.db, systemScope(row.organization_id), row.outreach_id));
      if (!outreach) throw new Error(`outreach ${row.outreach_id} is gone`);
      const loads: AgentLoad[] = known?.loads ?? [];
      for (const loadId of known ? [] : row.load_ids) {
        const load = await agentLoadOf(this.db, row.organization_id, loadId);
        if (load) loads.push(load);
      }
      const first = loads[0];
      if (!first) throw new Error('the loads of the answer are gone');
      const body = await this.worded(row.body, row.draft, first);
      const externalId = await this.messenger.deliver(outreach, first, body, row.in_reply_to, loads);
      await this.db.transaction(async (tx) => {
        await tx
          .update(agentOutbox)
          .set({ status: 'sent', sent_at: sql`envoy_now()`, lease_until: null, body })
          .where(eq(agentOutbox.id, id));
        if (row.message_ids.length)
          await tx
            .update(agentMessages)
            .set({ external_message_id: externalId, body })
            .where(inArray(agentMessages.id, row.message_ids));
      });
      return true;
    } catch (err) {
      const last = row.attempts >= OUTBOX_ATTEMPTS;
      this.log.warn(
        { err, outboxId: id, outreachId: row.outreach_id, attempt: row.attempts },
        'agent: answer not sent',
      );
      await this.db
        .update(agentOutbox)
        .set({
          status: last ? 'failed' : 'queued',
          last_error: errorMessage(err).slice(0, 500),
          lease_until: null,
          // 1, 4, 9, 16 minutes of product time.
          next_attempt_at: sql`envoy_now() + make_interval(mins => ${row.attempts * row.attempts})`,
        })
        .where(eq(agentOutbox.id, id));
      return false;
    }
  }

  /** The chat model's wording of a one-load English answer when one is configured, else the default. */
  private async worded(body: string, stored: unknown, load: AgentLoad) {
    const draft = draftSchema.safeParse(stored);
    if (!this.chatModel || !draft.success || draft.data.language !== 'en') return body;
    const { intent: said, carrierName, told } = draft.data;
    try {
      const { draftReply } = await import('../../integrations/llm/reply-extraction.js');
      // Only the intents the model words; a confirmation question or a booking keeps its wording.
      const intent = Object.entries(DRAFTED).find(([k]) => k === said)?.[1];
      if (!intent) return body;
      const drafted = await draftReply(this.chatModel, {
        carrierName,
        loadSummary: `load ${load.load_number}: ${load.origin} to ${load.destination}, ${load.equipment_type}`,
        intent,
        ...(draft.data.amount !== null ? { amount: draft.data.amount } : {}),
      });
      if (!drafted) return body;
      return told ? `${told}\n\n${drafted}` : drafted;
    } catch (err) {
      this.log.warn({ err }, 'agent: the chat model could not draft; default wording sent');
      return body;
    }
  }
}
