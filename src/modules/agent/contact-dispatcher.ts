import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { bundledFirstContact } from '../../domain/bundled-offers.js';
import { replyText } from '../../domain/negotiation.js';
import { type OrgScope, systemScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { findCarrier, heldByStrictMode } from '../carriers/index.js';
import {
  activateOutreaches,
  cancelAutomatedOutreaches,
  failOutreach,
  type OutreachRow,
  stampSent,
} from '../outreaches/index.js';
import type { AgentMessenger } from './agent-messenger.js';
import { type AgentLoad, agentLoadOf, type DueOutreach, dueOutreaches } from './agent-repository.js';
import { topUpAtSend } from './send-top-up.js';

/**
 * Places the agent's calls: the calls module's service answers it (the agent needs no more of
 * the calls module than this).
 */
export interface CallPlacer {
  create(
    scope: OrgScope,
    input: {
      phone_number: string;
      load_id: string;
      call_type: 'LOAD_BOOKING';
      template_variables: Record<string, unknown>;
    },
    context: { carrier_id: string; outreach_ids: string[] },
  ): Promise<{ id: string }>;
}

/**
 * Sends the contacts the planner queued once their time has come: a call through the calls
 * module, a first e-mail or WhatsApp message through the messenger.
 */
export class ContactDispatcher {
  constructor(
    private readonly db: Db,
    private readonly calls: CallPlacer,
    private readonly messenger: AgentMessenger,
    private readonly log: FastifyBaseLogger,
    private readonly batchSize: number,
  ) {}

  /**
   * Sends queued automated contacts whose time has come. Each is claimed (pending to active, or
   * to failed when the guard or the load says no) in one statement with SKIP LOCKED, so two
   * instances never send one twice; a carrier's contact of its own takes, in the same transaction,
   * the loads that came in since it was planned (topUpAtSend). The channel is called after the
   * commit. A crash between the two leaves the outreach active without a message: it ends
   * no_response rather than contacting a carrier twice.
   */
  async dispatchDue(organizationId?: string): Promise<number> {
    const claimed = await this.db.transaction(async (tx) => {
      const due = await dueOutreaches(tx, this.batchSize, organizationId);
      const sendable = (d: DueOutreach) => !d.refusal && d.workable && !d.late_join;
      for (const r of due.filter((d) => !sendable(d))) {
        const reason = r.refusal
          ? `not contacted: ${r.refusal.split(':')[0]}`
          : !r.workable
            ? 'cancelled: the load is no longer worked'
            : 'cancelled: the contact it joined had gone out';
        await cancelAutomatedOutreaches(tx, { ids: [r.id] }, reason);
      }
      const taken = await activateOutreaches(
        tx,
        due.filter(sendable).map((d) => d.id),
      );
      return [...taken, ...(await topUpAtSend(tx, taken, this.log))];
    });
    // Outreaches of one bundle (loads of a lane for one carrier) go out as one message.
    const bundles = new Map<string, OutreachRow[]>();
    for (const o of claimed) {
      const key = o.bundle_id ?? o.id;
      bundles.set(key, [...(bundles.get(key) ?? []), o]);
    }
    for (const group of bundles.values()) {
      if (group.length === 1) await this.sendOrFail(defined(group[0], 'group[0]'));
      else await this.sendBundleOrFail(group);
    }
    return claimed.length;
  }

  /**
   * Sends one first message naming every load of the bundle, on the first outreach's channel and
   * address; each outreach of the bundle is stamped with it and keeps it in its conversation. A
   * bundle on the phone is one call offering each load of it.
   */
  private async sendBundleOrFail(group: OutreachRow[]): Promise<void> {
    const first =
      group.find((o) => o.bundle_id === null) ?? defined(group[0], 'the first outreach of the bundle');
    const ids = { carrierId: first.carrier_id, outreachIds: group.map((o) => o.id) };
    try {
      if (first.modality === 'call') {
        await this.placeCall(first, group);
        return;
      }
      const carrier = defined(
        await findCarrier(this.db, systemScope(first.organization_id), first.carrier_id),
        'carrier of the outreach',
      );
      const loads = await this.sayableTo(
        carrier,
        (await Promise.all(group.map((o) => agentLoadOf(this.db, o.organization_id, o.load_id)))).filter(
          (l): l is AgentLoad => l !== null,
        ),
      );
      const text = bundledFirstContact(loads, carrier.name);
      const externalId = await this.messenger.deliver(
        first,
        defined(loads[0], 'loads[0]'),
        text,
        null,
        loads,
      );
      for (const o of group) {
        await stampSent(this.db, o.id, externalId);
        await this.messenger.record(o, 'outbound', 'first_contact', text, externalId);
      }
      this.log.info(
        { ...ids, channel: first.modality, loads: loads.length },
        'agent: one message for several loads sent',
      );
    } catch (err) {
      this.log.warn({ err, ...ids }, 'agent: contact failed');
      const reason = err instanceof Error ? err.message : 'the channel refused the contact';
      for (const o of group) await failOutreach(this.db, o, reason);
    }
  }

  /**
   * Places the call of `primary` (about its load), carrying every outreach of `group`: the other
   * loads of the lane are offered on the same call, and the call's outcome ends each of them.
   */
  private async placeCall(primary: OutreachRow, group: readonly OutreachRow[]): Promise<void> {
    const call = await this.calls.create(
      systemScope(primary.organization_id),
      {
        phone_number: defined(primary.address, 'primary.address'),
        load_id: primary.load_id,
        call_type: 'LOAD_BOOKING',
        template_variables: { purpose: 'load_booking', automated: true },
      },
      {
        carrier_id: primary.carrier_id,
        outreach_ids: [primary.id, ...group.filter((o) => o.id !== primary.id).map((o) => o.id)],
      },
    );
    this.log.info(
      { loadId: primary.load_id, carrierId: primary.carrier_id, callId: call.id, loads: group.length },
      'agent: call placed',
    );
  }

  /** Strict mode: a carrier that has not passed vetting is told no rate in a first message. */
  private async sayableTo(
    carrier: Parameters<typeof heldByStrictMode>[1],
    loads: AgentLoad[],
  ): Promise<AgentLoad[]> {
    if (!(await heldByStrictMode(this.db, carrier))) return loads;
    return loads.map((l) => ({ ...l, posted_rate: null }));
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
      await failOutreach(
        this.db,
        outreach,
        err instanceof Error ? err.message : 'the channel refused the contact',
      );
    }
  }

  /** Sends one outreach now on its channel (the agent's queued ones, and POST /outreaches e-mail and WhatsApp). */
  async send(outreach: OutreachRow): Promise<void> {
    const scope = systemScope(outreach.organization_id);
    const load = defined(
      await agentLoadOf(this.db, outreach.organization_id, outreach.load_id),
      'load of the outreach',
    );
    const ids = { loadId: load.id, carrierId: outreach.carrier_id, outreachId: outreach.id };
    if (outreach.modality === 'call') {
      await this.placeCall(outreach, [outreach]);
      return;
    }
    const carrier = defined(
      await findCarrier(this.db, scope, outreach.carrier_id),
      'carrier of the outreach',
    );
    const sayable = defined((await this.sayableTo(carrier, [load]))[0], 'the sayable load');
    const text = replyText('first_contact', sayable, carrier.name);
    const externalId = await this.messenger.deliver(outreach, sayable, text, null);
    await stampSent(this.db, outreach.id, externalId);
    await this.messenger.record(outreach, 'outbound', 'first_contact', text, externalId);
    this.log.info({ ...ids, channel: outreach.modality }, 'agent: message sent');
  }
}
