import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Db } from '../../db/client.js';
import { registerUniqueConstraint } from '../../db/pg-errors.js';
import type { OrgScope, Principal } from '../../http/authentication.js';
import { batchEnvelope } from '../../http/batch-envelope.js';
import { AppError, notFound, pathToParam, validationFailed } from '../../http/errors.js';
import { offsetOf, pagination } from '../../http/pagination.js';
import { toCall } from '../calls/calls-schemas.js';
import { findVisibleLoadView } from '../load-views/load-views-repository.js';
import { emitEvents } from '../webhooks/events.js';
import { LOAD_ID_IN_PATH, requireLoad } from './load-lookup.js';
import { derivedColumns, loadIdentifier, mergeLoad, stopRows } from './loads-ingestion.js';
import {
  countChangesSince,
  countFromCounters,
  countKey,
  countLoads,
  filterConditions,
  findLoadsByIdentifiers,
  findLoadView,
  insertLoads,
  type LoadQuery,
  type LoadRow,
  type LoadView,
  listLoadCalls,
  listLoadEscalations,
  listLoadPage,
  listLoadVerifications,
  listVersions,
  loadStats,
  purgeLoadChanges,
  replaceStops,
  type StopJson,
  type StopRow,
  statusMappingsOf,
  storedStops,
  tabSources,
  updateLoads,
} from './loads-repository.js';
import {
  type ListLoadsQuery,
  LOAD_TABS,
  type Load,
  type LoadBatchResult,
  type LoadFilters,
  type LoadInput,
  type LoadTab,
  loadFilters,
  loadInput,
  type loadStatsQuery,
  type Stop,
} from './loads-schemas.js';
import { LOAD_STATUSES } from './loads-tables.js';

registerUniqueConstraint(
  'loads_organization_load_number_key',
  'load_number',
  'Another load of the organization has this load_number',
);
registerUniqueConstraint(
  'loads_organization_tms_load_id_key',
  'tms_load_id',
  'Another load of the organization has this tms_load_id',
);
registerUniqueConstraint(
  'loads_organization_external_id_key',
  'external_id',
  'Another load of the organization has this external_id',
);

/**
 * DESIGN.md sections 3 and 9: customer_rate and margin are read and written only by API keys,
 * OWNERs and ADMINs (and the service itself).
 */
const seesRates = (p: Principal) => !(p.kind === 'bearer' && p.role === 'MEMBER');

/** The load fields a MEMBER may neither read nor write. */
export const RATE_FIELDS = ['customer_rate', 'margin'] as const;

/** The first rate field a principal who may not write it sent (null included: null clears). */
const forbiddenRateField = (p: Principal, input: Partial<Record<(typeof RATE_FIELDS)[number], unknown>>) =>
  seesRates(p) ? undefined : RATE_FIELDS.find((f) => input[f] !== undefined);

const dateOrNull = (s: string | null) => (s === null ? null : new Date(s));

function toStop(s: StopJson): Stop {
  const planned =
    s.planned_start !== null || s.planned_end !== null
      ? { start: dateOrNull(s.planned_start), end: dateOrNull(s.planned_end) }
      : null;
  const actual =
    s.actual_arrival_datetime !== null || s.actual_departure_datetime !== null
      ? {
          arrival_datetime: dateOrNull(s.actual_arrival_datetime),
          departure_datetime: dateOrNull(s.actual_departure_datetime),
        }
      : null;
  return {
    id: s.id,
    stop_number: s.stop_number,
    type: s.type as Stop['type'],
    is_pickup: s.is_pickup,
    is_dropoff: s.is_dropoff,
    location: {
      city: s.city,
      state: s.state,
      street: s.street,
      postal_code: s.postal_code,
      company_name: s.company_name,
      county: s.county,
      country: s.country,
      latitude: s.latitude,
      longitude: s.longitude,
    },
    expected_date: dateOrNull(s.expected_date),
    planned,
    pickup_delivery_number: s.pickup_delivery_number,
    actual_stop_times: actual,
    carrier_eta: dateOrNull(s.carrier_eta),
    reference_numbers: s.reference_numbers,
    notes: s.notes,
    special_instructions: s.special_instructions,
    contact: s.contact,
    contacts: s.contacts,
  };
}

