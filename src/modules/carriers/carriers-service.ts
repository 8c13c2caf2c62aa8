import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { batchEnvelope } from '../../domain/batch-envelope.js';
import {
  AppError,
  conflict,
  notFound,
  pathToParam,
  unprocessable,
  validationFailed,
} from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { parseCsv } from '../../lib/csv.js';
import { LOAD_ID_IN_BODY, requireLoad } from '../loads/load-lookup.js';
import { loads } from '../loads/loads-tables.js';
import { emitEvent } from '../webhooks/events.js';
import { carrierPayload, toCarrier } from './carrier-shape.js';
import { CarrierIngestion, type IngestItem, type ItemOutcome } from './carriers-ingestion.js';
import {
  auditOf,
  complianceChecksOf,
  contactsOf,
  findCarrier,
  insertAudit,
  listCarriers,
  matchCandidates,
  setCarrierFields,
  updateCarriers,
  WRITABLE_COLUMNS,
  type WritableColumn,
} from './carriers-repository.js';
import {
  type BatchResult,
  batchItemInput,
  type Carrier,
  type CarrierInput,
  type CarrierPatch,
  carrierInput,
  type DisableForLoadInput,
  type LanePreference,
  type LanePreferenceInput,
  type ListCarriersQuery,
  MAX_BATCH,
} from './carriers-schemas.js';
import type { lanePreferences, lanes } from './carriers-tables.js';
import type { ComplianceService } from './compliance-service.js';
import {
  ensureLanes,
  findPreference,
  findPreferenceOnLane,
  insertPreferences,
  laneIdentity,
  laneKeyOf,
  listPreferences,
  setPreferenceFields,
} from './lanes-repository.js';
import type { StopContactRequests } from './stop-contact.js';

type Reason = { reason?: string | null; reason_note?: string | null };

/** A lazy carrier.* payload: the public Carrier shape read inside the caller's transaction. */
export function toLanePreference(row: {
  preference: typeof lanePreferences.$inferSelect;
  lane: typeof lanes.$inferSelect;
}): LanePreference {
  const { preference: p, lane: l } = row;
  return {
    id: p.id,
    carrier_id: p.carrier_id,
    lane_id: p.lane_id,
    is_active: p.is_active,
    preference_type: p.preference_type,
    routing_guide_tier: p.routing_guide_tier,
    dnu: p.dnu,
    dnu_reason: p.dnu_reason,
    dnu_set_at: p.dnu_set_at,
    created_at: p.created_at,
    updated_at: p.updated_at,
    lane: {
      id: l.id,
      origin: { city: l.origin_city, state: l.origin_state, country: l.origin_country },
      destination: { city: l.destination_city, state: l.destination_state, country: l.destination_country },
      equipment_type: l.equipment_type,
    },
  };
}

/** Turns a failed item's error into the AppError a single create answers with. */
const itemError = (o: ItemOutcome) =>
  new AppError(o.error!.status, o.error!.code, o.error!.message, o.error!.param);

const CSV_BOOLEAN: Record<string, boolean> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  '1': true,
  '0': false,
};
const CSV_NUMBERS = new Set([
  'on_time_delivery_pct',
  'on_time_pickup_pct',
  'tracking_compliance_pct',
  'avg_response_time_min',
  'total_loads_hauled',
  'routing_guide_tier',
]);
const CSV_BOOLEANS = new Set(['is_onboarded', 'is_active', 'w9_on_file']);

