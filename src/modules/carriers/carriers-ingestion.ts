import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { pathToParam } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { type AuditEntry, insertAudit } from '../audit/index.js';
import { toCarrier } from './carrier-shape.js';
import { emitEvents } from './carriers-events.js';
import {
  type Candidate,
  type CarrierUpdate,
  type CarrierValues,
  contactsOf,
  findCarriers,
  insertCarriers,
  matchCandidates,
  type NewCarrier,
  type NewContact,
  replaceContacts,
  updateCarriers,
  WRITABLE_COLUMNS,
  type WritableColumn,
} from './carriers-repository.js';
import type { CarrierInput, LanePreferenceInput } from './carriers-schemas.js';
import type { ComplianceService } from './compliance-service.js';
import { ensureLanes, insertPreferences, laneIdentity, laneKeyOf } from './lanes-repository.js';

export interface ItemError {
  code: string;
  message: string;
  param: string | null;
  status: number;
}

export interface IngestItem {
  index: number;
  /** Where the item's fields live in the request body, for error params: ['carriers', 3, 'carrier']. */
  path: (string | number)[];
  carrier: CarrierInput;
  lanes: LanePreferenceInput[];
}

export interface ItemOutcome {
  index: number;
  status: 'created' | 'updated' | 'skipped' | 'failed';
  id: string | null;
  identifier: string;
  external_id: string | null;
  error: ItemError | null;
  lanes_created: number;
}

const IDENTIFIERS = ['tms_carrier_id', 'mc_number', 'dot_number'] as const;
const RECHECK_FIELDS = new Set<string>(['mc_number', 'dot_number', 'phone', 'email']);
const LABEL = { tms_carrier_id: 'tms_carrier_id', mc_number: 'MC number', dot_number: 'DOT number' } as const;

export const identifierOf = (c: { name?: string | null; mc_number?: string | null }, index: number) =>
  c.name ?? (c.mc_number ? `MC ${c.mc_number}` : `#${index}`);

const isWritableColumn = (key: string): key is WritableColumn => key in WRITABLE_COLUMNS;