export function toLoad(row: LoadView, principal: Principal): Load {
  const rates = seesRates(principal);
  return {
    id: row.id,
    load_number: row.load_number,
    organization_id: row.organization_id,
    equipment_type: row.equipment_type,
    created_at: row.created_at,
    updated_at: row.updated_at,
    tms_load_id: row.tms_load_id,
    external_id: row.external_id,
    mode: row.mode,
    load_status: row.load_status as Load['load_status'],
    tms_status: row.tms_status,
    weight: row.weight,
    distance: row.distance,
    commodity: row.commodity,
    handling_unit_count: row.handling_unit_count,
    handling_unit_type: row.handling_unit_type,
    po_numbers: row.po_numbers,
    reference_numbers: row.reference_numbers,
    posted_rate: row.posted_rate,
    max_buy_rate: row.max_buy_rate,
    suggested_market_rate: row.suggested_market_rate,
    length_feet: row.length_feet,
    special_instructions: row.special_instructions,
    notes: row.notes,
    is_posted: row.is_posted,
    last_posted_at: row.last_posted_at,
    last_unposted_at: row.last_unposted_at,
    externally_posted_at: row.externally_posted_at,
    temperature_setting_minimum: row.temperature_setting_minimum,
    temperature_setting_maximum: row.temperature_setting_maximum,
    temperature_run_type: row.temperature_run_type,
    last_reported_state: row.last_reported_state,
    last_reported_city: row.last_reported_city,
    last_reported_long: row.last_reported_long,
    last_reported_lat: row.last_reported_lat,
    tms_carrier_id: row.tms_carrier_id,
    carrier_name: row.carrier_name,
    hauling_carrier_id: row.hauling_carrier_id,
    hauling_carrier_name: row.hauling_carrier_name,
    hauling_carrier_mc_number: row.hauling_carrier_mc_number,
    hauling_carrier_dot_number: row.hauling_carrier_dot_number,
    carrier_completed_rate: row.carrier_completed_rate,
    customer_rate: rates ? row.customer_rate : null,
    margin: rates ? row.margin : null,
    customer_name: row.customer_name,
    tms_sales_rep_names: row.tms_sales_rep_names,
    carrier_rep: row.carrier_rep,
    driver: row.driver,
    carrier_rep_user_id: row.carrier_rep_user_id,
    carrier_rep_user_name: row.carrier_rep_user_name,
    carrier_rep_user_email: row.carrier_rep_user_email,
    assigned_to_ai_agent: row.assigned_to_ai_agent,
    stops: row.stops.map(toStop),
    context: row.context ?? {},
    custom_fields: row.custom_fields ?? {},
    offer_count: row.offer_count,
    max_offer_amount: row.max_offer_amount,
    min_offer_amount: row.min_offer_amount,
    active_escalation_count: row.active_escalation_count,
  };
}

type ItemStatus = 'created' | 'updated' | 'skipped' | 'failed';
interface ItemError {
  code: string;
  message: string;
  param: string | null;
}
interface ItemOutcome {
  index: number;
  status: ItemStatus;
  id: string | null;
  externalId: string | null;
  identifier: string | null;
  error: ItemError | null;
}

const IDENTIFIERS = ['tms_load_id', 'external_id', 'load_number'] as const;

function itemError(code: string, path: (string | number)[], message: string): ItemError {
  const param = pathToParam(path);
  return { code, message: param ? `${param}: ${message}` : message, param };
}

const COUNT_CACHE_MAX = 10_000;
/** More changed loads than this since a kept count: counting afresh costs about the same. */
const COUNT_MAX_CHANGES = 20_000;
const PURGE_EVERY_MS = 15_000;
const PURGE_KEEP_SECONDS = 60;

/** A count kept for reuse: with the snapshot it is exact at, or (lists with a tab) the write versions. */
interface KeptCount {
  count: number;
  snapshot?: string;
  version?: string;
}