/** CSV rows to `{carrier}` items: header names are CarrierCreateRequest fields; empty cells are absent. */
function itemsFromCsv(text: string): unknown[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw validationFailed('body', [], 'The CSV upload has no header row', 'csv_invalid');
  const names = header.map((h) => h.trim());
  const known = new Set(Object.keys(carrierInput.shape));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) {
    throw validationFailed(
      'body',
      [],
      `Unknown CSV column${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      'csv_invalid',
    );
  }
  return rows.map((cells) => {
    const carrier: Record<string, unknown> = {};
    names.forEach((name, i) => {
      const raw = (cells[i] ?? '').trim();
      if (raw === '') return;
      if (CSV_NUMBERS.has(name)) carrier[name] = Number.isNaN(Number(raw)) ? raw : Number(raw);
      else if (CSV_BOOLEANS.has(name)) carrier[name] = CSV_BOOLEAN[raw.toLowerCase()] ?? raw;
      else if (name === 'equipment_types')
        carrier[name] = raw
          .split(/[;|]/)
          .map((s) => s.trim())
          .filter(Boolean);
      else carrier[name] = raw;
    });
    return { carrier };
  });
}

export interface CarriersOptions {
  inlineBudgetMs: number;
}

export class CarriersService {
  private readonly ingestion: CarrierIngestion;

  constructor(
    private readonly db: Db,
    private readonly compliance: ComplianceService,
    private readonly options: CarriersOptions,
    private readonly stopContact: StopContactRequests,
  ) {
    this.ingestion = new CarrierIngestion(db, compliance);
  }

  async view(scope: OrgScope, id: string): Promise<Carrier> {
    const row = await findCarrier(this.db, scope, id);
    if (!row) throw notFound('Carrier', id, 'carrier_id');
    const contacts = await contactsOf(this.db, scope, [id]);
    return toCarrier(row, contacts.get(id));
  }

  /** POST /carriers: create or update one carrier, then check compliance within the inline budget. */
  async createOne(scope: OrgScope, carrier: CarrierInput): Promise<{ created: boolean; carrier: Carrier }> {
    // The background worker leaves the carrier alone while the inline check may still be running.
    const graceSeconds = Math.ceil(this.options.inlineBudgetMs / 1000) + 1;
    const [outcome] = await this.ingestion.ingest(scope, [{ index: 0, path: [], carrier, lanes: [] }], {
      method: 'api',
      inlineCheckGraceSeconds: graceSeconds,
    });
    if (!outcome?.id) throw itemError(outcome!);
    try {
      await this.compliance.check(
        scope.organizationId,
        outcome.id,
        AbortSignal.timeout(this.options.inlineBudgetMs),
      );
    } catch {
      // Over budget: the carrier stays UNVERIFIED and the background worker checks it shortly.
    }
    return { created: outcome.status === 'created', carrier: await this.view(scope, outcome.id) };
  }

  /** POST /carriers/batch: JSON items or a CSV upload; every item gets an outcome. */
  async batch(
    scope: OrgScope,
    body: { carriers: unknown[] } | string,
  ): Promise<{ status: 200 | 207; body: BatchResult }> {
    const csv = typeof body === 'string';
    const raw = csv ? itemsFromCsv(body) : body.carriers;
    if (raw.length === 0)
      throw validationFailed('body', ['carriers'], 'At least one carrier is required', 'too_small');
    if (raw.length > MAX_BATCH) {
      throw validationFailed('body', ['carriers'], `At most ${MAX_BATCH} carriers per request`, 'too_big');
    }
    const valid: IngestItem[] = [];
    const invalid = new Map<number, ItemOutcome>();
    raw.forEach((entry, index) => {
      const parsed = batchItemInput.safeParse(entry);
      if (parsed.success) {
        valid.push({
          index,
          path: ['carriers', index, 'carrier'],
          carrier: parsed.data.carrier,
          lanes: parsed.data.lanes ?? [],
        });
        return;
      }
      const issue = parsed.error.issues[0]!;
      const path = ['carriers', index, ...(issue.path as (string | number)[])];
      const missing = issue.code === 'invalid_type' && issue.message.includes('received undefined');
      const maybe = (entry as { carrier?: { name?: unknown; mc_number?: unknown } } | null)?.carrier;
      invalid.set(index, {
        index,
        status: 'failed',
        id: null,
        identifier: typeof maybe?.name === 'string' ? maybe.name : `#${index}`,
        external_id: null,
        lanes_created: 0,
        error: {
          code: 'validation_error',
          message: missing ? 'Field required' : issue.message,
          param: pathToParam(path),
          status: 422,
        },
      });
    });
    const applied = valid.length
      ? await this.ingestion.ingest(scope, valid, { method: csv ? 'csv' : 'batch' })
      : [];
    const outcomes = [...applied, ...invalid.values()].sort((a, b) => a.index - b.index);
    return this.envelope(outcomes);
  }

  /** The batch answer; `errors` only when some item was not applied (207). */
  private envelope(outcomes: ItemOutcome[]): { status: 200 | 207; body: BatchResult } {
    const { errors, ...envelope } = batchEnvelope(outcomes, (o, shared) => ({
      identifier: o.identifier,
      carrier_id: o.id,
      lanes_created: o.lanes_created,
      ...shared,
    }));
    const body: BatchResult = { ...envelope, total: outcomes.length };
    if (!envelope.success) body.errors = errors;
    return { status: envelope.success ? 200 : 207, body };
  }

  /** PATCH: only sent fields change; is_active is refused; identifiers stay unique. */
  async patch(scope: OrgScope, id: string, parsed: CarrierPatch): Promise<Carrier> {
    if ('is_active' in parsed) {
      throw unprocessable(
        'field_not_updatable',
        'is_active cannot be changed here; use POST /carriers/{carrier_id}/disable or /enable',
        'is_active',
      );
    }
    const sent = Object.keys(parsed).filter((k): k is WritableColumn => k in WRITABLE_COLUMNS);
    const values: Record<string, unknown> = {};
    for (const k of sent) {
      const v = parsed[k as keyof typeof parsed];
      values[k] = v instanceof Date ? v.toISOString() : (v ?? null);
    }
    if (sent.includes('name') && values.name === null) {
      throw validationFailed('body', ['name'], 'name cannot be null');
    }
    await this.db.transaction(async (tx) => {
      await tx.execute(
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${`carriers:${scope.organizationId}`}, 0))`,
      );
      const current = await findCarrier(tx, scope, id, true);
      if (!current) throw notFound('Carrier', id, 'carrier_id');
      const ids = { tms: [] as string[], mc: [] as string[], dot: [] as string[] };
      if (values.tms_carrier_id) ids.tms.push(values.tms_carrier_id as string);
      if (values.mc_number) ids.mc.push(values.mc_number as string);
      if (values.dot_number) ids.dot.push(values.dot_number as string);
      const holders = await matchCandidates(tx, scope, { ...ids, names: [] });
      for (const field of ['tms_carrier_id', 'mc_number', 'dot_number'] as const) {
        const holder = values[field]
          ? holders.find((h) => h[field] === values[field] && h.id !== id)
          : undefined;
        if (holder)
          throw conflict(`${field} '${values[field]}' belongs to another carrier ('${holder.id}')`, field);
      }
      await updateCarriers(tx, scope, [
        {
          id,
          sent,
          values,
          disable: false,
          ingestion_method: null,
          recheck: sent.some((f) => ['mc_number', 'dot_number', 'phone', 'email'].includes(f)),
        },
      ]);
      await emitEvent(tx, scope.organizationId, 'carrier.updated', carrierPayload(tx, scope, id));
    });
    return this.view(scope, id);
  }

  /** Disable or enable; a change writes an audit row in the same transaction, a repeat writes none. */
  async setActive(scope: OrgScope, id: string, active: boolean, reason: Reason): Promise<Carrier> {
    await this.db.transaction(async (tx) => {
      const current = await findCarrier(tx, scope, id, true);
      if (!current) throw notFound('Carrier', id, 'carrier_id');
      if (current.is_active === active) return;
      await setCarrierFields(tx, scope, id, { is_active: active });
      await insertAudit(
        tx,
        scope,
        [
          {
            entity_type: 'carrier',
            entity_id: id,
            action: active ? 'enable' : 'disable',
            reason: reason.reason ?? null,
            reason_note: reason.reason_note ?? null,
            before: { is_active: current.is_active },
            after: { is_active: active },
          },
        ],
        () => newId('audit'),
      );
      await emitEvent(
        tx,
        scope.organizationId,
        active ? 'carrier.enabled' : 'carrier.disabled',
        carrierPayload(tx, scope, id),
      );
    });
    return this.view(scope, id);
  }

  /** A rep records that the carrier asked not to be contacted (the one rule: `StopContactRequests`). */
  async requestStopContact(scope: OrgScope, id: string): Promise<Carrier> {
    if (!(await this.stopContact.request(scope, id, 'api'))) throw notFound('Carrier', id, 'carrier_id');
    return this.view(scope, id);
  }

  async clearStopContact(scope: OrgScope, id: string): Promise<Carrier> {
    await this.db.transaction(async (tx) => {
      const current = await findCarrier(tx, scope, id, true);
      if (!current) throw notFound('Carrier', id, 'carrier_id');
      if (!current.stop_contact_requested_at) return;
      await setCarrierFields(tx, scope, id, { stop_contact_requested_at: null });
      await insertAudit(
        tx,
        scope,
        [
          {
            entity_type: 'carrier',
            entity_id: id,
            action: 'stop_contact_cleared',
            before: { stop_contact_requested_at: current.stop_contact_requested_at },
            after: { stop_contact_requested_at: null },
          },
        ],
        () => newId('audit'),
      );
    });
    return this.view(scope, id);
  }

  async list(scope: OrgScope, q: ListCarriersQuery) {
    const { rows, total } = await listCarriers(this.db, scope, q);
    const contacts = await contactsOf(
      this.db,
      scope,
      rows.map((r) => r.carrier.id),
    );
    return {
      data: rows.map((r) => toCarrier(r.carrier, contacts.get(r.carrier.id), r.lane_routing_guide_tier)),
      pagination: pagination(q.page, q.page_size, total),
    };
  }

  async complianceChecks(scope: OrgScope, id: string) {
    await this.requireCarrier(scope, id);
    return complianceChecksOf(this.db, scope, id, 100);
  }

  async audit(scope: OrgScope, id: string) {
    return auditOf(this.db, scope, id);
  }

  /** The audit rows of one of the carrier's lane preferences; 404 when it is not the carrier's. */
  async lanePreferenceAudit(scope: OrgScope, carrierId: string, preferenceId: string) {
    await this.requireCarrier(scope, carrierId);
    if (!(await findPreference(this.db, scope, carrierId, preferenceId))) {
      throw notFound('Lane preference', preferenceId, 'preference_id');
    }
    const rows = await auditOf(this.db, scope, preferenceId);
    return rows.filter((r) => r.entity_type === 'lane_preference');
  }

  // Lane preferences

  private async requireCarrier(scope: OrgScope, carrierId: string) {
    const row = await findCarrier(this.db, scope, carrierId);
    if (!row) throw notFound('Carrier', carrierId, 'carrier_id');
    return row;
  }

  async listLanePreferences(
    scope: OrgScope,
    carrierId: string,
    q: { page: number; page_size: number; is_active?: boolean },
  ) {
    await this.requireCarrier(scope, carrierId);
    const { rows, total } = await listPreferences(this.db, scope, carrierId, q);
    return { data: rows.map(toLanePreference), pagination: pagination(q.page, q.page_size, total) };
  }

  async createLanePreference(
    scope: OrgScope,
    carrierId: string,
    input: LanePreferenceInput,
  ): Promise<LanePreference> {
    await this.requireCarrier(scope, carrierId);
    const key = laneKeyOf(input);
    const id = await this.db.transaction(async (tx) => {
      const laneIds = await ensureLanes(tx, scope, [key]);
      const laneId = laneIds.get(laneIdentity(key))!;
      const [created] = await insertPreferences(tx, scope, [
        {
          carrier_id: carrierId,
          lane_id: laneId,
          preference_type: input.preference_type ?? 'primary',
          routing_guide_tier: input.routing_guide_tier ?? null,
        },
      ]);
      if (!created) {
        const existing = await findPreferenceOnLane(tx, scope, carrierId, laneId);
        throw conflict(
          `The carrier already has a preference on this lane ('${existing?.preference.id}')`,
          'origin',
        );
      }
      return created.id;
    });
    return toLanePreference((await findPreference(this.db, scope, carrierId, id))!);
  }

  /**
   * DESIGN.md section 5: an `admin_disabled` preference on the load's lane: the load's first pickup
   * and last drop-off (cities and states) and its equipment, the narrowest lane the load names. A
   * preference the carrier already holds on that lane turns admin_disabled (and active); audited.
   */
  async disableForLoad(
    scope: OrgScope,
    carrierId: string,
    input: DisableForLoadInput,
  ): Promise<{ created: boolean; preference: LanePreference }> {
    await this.requireCarrier(scope, carrierId);
    const load = await requireLoad(this.db, scope, input.load_id, LOAD_ID_IN_BODY, {
      origin_city: loads.origin_city,
      origin_state: loads.origin_state,
      destination_city: loads.destination_city,
      destination_state: loads.destination_state,
      equipment_type: loads.equipment_type,
    });
    if (!load.origin_state || !load.destination_state) {
      throw unprocessable(
        'validation_error',
        `Load '${input.load_id}' has no pickup and drop-off states, so it names no lane`,
        'load_id',
      );
    }
    const key = laneKeyOf({
      origin: { city: load.origin_city, state: load.origin_state },
      destination: { city: load.destination_city, state: load.destination_state },
      equipment_type: load.equipment_type as LanePreferenceInput['equipment_type'],
    });
    const { id, created } = await this.db.transaction(async (tx) => {
      const laneId = (await ensureLanes(tx, scope, [key])).get(laneIdentity(key))!;
      const [inserted] = await insertPreferences(tx, scope, [
        {
          carrier_id: carrierId,
          lane_id: laneId,
          preference_type: 'admin_disabled',
          routing_guide_tier: null,
        },
      ]);
      const current = inserted
        ? null
        : (await findPreferenceOnLane(tx, scope, carrierId, laneId))!.preference;
      const preferenceId = inserted?.id ?? current!.id;
      if (current && current.preference_type === 'admin_disabled' && current.is_active) {
        return { id: preferenceId, created: false };
      }
      if (current) {
        await setPreferenceFields(tx, scope, preferenceId, {
          preference_type: 'admin_disabled',
          is_active: true,
        });
      }
      await insertAudit(
        tx,
        scope,
        [
          {
            entity_type: 'lane_preference',
            entity_id: preferenceId,
            action: 'disable_for_load',
            reason: input.reason ?? null,
            reason_note: input.reason_note ?? null,
            before: current
              ? { preference_type: current.preference_type, is_active: current.is_active }
              : null,
            after: { preference_type: 'admin_disabled', is_active: true, load_id: input.load_id },
          },
        ],
        () => newId('audit'),
      );
      return { id: preferenceId, created: inserted !== undefined };
    });
    return { created, preference: toLanePreference((await findPreference(this.db, scope, carrierId, id))!) };
  }

  /** Restrict (dnu on) or unrestrict (dnu off); a change is audited, a repeat returns the row as is. */
  async setRestricted(
    scope: OrgScope,
    carrierId: string,
    preferenceId: string,
    restricted: boolean,
    reason: Reason,
  ): Promise<LanePreference> {
    await this.db.transaction(async (tx) => {
      const current = await findPreference(tx, scope, carrierId, preferenceId, true);
      if (!current) throw notFound('Lane preference', preferenceId, 'preference_id');
      if (current.preference.dnu === restricted) return;
      const after = restricted
        ? { dnu: true, dnu_reason: reason.reason ?? null, dnu_set_at: new Date() }
        : { dnu: false, dnu_reason: null, dnu_set_at: null };
      await setPreferenceFields(tx, scope, preferenceId, after);
      await insertAudit(
        tx,
        scope,
        [
          {
            entity_type: 'lane_preference',
            entity_id: preferenceId,
            action: restricted ? 'restrict' : 'unrestrict',
            reason: reason.reason ?? null,
            reason_note: reason.reason_note ?? null,
            before: {
              dnu: current.preference.dnu,
              dnu_reason: current.preference.dnu_reason,
              dnu_set_at: current.preference.dnu_set_at,
            },
            after,
          },
        ],
        () => newId('audit'),
      );
      await emitEvent(
        tx,
        scope.organizationId,
        restricted ? 'lane_preference.restricted' : 'lane_preference.unrestricted',
        async () => toLanePreference((await findPreference(tx, scope, carrierId, preferenceId))!),
      );
    });
    return toLanePreference((await findPreference(this.db, scope, carrierId, preferenceId))!);
  }
}