/** The writable fields an input sent (present in the parsed object, even as null). */
function sentValues(carrier: CarrierInput): { sent: WritableColumn[]; values: CarrierValues } {
  const sent: WritableColumn[] = [];
  const values: CarrierValues = {};
  for (const column of Object.keys(carrier).filter(isWritableColumn)) {
    sent.push(column);
    const value = carrier[column];
    values[column] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return { sent, values };
}

type Plan =
  | { kind: 'create'; item: IngestItem; id: string }
  | { kind: 'update'; item: IngestItem; target: Candidate }
  | { kind: 'skip'; item: IngestItem; error: ItemError }
  | { kind: 'fail'; item: IngestItem; error: ItemError };

/**
 * Decides, in request order, what each item does: match order tms_carrier_id, then MC, then DOT,
 * then case-insensitive name (a name match never merges carriers whose identifiers differ); an item
 * repeating an earlier item's identifier or target is skipped; an identifier that belongs to another
 * carrier is a conflict.
 */
export function planIngestion(items: IngestItem[], candidates: Candidate[]): Plan[] {
  const holders = {
    tms_carrier_id: new Map<string, Candidate>(),
    mc_number: new Map<string, Candidate>(),
    dot_number: new Map<string, Candidate>(),
  };
  const byName = new Map<string, Candidate[]>();
  for (const c of candidates) {
    for (const f of IDENTIFIERS) if (c[f]) holders[f].set(defined(c[f], 'c[f]'), c);
    const list = byName.get(c.name.toLowerCase()) ?? [];
    list.push(c);
    byName.set(c.name.toLowerCase(), list);
  }
  const seen = {
    tms_carrier_id: new Set<string>(),
    mc_number: new Set<string>(),
    dot_number: new Set<string>(),
  };
  const targeted = new Set<string>();
  const newNames = new Set<string>();
  const plans: Plan[] = [];

  for (const item of items) {
    const c = item.carrier;
    const param = (field: string) => pathToParam([...item.path, field]);
    const repeated = IDENTIFIERS.find((f) => c[f] && seen[f].has(defined(c[f], 'c[f]')));
    if (repeated) {
      plans.push({
        kind: 'skip',
        item,
        error: {
          code: 'duplicate_in_batch',
          message: `An earlier item of this request has the same ${LABEL[repeated]} '${c[repeated]}'`,
          param: param(repeated),
          status: 422,
        },
      });
      continue;
    }
    const compatible = (cand: Candidate) => IDENTIFIERS.every((f) => !c[f] || !cand[f] || c[f] === cand[f]);
    const target =
      (c.tms_carrier_id ? holders.tms_carrier_id.get(c.tms_carrier_id) : undefined) ??
      (c.mc_number ? holders.mc_number.get(c.mc_number) : undefined) ??
      (c.dot_number ? holders.dot_number.get(c.dot_number) : undefined) ??
      byName.get(c.name.toLowerCase())?.find(compatible);

    if (
      target ? targeted.has(target.id) : newNames.has(c.name.toLowerCase()) && !IDENTIFIERS.some((f) => c[f])
    ) {
      plans.push({
        kind: 'skip',
        item,
        error: {
          code: 'duplicate_in_batch',
          message: 'An earlier item of this request already names the same carrier',
          param: param('name'),
          status: 422,
        },
      });
      continue;
    }
    const clash = IDENTIFIERS.find((f) => {
      const holder = c[f] ? holders[f].get(defined(c[f], 'c[f]')) : undefined;
      return holder && holder.id !== target?.id;
    });
    if (clash) {
      plans.push({
        kind: 'fail',
        item,
        error: {
          code: 'already_exists',
          message: `${LABEL[clash]} '${c[clash]}' belongs to another carrier ('${defined(holders[clash].get(defined(c[clash], 'c[clash]')), 'holders[clash].get(c[clash])').id}')`,
          param: param(clash),
          status: 409,
        },
      });
      continue;
    }
    for (const f of IDENTIFIERS) if (c[f]) seen[f].add(defined(c[f], 'c[f]'));
    if (target) {
      targeted.add(target.id);
      plans.push({ kind: 'update', item, target });
    } else {
      newNames.add(c.name.toLowerCase());
      plans.push({ kind: 'create', item, id: newId('carrier') });
    }
  }
  return plans;
}

export interface IngestOptions {
  method: 'api' | 'batch' | 'csv';
  /** Set for single creates, which check compliance inline: the worker waits this long first. */
  inlineCheckGraceSeconds?: number;
}

export class CarrierIngestion {
  constructor(
    private readonly db: Db,
    private readonly compliance: ComplianceService,
  ) {}

  /**
   * Applies the items in one transaction with one statement per table, whatever their number.
   * Ingestion of one organization is serialised by an advisory lock, so matching sees every
   * carrier an earlier request created.
   */
  async ingest(scope: OrgScope, items: IngestItem[], options: IngestOptions): Promise<ItemOutcome[]> {
    const outcomes = new Map<number, ItemOutcome>();
    await this.db.transaction(async (tx) => {
      await tx.execute(
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${`carriers:${scope.organizationId}`}, 0))`,
      );
      const keys = {
        tms: new Set<string>(),
        mc: new Set<string>(),
        dot: new Set<string>(),
        names: new Set<string>(),
      };
      for (const { carrier: c } of items) {
        if (c.tms_carrier_id) keys.tms.add(c.tms_carrier_id);
        if (c.mc_number) keys.mc.add(c.mc_number);
        if (c.dot_number) keys.dot.add(c.dot_number);
        keys.names.add(c.name.toLowerCase());
      }
      const candidates = await matchCandidates(tx, scope, {
        tms: [...keys.tms],
        mc: [...keys.mc],
        dot: [...keys.dot],
        names: [...keys.names],
      });
      const plans = planIngestion(items, candidates);
      await this.apply(tx, scope, plans, options, outcomes);
    });
    return items.map((item) => defined(outcomes.get(item.index), 'outcomes.get(item.index)'));
  }

  private async apply(
    tx: Tx,
    scope: OrgScope,
    plans: Plan[],
    options: IngestOptions,
    out: Map<number, ItemOutcome>,
  ) {
    const { inserts, updates, audits, contactOwners, contacts, laneRequests } = writesOf(plans, options, out);

    await insertCarriers(tx, scope, inserts);
    await updateCarriers(tx, scope, updates);
    await insertAudit(tx, scope, audits, () => newId('audit'));
    await replaceContacts(tx, scope, contactOwners, contacts);
    if (options.inlineCheckGraceSeconds !== undefined) {
      const ids = [...inserts.map((i) => i.id), ...updates.map((u) => u.id)];
      await tx.execute(sql`
        UPDATE carriers SET compliance_check_due_at = envoy_now() + ${`${options.inlineCheckGraceSeconds} seconds`}::interval
        WHERE organization_id = ${scope.organizationId} AND id = ANY(${sql.param(ids)}::text[])`);
    }
    if (laneRequests.length) await createLanePreferences(tx, scope, laneRequests, out);
    // Fraud known locally blocks at once; the provider check follows in the background.
    const touched = [...inserts.map((i) => i.id), ...updates.filter((u) => u.recheck).map((u) => u.id)];
    await this.compliance.blockSharedContacts(tx, scope.organizationId, touched);

    await emitCarrierEvents(tx, scope, inserts, updates);
  }
}

/** The rows one ingestion writes, from its plans; records each item's outcome in `out`. */
function writesOf(plans: Plan[], options: IngestOptions, out: Map<number, ItemOutcome>) {
  const inserts: NewCarrier[] = [];
  const updates: CarrierUpdate[] = [];
  const audits: AuditEntry[] = [];
  const contactOwners: string[] = [];
  const contacts: NewContact[] = [];
  const laneRequests: LaneRequest[] = [];

  for (const plan of plans) {
    const { item } = plan;
    const c = item.carrier;
    const base = {
      index: item.index,
      identifier: identifierOf(c, item.index),
      external_id: c.tms_carrier_id ?? null,
      lanes_created: 0,
    };
    if (plan.kind === 'skip' || plan.kind === 'fail') {
      out.set(item.index, {
        ...base,
        status: plan.kind === 'skip' ? 'skipped' : 'failed',
        id: null,
        error: plan.error,
      });
      continue;
    }
    const { sent, values } = sentValues(c);
    let carrierId: string;
    if (plan.kind === 'create') {
      carrierId = plan.id;
      inserts.push({
        id: carrierId,
        values,
        is_active: c.is_active !== false,
        ingestion_method: options.method,
      });
      out.set(item.index, { ...base, status: 'created', id: carrierId, error: null });
    } else {
      carrierId = plan.target.id;
      const disable = c.is_active === false && plan.target.is_active;
      updates.push({
        id: carrierId,
        sent,
        values,
        disable,
        ingestion_method: options.method,
        recheck: sent.some((f) => RECHECK_FIELDS.has(f)),
      });
      if (disable) {
        audits.push({
          entity_type: 'carrier',
          entity_id: carrierId,
          action: 'disable',
          reason_note: 'is_active false in an ingestion',
          before: { is_active: true },
          after: { is_active: false },
        });
      }
      out.set(item.index, { ...base, status: 'updated', id: carrierId, error: null });
    }
    if (c.contacts) {
      contactOwners.push(carrierId);
      c.contacts.forEach((contact, position) => {
        contacts.push({
          id: newId('contact'),
          carrier_id: carrierId,
          contact_type: contact.contact_type,
          name: contact.name ?? null,
          phone: contact.phone ?? null,
          email: contact.email ?? null,
          equipment_type: contact.equipment_type ?? null,
          position,
        });
      });
    }
    for (const lane of item.lanes) laneRequests.push({ carrierId, input: lane });
  }
  return { inserts, updates, audits, contactOwners, contacts, laneRequests };
}

type LaneRequest = { carrierId: string; input: LanePreferenceInput };

/** The carriers' lane preferences (lanes created or reused); counts each outcome's new ones. */
async function createLanePreferences(
  tx: Tx,
  scope: OrgScope,
  laneRequests: LaneRequest[],
  out: Map<number, ItemOutcome>,
) {
  const laneIds = await ensureLanes(
    tx,
    scope,
    laneRequests.map((r) => laneKeyOf(r.input)),
  );
  const created = await insertPreferences(
    tx,
    scope,
    laneRequests.map((r) => ({
      carrier_id: r.carrierId,
      lane_id: defined(
        laneIds.get(laneIdentity(laneKeyOf(r.input))),
        'laneIds.get(laneIdentity(laneKeyOf(r.input)))',
      ),
      preference_type: r.input.preference_type ?? 'primary',
      routing_guide_tier: r.input.routing_guide_tier ?? null,
    })),
  );
  const perCarrier = new Map<string, number>();
  for (const row of created) perCarrier.set(row.carrier_id, (perCarrier.get(row.carrier_id) ?? 0) + 1);
  for (const outcome of out.values()) {
    if (outcome.id && perCarrier.has(outcome.id)) {
      outcome.lanes_created = defined(perCarrier.get(outcome.id), 'perCarrier.get(outcome.id)');
      perCarrier.delete(outcome.id);
    }
  }
}

/** carrier.created, .updated and .disabled events for what one ingestion wrote. */
async function emitCarrierEvents(tx: Tx, scope: OrgScope, inserts: NewCarrier[], updates: CarrierUpdate[]) {
  // Webhook events, in this transaction; payloads are read in one go, only if someone listens.
  let payloads: Promise<Map<string, unknown>> | undefined;
  const payload = (id: string) => async () => {
    payloads ??= (async () => {
      const ids = [...inserts.map((i) => i.id), ...updates.map((u) => u.id)];
      const [rows, contacts] = await Promise.all([findCarriers(tx, scope, ids), contactsOf(tx, scope, ids)]);
      return new Map(rows.map((r) => [r.id, toCarrier(r, contacts.get(r.id))]));
    })();
    return (await payloads).get(id) ?? { id };
  };
  await emitEvents(tx, scope.organizationId, [
    ...inserts.map((i) => ({ type: 'carrier.created' as const, data: payload(i.id) })),
    ...updates.map((u) => ({ type: 'carrier.updated' as const, data: payload(u.id) })),
    ...updates
      .filter((u) => u.disable)
      .map((u) => ({ type: 'carrier.disabled' as const, data: payload(u.id) })),
  ]);
}
