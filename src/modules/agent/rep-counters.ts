import type { Db } from '../../db/client.js';
import { replyText } from '../../domain/negotiation.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { findCarrier } from '../carriers/index.js';
import type { CounterChannel, CounterConversation, CounteredOffer, SaidCounter } from '../offers/index.js';
import { latestOutreachOnChannel, outreachesOfConversation, outreachOnChannel } from '../outreaches/index.js';
import type { AgentMessenger } from './agent-messenger.js';
import { agentLoadOf, lastInboundMessageId } from './agent-repository.js';

/**
 * Says a rep's counter-offer in the carrier's own conversation, on the channel the offer came
 * from, with the agent's wording and threading (an e-mail answers the carrier's last message), and
 * keeps it in the conversation like every message the agent sends (intent `rep_counter` or
 * `rep_final`).
 */
export class RepCounterMessages implements CounterChannel {
  constructor(
    private readonly db: Db,
    private readonly messenger: AgentMessenger,
  ) {}

  async conversationOf(scope: OrgScope, offer: CounteredOffer): Promise<CounterConversation | null> {
    const modality = offer.channel === 'email' ? 'email' : 'whatsapp';
    const inConversation = offer.email_conversation_id
      ? (await outreachesOfConversation(this.db, offer.email_conversation_id, offer.carrier_id)).find(
          (o) => o.load_id === offer.load_id && o.organization_id === scope.organizationId,
        )
      : undefined;
    const outreach =
      inConversation ??
      (await latestOutreachOnChannel(
        this.db,
        scope.organizationId,
        offer.load_id,
        offer.carrier_id,
        modality,
      ));
    return outreach ? { outreachId: outreach.id, modality } : null;
  }

  async say(scope: OrgScope, conversation: CounterConversation, counter: SaidCounter) {
    const outreach = defined(
      await outreachOnChannel(this.db, conversation.outreachId, conversation.modality),
      'outreach of the counter',
    );
    const load = defined(
      await agentLoadOf(this.db, scope.organizationId, outreach.load_id),
      'load of the counter',
    );
    const carrier = defined(await findCarrier(this.db, scope, outreach.carrier_id), 'carrier of the counter');
    const text = replyText(counter.kind, load, carrier.name, counter.amount);
    const inReplyTo = await lastInboundMessageId(this.db, outreach.id);
    const messageId = await this.messenger.deliver(outreach, load, text, inReplyTo);
    await this.messenger.record(outreach, 'outbound', `rep_${counter.kind}`, text, messageId);
    return { messageId };
  }
}
