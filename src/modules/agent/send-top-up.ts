// A contact may be planned hours before it goes out (it waits for the carrier's hours). Loads of
// the carrier's lanes that came in meanwhile would otherwise wait for a contact of their own, which
// the carrier's daily cap, gap or pace may not allow before pickup. So as a contact of its own goes
// out, it takes them too, up to what one message or call offers.

import type { FastifyBaseLogger } from 'fastify';
import type { DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { defined } from '../../lib/defined.js';
import {
  activateOutreaches,
  emitOutreachEvents,
  insertOutreaches,
  type NewOutreach,
  type OutreachRow,
  outreachEventData,
} from '../outreaches/index.js';
import { pendingJoinsOf, recordActivity } from './agent-repository.js';
import { type AgentSettings, contactWindowOf, readAgentSettings } from './agent-settings.js';
import { mostLoadsOn } from './contact-plan.js';
import { laneLoadsFor } from './lane-sweep.js';
import { lockCarriers } from './planning-rules.js';
import { offeredWith } from './planning-timeline.js';

/**
 * For the outreaches just claimed for sending (`claimed`, active now), the outreaches that go with
 * them, claimed too: under each carrier's planning lock (the planner cannot join or plan for it
 * meanwhile), the joins planned while the bundle was being claimed, then, where the contact still
 * has room, the carrier's open loads it may be offered now (laneLoadsFor), each written as an
 * outreach of the bundle with its outreach.created event and a timeline entry. Only where the
 * organization offers a carrier several loads at once (group_lane_loads).
 */
export async function topUpAtSend(
  tx: DbOrTx,
  claimed: readonly OutreachRow[],
  log: FastifyBaseLogger,
): Promise<OutreachRow[]> {
  const primaries = claimed.filter((o) => o.bundle_id === null);
  const settings = new Map<string, AgentSettings>();
  for (const org of new Set(primaries.map((p) => p.organization_id))) {
    settings.set(org, await readAgentSettings(tx, org));
  }
  const grouping = primaries.filter((p) => settings.get(p.organization_id)?.group_lane_loads);
  if (grouping.length === 0) return [];
  await lockCarriers(
    tx,
    grouping.map((p) => p.carrier_id),
  );
  const added = await activateOutreaches(
    tx,
    await pendingJoinsOf(
      tx,
      grouping.map((p) => p.id),
    ),
  );
  for (const p of grouping) {
    const group = [...claimed, ...added].filter((o) => o.id === p.id || o.bundle_id === p.id);
    const room = mostLoadsOn(p.modality) - group.length;
    if (room <= 0) continue;
    const window = contactWindowOf(defined(settings.get(p.organization_id), 'settings'));
    const open = (await laneLoadsFor(tx, p.organization_id, p.load_id, [p.carrier_id], window)).get(
      p.carrier_id,
    );
    const fresh = (open ?? []).filter((l) => !group.some((o) => o.load_id === l.id)).slice(0, room);
    if (fresh.length === 0) continue;
    const rows: NewOutreach[] = fresh.map((l) => ({
      id: newId('outreach'),
      organization_id: p.organization_id,
      carrier_id: p.carrier_id,
      load_id: l.id,
      load_number: l.load_number,
      direction: 'outbound',
      status: 'pending',
      is_automated: true,
      modality: p.modality,
      address: p.address,
      conversation_id: p.conversation_id,
      bundle_id: p.id,
      send_after: p.send_after,
    }));
    const inserted = await insertOutreaches(tx, rows);
    await emitOutreachEvents(
      tx,
      p.organization_id,
      inserted.map((o) => ({ type: 'outreach.created', data: outreachEventData(o) })),
    );
    await recordActivity(
      tx,
      offeredWith(
        rows.map((row, i) => ({ row, sameLane: defined(fresh[i], 'fresh[i]').same_lane })),
        p.load_number,
      ),
    );
    added.push(
      ...(await activateOutreaches(
        tx,
        inserted.map((o) => o.id),
      )),
    );
    log.info(
      { carrierId: p.carrier_id, outreachId: p.id, loads: fresh.length, channel: p.modality },
      'agent: loads that came in since the contact was planned added to it',
    );
  }
  return added;
}