/** The `data` of load.* webhook events: the load's identifiers and status. */
const loadEventData = (r: LoadRow) => ({
  load_id: r.id,
  tms_load_id: r.tms_load_id,
  external_id: r.external_id,
  load_number: r.load_number,
  load_status: r.load_status,
});

export class LoadsService {
  private readonly counts = new Map<string, KeptCount>();
  private lastPurge = 0;

  constructor(
    private readonly db: Db,
    private readonly log?: Pick<FastifyBaseLogger, 'warn'>,
  ) {}

  // -------------------------------------------------------------------------------------------
  // Ingestion

  /** POST /loads: one load, upserted. */
  async upsertOne(scope: OrgScope, input: LoadInput) {
    const [outcome] = await this.ingest(scope, [{ index: 0, input }], []);
    if (!outcome || outcome.status === 'failed' || outcome.status === 'skipped') {
      const error = outcome?.error ?? {
        code: 'internal_error',
        message: 'The load was not applied',
        param: null,
      };
      if (error.code === 'validation_error') {
        throw validationFailed(
          'body',
          error.param ? error.param.split('.') : [],
          error.message.replace(/^[^:]+: /, ''),
        );
      }
      const status = error.code === 'conflict' ? 409 : error.code === 'forbidden' ? 403 : 422;
      throw new AppError(status, error.code, error.message, error.param);
    }
    return {
      success: true,
      message: outcome.status === 'created' ? 'Load created' : 'Load updated',
      processed_at: new Date(),
      load_id: outcome.id!,
      operation: outcome.status as 'created' | 'updated',
    };
  }

  /** POST /loads/batch: each item validated and applied on its own, in one transaction. */
  async upsertBatch(scope: OrgScope, raw: Record<string, unknown>[]): Promise<LoadBatchResult> {
    const outcomes: ItemOutcome[] = [];
    const valid: { index: number; input: LoadInput }[] = [];
    raw.forEach((item, index) => {
      const parsed = loadInput.safeParse(item);
      if (parsed.success) {
        valid.push({ index, input: parsed.data });
        return;
      }
      const issue = parsed.error.issues[0]!;
      outcomes.push({
        index,
        status: 'failed',
        id: null,
        externalId: typeof item.external_id === 'string' ? item.external_id : null,
        identifier: loadIdentifier(item as Parameters<typeof loadIdentifier>[0]),
        error: itemError(
          'validation_error',
          ['loads', index, ...(issue.path as (string | number)[])],
          issue.message,
        ),
      });
    });
    outcomes.push(...(await this.ingest(scope, valid, ['loads'])));
    outcomes.sort((a, b) => a.index - b.index);
    return batchResult(outcomes);
  }

