import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { batchEnvelope } from '../../domain/batch-envelope.js';
import { AppError, conflict, notFound, unprocessable, validationFailed } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { readBack, resultOf, type Written } from '../../domain/written.js';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import { cooperative } from '../../lib/yielding.js';
import { auditOf, insertAudit } from '../audit/index.js';
import { carrierPayload, toCarrier } from './carrier-shape.js';
import { type CarrierBatchBody, carrierItemsFromCsv, validateCarrierItems } from './carriers-batch-items.js';
import type { BatchResult } from './carriers-batch-schemas.js';
import { emitEvent } from './carriers-events.js';
import { CarrierIngestion, type ItemOutcome } from './carriers-ingestion.js';
import {
  complianceChecksOf,
  contactsOf,
  findCarrier,
  listCarriers,
  matchCandidates,
  setCarrierFields,
  updateCarriers,
  WRITABLE_COLUMNS,
  type WritableColumn,
} from './carriers-repository.js';
import type { Carrier, CarrierInput, CarrierPatch, ListCarriersQuery } from './carriers-schemas.js';
import type { ComplianceService } from './compliance-service.js';
import { CarrierLanePreferences, type LoadLaneReader, requireCarrier } from './lane-preferences.js';
import type { StopContactRequests } from './stop-contact.js';

type Reason = { reason?: string | null; reason_note?: string | null };

/** Turns a failed item's error into the AppError a single create answers with. */
const itemError = (o: ItemOutcome) => {
  const { status, code, message, param } = defined(o.error, `error of failed item ${o.index}`);
  return new AppError(status, code, message, param);
};

export interface CarriersOptions {
  inlineBudgetMs: number;
  clock: Clock;
}

export class CarriersService {
  private readonly ingestion: CarrierIngestion;
  /** A carrier's lane preferences: list, create, disable for a load, restrict, switch, audit. */
  readonly lanes: CarrierLanePreferences;

  constructor(
    private readonly db: Db,
    private readonly compliance: ComplianceService,
    private readonly options: CarriersOptions,
    private readonly stopContact: StopContactRequests,
    laneOfLoad: LoadLaneReader,
  ) {
    this.ingestion = new CarrierIngestion(db, compliance);
    this.lanes = new CarrierLanePreferences(db, laneOfLoad);
  }

  async view(scope: OrgScope, id: string): Promise<Carrier> {
    const row = await findCarrier(this.db, scope, id);
    if (!row) throw notFound('Carrier', id, 'carrier_id');
    const contacts = await contactsOf(this.db, scope, [id]);
    return toCarrier(row, contacts.get(id));
  }

  /** Creates or updates one carrier, then checks compliance within the inline budget. */
  async createOne(scope: OrgScope, carrier: CarrierInput): Promise<{ created: boolean; carrier: Carrier }> {
    const written = await this.write(scope, carrier);
    return { created: written.created, carrier: resultOf(written) };
  }

  /**
   * POST /carriers: as createOne, but a write that committed and could not be read back is
   * answered with what is known (its id, created or updated) and the read's error, not thrown.
   */
  async write(scope: OrgScope, carrier: CarrierInput): Promise<Written<Carrier>> {
    // The background worker leaves the carrier alone while the inline check may still be running.
    const graceSeconds = Math.ceil(this.options.inlineBudgetMs / 1000) + 1;
    const [outcome] = await this.ingestion.ingest(scope, [{ index: 0, path: [], carrier, lanes: [] }], {
      method: 'api',
      inlineCheckGraceSeconds: graceSeconds,
    });
    if (!outcome?.id) throw itemError(defined(outcome, 'outcome of the one carrier'));
    try {
      await this.compliance.check(
        scope.organizationId,
        outcome.id,
        AbortSignal.timeout(this.options.inlineBudgetMs),
      );
    } catch {
      // Over budget: the carrier stays UNVERIFIED and the background worker checks it shortly.
    }
    const id = outcome.id;
    return readBack({ created: outcome.status === 'created', id }, () => this.view(scope, id));
  }

  /**
   * POST /carriers/batch: JSON items or a CSV upload (its text in pieces), or the items as a body
   * worker already checked them (http/body-workers.ts); every item gets an outcome.
   */
  async batch(scope: OrgScope, body: CarrierBatchBody): Promise<BatchResult> {
    const method = 'checked' in body ? body.method : 'csv' in body ? 'csv' : 'batch';
    const turns = cooperative();
    const pause = () => turns.pause();
    const { valid, invalid } =
      'checked' in body
        ? body.checked
        : await validateCarrierItems(
            'csv' in body ? await carrierItemsFromCsv(body.csv, pause) : body.carriers,
            pause,
          );
    const applied = valid.length ? await this.ingestion.ingest(scope, valid, { method }) : [];
    const outcomes = [...applied, ...invalid].sort((a, b) => a.index - b.index);
    return this.envelope(outcomes);
  }

  /** The batch answer; `success` false and `errors` set when some item was not applied. */
  private envelope(outcomes: ItemOutcome[]): BatchResult {
    const { errors, ...envelope } = batchEnvelope(
      outcomes,
      (o, shared) => ({
        identifier: o.identifier,
        carrier_id: o.id,
        lanes_created: o.lanes_created,
        ...shared,
      }),
      this.options.clock.now(),
    );
    const body: BatchResult = { ...envelope, total: outcomes.length };
    if (!envelope.success) body.errors = errors;
    return body;
  }

  /** PATCH: only sent fields change; is_active is refused; identifiers stay unique. */
  async patch(scope: OrgScope, id: string, parsed: CarrierPatch): Promise<Written<Carrier>> {
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
      const v = parsed[k];
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
      const ids: Record<'tms' | 'mc' | 'dot', string[]> = { tms: [], mc: [], dot: [] };
      if (typeof values.tms_carrier_id === 'string' && values.tms_carrier_id)
        ids.tms.push(values.tms_carrier_id);
      if (typeof values.mc_number === 'string' && values.mc_number) ids.mc.push(values.mc_number);
      if (typeof values.dot_number === 'string' && values.dot_number) ids.dot.push(values.dot_number);
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
    return this.updated(scope, id);
  }

  /** The carrier read back after an update committed (see Written). */
  private updated(scope: OrgScope, id: string): Promise<Written<Carrier>> {
    return readBack({ created: false, id }, () => this.view(scope, id));
  }

  /** Disable or enable; a change writes an audit row in the same transaction, a repeat writes none. */
  async setActive(scope: OrgScope, id: string, active: boolean, reason: Reason): Promise<Written<Carrier>> {
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
    return this.updated(scope, id);
  }

  /** A rep records that the carrier asked not to be contacted (the one rule: `StopContactRequests`). */
  async requestStopContact(scope: OrgScope, id: string): Promise<Written<Carrier>> {
    if (!(await this.stopContact.request(scope, id, 'api'))) throw notFound('Carrier', id, 'carrier_id');
    return this.updated(scope, id);
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

  private async requireCarrier(scope: OrgScope, carrierId: string) {
    return requireCarrier(this.db, scope, carrierId);
  }
}
