import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { amountOf, intentOf, replyText } from '../../domain/negotiation.js';
import { systemScope } from '../../domain/scope.js';
import { findCarrier } from '../carriers/index.js';
import { endVettingHold, lockHeldForVetting, type OfferReceiver } from '../offers/index.js';
import { latestOutreachOnChannel, offerGate } from '../outreaches/index.js';
import { heldOffersOfPassedCarriers } from '../read-side/index.js';
import type { AgentOutbox } from './agent-outbox.js';
import { agentLoadOf, insertMessage } from './agent-repository.js';

/**
 * Quotes held for vetting whose carrier has passed since (compliance PASSED, risk low): each goes
 * through the gate again and the normal path (the negotiation decides on that same offer), and the
 * carrier hears the answer in the conversation the quote came from (an e-mail or WhatsApp thread;
 * a quote from a call waits for a rep). Returns how many were released.
 */
export async function releaseHeldOffers(
  db: Db,
  offers: OfferReceiver,
  outbox: AgentOutbox,
  log: FastifyBaseLogger,
  limit = 50,
): Promise<number> {
  const due = await heldOffersOfPassedCarriers(db, limit);
  let released = 0;
  for (const held of due) {
    const scope = systemScope(held.organization_id);
    const sent = await db.transaction(async (tx) => {
      // Still held (a rep or another instance may have decided it meanwhile)?
      if (!(await lockHeldForVetting(tx, held.id))) return null;
      const verdict = (await offerGate(tx, scope, held.carrier_id, [held.load_id])).get(held.load_id);
      if (verdict?.kind !== 'open') {
        // Refused meanwhile (or held again): the quote stays with a rep, no longer waiting on vetting.
        await endVettingHold(tx, held.id);
        return null;
      }
      const policy = await offers.policyOf(held.organization_id);
      const outcome = await offers.take(tx, scope, policy, {
        loadId: held.load_id,
        carrierId: held.carrier_id,
        said: { kind: 'offer', amount: held.offer_amount },
        verdict,
        channel: held.channel,
        conversationId: held.email_conversation_id,
        replaces: held.id,
      });
      released += 1;
      if (held.channel === 'voice') return null;
      const outreach = await latestOutreachOnChannel(
        tx,
        held.organization_id,
        held.load_id,
        held.carrier_id,
        held.channel === 'email' ? 'email' : 'whatsapp',
      );
      const load = await agentLoadOf(tx, held.organization_id, held.load_id);
      const carrier = await findCarrier(tx, scope, held.carrier_id);
      if (!outreach || !load || !carrier) return null;
      const intent = intentOf(outcome.decision);
      const amount = amountOf(outcome.decision) ?? held.offer_amount;
      const body = replyText(intent, load, carrier.name, amount);
      const messageId = await insertMessage(tx, outreach, {
        direction: 'outbound',
        intent,
        body,
        externalId: null,
      });
      return outbox.queue(tx, {
        organizationId: held.organization_id,
        outreachId: outreach.id,
        loadIds: [held.load_id],
        messageIds: [messageId],
        body,
        inReplyTo: null,
        draft: null,
      });
    });
    if (sent) await outbox.flush(sent);
  }
  if (released) log.info({ released }, 'agent: quotes held for vetting released');
  return released;
}