  private async ingest(
    scope: OrgScope,
    items: { index: number; input: LoadInput }[],
    prefix: (string | number)[],
  ): Promise<ItemOutcome[]> {
    const at = (index: number, ...path: (string | number)[]) =>
      prefix.length ? [...prefix, index, ...path] : path;
    const outcomes: ItemOutcome[] = [];
    const fail = (index: number, input: LoadInput, status: ItemStatus, error: ItemError) =>
      outcomes.push({
        index,
        status,
        id: null,
        externalId: input.external_id ?? null,
        identifier: loadIdentifier(input),
        error,
      });

    // An item repeating an identifier of an earlier item of the same request is skipped.
    const seen = {
      tms_load_id: new Map<string, number>(),
      external_id: new Map<string, number>(),
      load_number: new Map<string, number>(),
    };
    const accepted: { index: number; input: LoadInput }[] = [];
    for (const item of items) {
      const refused = forbiddenRateField(scope.principal, item.input);
      if (refused) {
        fail(
          item.index,
          item.input,
          'failed',
          itemError('forbidden', at(item.index, refused), 'only API keys, OWNERs and ADMINs may set it'),
        );
        continue;
      }
      const repeated = IDENTIFIERS.find((k) => {
        const v = item.input[k];
        return v != null && seen[k].has(v);
      });
      if (repeated) {
        fail(
          item.index,
          item.input,
          'skipped',
          itemError(
            'duplicate_in_batch',
            at(item.index, repeated),
            `repeats the ${repeated} of loads[${seen[repeated].get(item.input[repeated]!)}]`,
          ),
        );
        continue;
      }
      for (const k of IDENTIFIERS) {
        const v = item.input[k];
        if (v != null) seen[k].set(v, item.index);
      }
      accepted.push(item);
    }
    if (accepted.length === 0) return outcomes;

    const mappings = await statusMappingsOf(this.db, scope);
    const applied = await this.db.transaction(async (tx) => {
      const stored = await findLoadsByIdentifiers(tx, scope, {
        tmsLoadIds: [...seen.tms_load_id.keys()],
        externalIds: [...seen.external_id.keys()],
        loadNumbers: [...seen.load_number.keys()],
      });
      const owners = {
        tms_load_id: new Map(stored.filter((l) => l.tms_load_id).map((l) => [l.tms_load_id!, l])),
        external_id: new Map(stored.filter((l) => l.external_id).map((l) => [l.external_id!, l])),
        load_number: new Map(stored.map((l) => [l.load_number, l])),
      };
      const now = new Date();
      const claimed = new Map<string, number>();
      const created: LoadRow[] = [];
      const updated: LoadRow[] = [];
      const sentStops: StopRow[] = [];
      const stopsSentFor: string[] = [];
      const results: ItemOutcome[] = [];
      const previousStatus = new Map<string, string | null>();
      for (const { index, input } of accepted) {
        const match =
          (input.tms_load_id ? owners.tms_load_id.get(input.tms_load_id) : undefined) ??
          (input.external_id ? owners.external_id.get(input.external_id) : undefined) ??
          owners.load_number.get(input.load_number) ??
          null;
        const taken = IDENTIFIERS.find((k) => {
          const owner = input[k] != null ? owners[k].get(input[k]!) : undefined;
          return owner !== undefined && owner.id !== match?.id;
        });
        if (taken) {
          const owner = owners[taken].get(input[taken]!)!;
          fail(
            index,
            input,
            'failed',
            itemError('conflict', at(index, taken), `belongs to another load ('${owner.id}')`),
          );
          continue;
        }
        if (match && claimed.has(match.id)) {
          fail(
            index,
            input,
            'skipped',
            itemError(
              'duplicate_in_batch',
              at(index),
              `matches the same load as loads[${claimed.get(match.id)}]`,
            ),
          );
          continue;
        }
        if (!match && (input.stops?.length ?? 0) < 2) {
          fail(
            index,
            input,
            'failed',
            itemError('validation_error', at(index, 'stops'), 'A new load needs at least two stops'),
          );
          continue;
        }
        if (match) previousStatus.set(match.id, match.load_status);
        const row = mergeLoad(scope.organizationId, match, input, mappings, now);
        if (match) claimed.set(match.id, index);
        if (input.stops) {
          sentStops.push(...stopRows(scope.organizationId, row.id, input.stops));
          if (match) stopsSentFor.push(row.id);
        }
        (match ? updated : created).push(row);
        results.push({
          index,
          status: match ? 'updated' : 'created',
          id: row.id,
          externalId: row.external_id,
          identifier: loadIdentifier(row),
          error: null,
        });
      }

      // Derived columns need each load's stops: those just sent, else the stored ones.
      const stopsByLoad = new Map<string, StopRow[]>();
      const resent = new Set(stopsSentFor);
      const keptStops = updated.filter((r) => !resent.has(r.id)).map((r) => r.id);
      for (const s of [...sentStops, ...(await storedStops(tx, scope, keptStops))]) {
        const list = stopsByLoad.get(s.load_id) ?? [];
        list.push(s);
        stopsByLoad.set(s.load_id, list);
      }
      for (const row of [...created, ...updated]) {
        Object.assign(row, derivedColumns(row, stopsByLoad.get(row.id) ?? []));
      }
      await insertLoads(tx, created);
      await updateLoads(tx, scope, updated);
      // New loads have no stops to drop.
      await replaceStops(tx, scope, stopsSentFor, sentStops);
      await emitEvents(tx, scope.organizationId, [
        ...created.map((r) => ({ type: 'load.created', data: loadEventData(r) })),
        ...updated.map((r) => ({ type: 'load.updated', data: loadEventData(r) })),
        ...updated
          .filter((r) => (previousStatus.get(r.id) ?? null) !== (r.load_status ?? null))
          .map((r) => ({
            type: 'load.status_changed',
            data: { ...loadEventData(r), previous_load_status: previousStatus.get(r.id) ?? null },
          })),
      ]);
      return results;
    });
    this.purgeChangesNow();
    return [...outcomes, ...applied];
  }

