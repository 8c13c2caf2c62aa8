import { and, eq, isNull, sql } from 'drizzle-orm';
import { DEFAULT_AGENT_SETTINGS, updateAgentSettings } from '../../modules/agent/agent-settings.js';
import { agentLoadStates } from '../../modules/agent/agent-tables.js';
import { offers } from '../../modules/offers/offers-tables.js';
import { outreaches } from '../../modules/outreaches/outreaches-tables.js';
import type { DemoLoads } from './demo-loads.js';
import type { DemoRun } from './demo-run.js';

/**
 * The agent's first round on the demo's open loads, so its results and each load's activity show
 * something: it plans a wave per load and contacts the carriers (its calls run on the simulated
 * voice platform, whose carriers quote and book); then carriers answer its e-mails, some at or
 * under the posted rate (booked at once), some over it (countered, and a few insist: left for a
 * rep), and the owner books two of those. Only the demo organization is worked.
 */
export async function seedAgentWork(run: DemoRun, loads: DemoLoads) {
  const { services, db, org, rnd, scope, progress } = run;
  const { agent } = services;
  const postedRate = new Map(loads.loadIds.map((id, i) => [id, loads.loadItems[i]?.posted_rate ?? 2000]));
  const first = await agent.workOrganization(org.id);
  // A second wave at once, by e-mail first, so both channels show: the loads not booked on a call.
  // The demo folds the hours between waves into a moment, so the gap between two contacts of one
  // carrier is lifted for this wave and put back after it.
  await updateAgentSettings(db, org.id, {
    channel_order: ['email', 'call', 'whatsapp'],
    carrier_min_gap_minutes: 0,
  });
  await db
    .update(agentLoadStates)
    .set({ next_wave_at: sql`now() - interval '1 second'` })
    .where(eq(agentLoadStates.organization_id, org.id));
  const second = await agent.workOrganization(org.id);
  await updateAgentSettings(db, org.id, {
    channel_order: ['call', 'email', 'whatsapp'],
    carrier_min_gap_minutes: DEFAULT_AGENT_SETTINGS.carrier_min_gap_minutes,
  });

  const sent = await db
    .select({
      id: outreaches.id,
      load_id: outreaches.load_id,
      address: outreaches.address,
      conversation_id: outreaches.conversation_id,
    })
    .from(outreaches)
    .where(
      and(
        eq(outreaches.organization_id, org.id),
        eq(outreaches.is_automated, true),
        eq(outreaches.modality, 'email'),
        eq(outreaches.status, 'active'),
      ),
    );
  let replies = 0;
  for (const [k, o] of sent.entries()) {
    const from = o.address;
    if (!from || !o.conversation_id || !o.load_id) continue;
    const roll = rnd.next();
    if (roll < 0.3) continue; // no answer yet
    const posted = postedRate.get(o.load_id) ?? 2000;
    const amount = Math.round((posted * (roll < 0.65 ? 0.95 : 1.1)) / 25) * 25;
    const answer = (text: string, n: number) =>
      agent.onInboundEmail({
        from,
        fromName: null,
        to: [`reply+${o.conversation_id}@reply.envoy.local`],
        mailboxHash: o.conversation_id,
        subject: 'Re: Load offer',
        text,
        inReplyTo: null,
        references: [],
        messageId: `demo-${o.id}-${n}@carrier.example`,
        receivedAt: new Date(),
      });
    await answer(`We can do ${amount} all in, truck is close by.`, k);
    replies++;
    if (amount > posted && rnd.next() < 0.5) await answer(`Best I can do is ${amount}.`, k + 100_000);
  }

  // The owner books two of the loads whose offers were left for a rep.
  const forReview = await db
    .select({ id: offers.id, load_id: offers.load_id })
    .from(offers)
    .where(
      and(
        eq(offers.organization_id, org.id),
        eq(offers.source, 'agent'),
        eq(offers.status, 'pending'),
        isNull(offers.counter_amount),
      ),
    );
  const booked = new Set<string>();
  for (const o of forReview) {
    if (booked.size >= 2 || booked.has(o.load_id)) continue;
    try {
      await services.offers.setStatus(scope, o.id, 'accepted');
      booked.add(o.load_id);
    } catch {
      // the agent booked this load meanwhile
    }
  }
  progress(
    `the agent's first two waves: ${first.planned + second.planned} loads planned, ` +
      `${first.dispatched + second.dispatched} carriers contacted, ${replies} e-mail replies`,
  );
}
