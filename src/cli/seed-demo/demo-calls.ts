import { and, eq, inArray, sql } from 'drizzle-orm';
import { resultOf } from '../../domain/written.js';
import { defined } from '../../lib/defined.js';
import { calls } from '../../modules/calls/calls-tables.js';
import {
  recordDeliveryFailure,
  recordReply,
  sweepUnanswered,
} from '../../modules/outreaches/outreaches-repository.js';
import { FIRST, inChunks, LAST } from './demo-data.js';
import type { DemoLoads } from './demo-loads.js';
import { allowedAmong } from './demo-offers.js';
import type { DemoRun } from './demo-run.js';

/** Outreaches by call, e-mail and WhatsApp (some unanswered, answered or bounced), and tracking prompts. */
export async function seedOutreaches(run: DemoRun, carrierIds: string[], idsOf: DemoLoads['idsOf']) {
  const { services, db, scope, org, progress } = run;
  const allowedFor = (loadId: string, count: number) => allowedAmong(run, carrierIds, loadId, count);
  // Calls, outreaches and ELP tests on the simulated voice platform, fast.
  const { outreaches: outreachesService } = services;
  const counts = {
    call_outreaches: 0,
    email_outreaches: 0,
    whatsapp_outreaches: 0,
    tracking_prompts: 0,
    elp_tests: 0,
  };
  const working = [...idsOf('Open').slice(0, 30), ...idsOf('Quoted').slice(0, 20)];
  const messages: { id: string; modality: string }[] = [];
  const reach = async (loadId: string, k: number) => {
    const [carrierId] = await allowedFor(loadId, 1);
    if (!carrierId) return;
    const modality = defined(
      (['call', 'email', 'whatsapp'] as const)[k % 3],
      "(['call', 'email', 'whatsapp'] as const)[k % 3]",
    );
    const outreach = resultOf(
      await outreachesService.create(scope, { carrier_id: carrierId, load_id: loadId, modality }),
    );
    if (modality === 'call') counts.call_outreaches++;
    else {
      messages.push({ id: outreach.id, modality });
      if (modality === 'email') counts.email_outreaches++;
      else counts.whatsapp_outreaches++;
    }
  };
  // The first messages went unanswered: the sweeper's rule, with its window shrunk to now.
  await inChunks(working.slice(0, 9), 5, reach);
  await new Promise((r) => setTimeout(r, 10));
  await sweepUnanswered(db, 0.000_001, org.id);
  const later = messages.length;
  await inChunks(working.slice(9), 5, (loadId, k) => reach(loadId, k + 9));
  // Of the later ones, a few were answered and two e-mails bounced; the rest await a reply.
  const waiting = messages.slice(later);
  for (const m of waiting.slice(0, 5)) await recordReply(db, scope, m.id);
  const bounced = waiting
    .slice(5)
    .filter((m) => m.modality === 'email')
    .slice(0, 2);
  for (const m of bounced) {
    await recordDeliveryFailure(db, scope, m.id, '550 5.1.1 Recipient address rejected: mailbox unavailable');
  }

  // Tracking prompts on loads in transit: check calls to the drivers.
  for (const loadId of idsOf('In Transit').slice(0, 5)) {
    try {
      await outreachesService.trackingPrompt(scope, loadId, {
        instructions: 'Confirm the ETA at the receiver and whether the load is on schedule',
        channel: 'voice',
      });
      counts.tracking_prompts++;
    } catch {
      // a load whose booked carrier the guard refuses is skipped
    }
  }

  progress('outreaches by call, e-mail and WhatsApp, and tracking prompts');
  return counts;
}

/** ELP tests on the simulated voice platform; waits for every call to end and be scored. */
export async function seedElpTests(run: DemoRun, carrierIds: string[], counts: { elp_tests: number }) {
  const { services, db, scope, org, progress } = run;
  const { calls: callsService } = services;
  // ELP tests: most answered and scored, some unanswered (scoring FAILED).
  const outcomes = [
    'completed',
    'completed',
    'completed',
    'completed',
    'completed',
    'no_answer',
    'voicemail',
    'failed',
  ];
  for (const [k, outcome] of outcomes.entries()) {
    await callsService.create(
      scope,
      {
        phone_number: `+1469555${String(5000 + k)}`,
        call_type: 'ELP',
        template_variables: { simulate_outcome: outcome },
      },
      {
        carrier_id: defined(carrierIds[k * 9], 'carrierIds[k * 9]'),
        driver_name: `${FIRST[k]} ${LAST[(k + 2) % 10]}`,
      },
    );
    counts.elp_tests++;
  }

  progress('ELP tests started; waiting for the simulated calls to end');
  // Let every call reach its end (a 30 s call takes 60 ms at this speed).
  const until = Date.now() + 20_000;
  for (;;) {
    const [open] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(calls)
      .where(
        and(
          eq(calls.organization_id, org.id),
          inArray(calls.status, ['SCHEDULED', 'PENDING', 'AGENT_ASSIGNED', 'IN_PROGRESS']),
        ),
      );
    if (!open?.n || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 100)); // end-of-call reports and ELP scoring
  progress('calls ended and ELP tests scored');
}