  // -------------------------------------------------------------------------------------------
  // Reading

  async get(scope: OrgScope, id: string): Promise<Load> {
    const row = await findLoadView(this.db, scope, id);
    if (!row) throw notFound('Load', id, 'load_id');
    return toLoad(row, scope.principal);
  }

  async list(scope: OrgScope, query: ListLoadsQuery) {
    const { page, page_size, view_id, ...filters } = query;
    const viewFilters = view_id ? await this.viewFilters(scope, view_id) : null;
    const q = combine(scope.organizationId, [filters, viewFilters]);
    const sort = {
      field: filters.order_by ?? viewFilters?.order_by ?? 'created_at',
      desc: filters.order_desc ?? viewFilters?.order_desc ?? true,
    };
    // The count first: it is cheap (kept, or from a counter), and the page reads differently when
    // it is small (listLoadPage).
    const total = await this.count(scope, q);
    const rows = await listLoadPage(this.db, scope, q, sort, page_size, offsetOf(page, page_size), total);
    return {
      data: rows.map((r) => toLoad(r, scope.principal)),
      pagination: pagination(page, page_size, total),
    };
  }

  /**
   * The exact total of a list. Maintained structures answer the unfiltered and status-only lists,
   * a few-valued filter or a rep name alone or with statuses, and a tab alone (its table's index,
   * kept until that table is written). Any other list is counted on the indexes of its filters
   * (what the matching entries cost, never a pass over the organization) and the count is kept,
   * per instance, with the snapshot it was taken at: the next count of the same list re-tests only
   * the loads written since (load_changes), so it stays exact and cheap while a sync writes. A
   * list with a tab also depends on the tab's table, so its count is kept per set of write
   * versions of the organization's loads and tab tables instead, and recounted after any write.
   */
  private async count(scope: OrgScope, q: LoadQuery): Promise<number> {
    const tab = q.tabs.length === 1 && q.conditions.length === 0 && q.statuses === null ? q.tabs[0] : null;
    if (!tab) {
      const counted = await countFromCounters(this.db, scope, q);
      if (counted !== null) return counted;
    }
    const key = countKey(scope, q);
    const cached = this.counts.get(key);
    if (q.tabs.length > 0) {
      // A tab alone depends on its own table only.
      const version = await listVersions(this.db, scope, tab ? [tabSources[tab]] : undefined);
      if (cached?.version === version) return cached.count;
      const count = tab
        ? ((await countFromCounters(this.db, scope, q)) ?? 0)
        : (await countLoads(this.db, scope, q)).count;
      this.remember(key, { count, version });
      return count;
    }
    if (cached?.snapshot) {
      const moved = await countChangesSince(this.db, scope, q, cached.snapshot, COUNT_MAX_CHANGES);
      if (moved) {
        const count = cached.count + moved.delta;
        this.remember(key, { count, snapshot: moved.snapshot });
        return count;
      }
    }
    const fresh = await countLoads(this.db, scope, q);
    this.remember(key, fresh);
    return fresh.count;
  }

  private remember(key: string, entry: KeptCount) {
    this.counts.delete(key);
    if (this.counts.size >= COUNT_CACHE_MAX) this.counts.delete(this.counts.keys().next().value!);
    this.counts.set(key, entry);
  }

  /**
   * load_changes only has to reach back as far as the oldest count worth bringing up to date:
   * after a write, at most every PURGE_EVERY_MS per instance, older entries are dropped in the
   * background (counts kept longer than PURGE_KEEP_SECONDS are counted afresh).
   */
  private purgeChangesNow() {
    const now = Date.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    purgeLoadChanges(this.db, PURGE_KEEP_SECONDS).catch((err: unknown) => {
      this.log?.warn({ err }, 'purging load_changes failed; the next write retries');
      this.lastPurge = 0;
    });
  }

  async stats(scope: OrgScope, query: z.output<typeof loadStatsQuery>) {
    const { view_id, ...filters } = query;
    const viewFilters = view_id ? await this.viewFilters(scope, view_id) : null;
    const q = combine(scope.organizationId, [filters, viewFilters]);
    const { byStatus, byTab } = await loadStats(this.db, scope, q, [...LOAD_TABS]);
    const by_status: Record<string, number> = Object.fromEntries(
      [...LOAD_STATUSES, 'none'].map((s) => [s, 0]),
    );
    let total = 0;
    for (const r of byStatus) {
      by_status[r.load_status ?? 'none'] = r.n;
      total += r.n;
    }
    return {
      total_count: total,
      by_status,
      by_tab: Object.fromEntries(LOAD_TABS.map((t) => [t, byTab[t] ?? 0])) as Record<
        (typeof LOAD_TABS)[number],
        number
      >,
    };
  }

  async calls(scope: OrgScope, loadId: string) {
    await this.mustExist(scope, loadId);
    return (await listLoadCalls(this.db, scope, loadId)).map(toCall);
  }

  async verifications(scope: OrgScope, loadId: string) {
    await this.mustExist(scope, loadId);
    return (await listLoadVerifications(this.db, scope, loadId)).map((v) => ({
      id: v.id,
      load_id: v.load_id,
      carrier_id: v.carrier_id,
      source: v.source,
      status: v.status,
      reasons: v.reasons,
      created_at: v.created_at,
    }));
  }

  async escalations(scope: OrgScope, loadId: string) {
    await this.mustExist(scope, loadId);
    return (await listLoadEscalations(this.db, scope, loadId)).map((e) => ({
      id: e.id,
      load_id: e.load_id,
      status: e.status,
      reason: e.reason,
      resolved_at: e.resolved_at,
      created_at: e.created_at,
      updated_at: e.updated_at,
    }));
  }

  private async mustExist(scope: OrgScope, loadId: string) {
    await requireLoad(this.db, scope, loadId, LOAD_ID_IN_PATH);
  }

  /** A saved view's filters; 404 when the view does not exist or is not visible to the caller. */
  private async viewFilters(scope: OrgScope, viewId: string): Promise<LoadFilters> {
    const view = await findVisibleLoadView(this.db, scope, viewId);
    if (!view) throw notFound('Load view', viewId, 'view_id');
    return loadFilters.parse(view.filters);
  }
}

/**
 * Filters of the query and of a saved view narrow together: statuses intersect, every other
 * condition of both applies.
 */
function combine(organizationId: string, parts: (LoadFilters | null)[]): LoadQuery {
  let statuses: string[] | null = null;
  const conditions = [];
  const tabs = new Set<Exclude<LoadTab, 'all'>>();
  for (const f of parts) {
    if (!f) continue;
    if (f.tab && f.tab !== 'all') tabs.add(f.tab);
    if (f.status?.length) {
      statuses =
        statuses === null ? [...new Set(f.status)] : statuses.filter((s) => f.status!.includes(s as never));
    }
    conditions.push(...filterConditions(organizationId, f));
  }
  return { statuses, conditions, tabs: [...tabs] };
}

function batchResult(outcomes: ItemOutcome[]): LoadBatchResult {
  const envelope = batchEnvelope(
    outcomes.map((o) => ({ ...o, external_id: o.externalId })),
    (o, shared) => ({ load_identifier: o.identifier, load_id: o.id, ...shared }),
  );
  return { ...envelope, total_loads: outcomes.length };
}
