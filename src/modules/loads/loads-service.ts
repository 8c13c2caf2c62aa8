// What the loads routes call: the upserts (loads-upsert does the work), one load and the records
// attached to it, the list with its exact count (kept per instance and brought up to date), and
// the stats.

import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { UniqueConstraint } from '../../db/pg-errors.js';
import { AppError, forbidden, notFound, validationFailed } from '../../domain/errors.js';
import { offsetOf, pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import { cooperative } from '../../lib/yielding.js';
import { LOAD_ID_IN_PATH, requireLoad } from './load-queries.js';
import type { LoadRelations } from './load-relations.js';
import { type Item, type ItemOutcome, type ValidatedItems, validateBatchItems } from './loads-batch-items.js';
import type { LoadInput, LoadPatch } from './loads-input-schemas.js';
import { statusCounts, tabCounts } from './loads-list-counts.js';
import { filterConditions, type LoadQuery, type TabRule, tabRules } from './loads-list-filters.js';
import { LoadListReader } from './loads-list-reader.js';
import { patchLoad } from './loads-patch.js';
import { findLoadView, listLoadVerifications } from './loads-repository.js';
import { forbiddenRateField, toLoad } from './loads-responses.js';
import {
  type ListLoadsQuery,
  LOAD_TABS,
  type Load,
  type LoadBatchResult,
  type LoadFilters,
  type LoadTab,
  loadFilters,
  type loadStatsQuery,
} from './loads-schemas.js';
import { LOAD_STATUSES } from './loads-tables.js';
import { applyItems, batchResult, pathOf, screenItems } from './loads-upsert.js';

/** The unique constraints whose violation is a 409 on the field named (registered by buildServices). */
export const loadUniqueConstraints: readonly UniqueConstraint[] = [
  {
    constraint: 'loads_organization_load_number_key',
    param: 'load_number',
    message: 'Another load of the organization has this load_number',
  },
  {
    constraint: 'loads_organization_tms_load_id_key',
    param: 'tms_load_id',
    message: 'Another load of the organization has this tms_load_id',
  },
  {
    constraint: 'loads_organization_external_id_key',
    param: 'external_id',
    message: 'Another load of the organization has this external_id',
  },
];

export class LoadsService {
  private readonly lists: LoadListReader;
  private readonly tabs: Record<Exclude<LoadTab, 'all'>, TabRule>;

  constructor(
    private readonly db: Db,
    private readonly relations: LoadRelations,
    private readonly clock: Clock,
    log?: Pick<FastifyBaseLogger, 'warn'>,
  ) {
    this.lists = new LoadListReader(db, log);
    this.tabs = tabRules(relations.tabs);
  }

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
      const status =
        error.code === 'already_exists' ? 409 : error.code === 'insufficient_permissions' ? 403 : 422;
      throw new AppError(status, error.code, error.message, error.param);
    }
    return {
      success: true,
      message: outcome.status === 'created' ? 'Load created' : 'Load updated',
      processed_at: this.clock.now(),
      load_id: defined(outcome.id, 'outcome.id'),
      operation: outcome.status,
    };
  }

  /** POST /loads/batch: each item validated and applied on its own, in one transaction; `raw` is emptied as it is validated. */
  /**
   * `checked`: the items as a body worker already validated them (http/body-workers.ts); else they
   * are validated here, with other requests given turns in between.
   */
  async upsertBatch(
    scope: OrgScope,
    raw: Record<string, unknown>[],
    checked?: ValidatedItems,
  ): Promise<LoadBatchResult> {
    const turns = cooperative();
    const { outcomes, valid } = checked ?? (await validateBatchItems(raw, () => turns.pause()));
    outcomes.push(...(await this.ingest(scope, valid, ['loads'])));
    outcomes.sort((a, b) => a.index - b.index);
    return batchResult(outcomes, this.clock.now());
  }

  /** PATCH /loads/{load_id}: only the fields sent change; answers the load as GET does. */
  async patch(scope: OrgScope, id: string, input: LoadPatch): Promise<Load> {
    const refused = forbiddenRateField(scope.principal, input);
    if (refused) throw forbidden(`${refused}: only API keys, OWNERs and ADMINs may set it`, refused);
    await patchLoad(this.db, scope, id, input, this.clock.now());
    this.lists.purgeChangesNow();
    return this.get(scope, id);
  }

  private async ingest(scope: OrgScope, items: Item[], prefix: (string | number)[]): Promise<ItemOutcome[]> {
    const at = pathOf(prefix);
    const screened = screenItems(scope, items, at);
    if (screened.accepted.length === 0) return screened.outcomes;
    const applied = await applyItems(this.db, scope, screened, at, this.clock.now());
    this.lists.purgeChangesNow();
    return [...screened.outcomes, ...applied];
  }

  // -------------------------------------------------------------------------------------------
  // Reading

  async get(scope: OrgScope, id: string): Promise<Load> {
    const row = await findLoadView(this.db, scope, id);
    if (!row) throw notFound('Load', id, 'load_id');
    const booked = await this.relations.bookedOffers(scope, [row.id]);
    return toLoad(row, scope.principal, booked.get(row.id) ?? null);
  }

  async list(scope: OrgScope, query: ListLoadsQuery) {
    const { page, page_size, view_id, ...filters } = query;
    const viewFilters = view_id ? await this.viewFilters(scope, view_id) : null;
    const q = await combine(this.db, scope.organizationId, [filters, viewFilters], this.tabs);
    const sort = {
      field: filters.order_by ?? viewFilters?.order_by ?? 'created_at',
      desc: filters.order_desc ?? viewFilters?.order_desc ?? true,
    };
    const { total, rows } = await this.lists.read(scope, q, sort, page_size, offsetOf(page, page_size));
    // The page's bookings by its ids, apart from the page's own statements: their plans (and the
    // page kept by its ids) stay what they are for every list.
    const booked = await this.relations.bookedOffers(
      scope,
      rows.map((r) => r.id),
    );
    return {
      data: rows.map((r) => toLoad(r, scope.principal, booked.get(r.id) ?? null)),
      pagination: pagination(page, page_size, total),
    };
  }

  async stats(scope: OrgScope, query: z.output<typeof loadStatsQuery>) {
    const { view_id, ...filters } = query;
    const viewFilters = view_id ? await this.viewFilters(scope, view_id) : null;
    const q = await combine(this.db, scope.organizationId, [filters, viewFilters], this.tabs);
    // The whole organization's tabs are counted on the tabs' own tables and kept until they are
    // written, as the list counts a tab alone; a filtered list's over its matching loads.
    const whole = q.conditions.length === 0 && q.statuses === null && q.tabs.length === 0;
    const [byStatus, byTab] = await Promise.all([
      statusCounts(this.db, scope, q),
      whole
        ? this.lists.tabTotals(
            scope,
            LOAD_TABS.filter((t) => t !== 'all').map((t) => this.tabs[t]),
          )
        : tabCounts(
            this.db,
            scope,
            q,
            LOAD_TABS.map((t) => (t === 'all' ? t : this.tabs[t])),
          ),
    ]);
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
      // Object.fromEntries types its keys as string; LOAD_TABS lists every tab, so each key is there.
      by_tab: Object.fromEntries(
        LOAD_TABS.map((t) => [t, t === 'all' && whole ? total : (byTab[t] ?? 0)]),
      ) as Record<(typeof LOAD_TABS)[number], number>,
    };
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

  private async mustExist(scope: OrgScope, loadId: string) {
    await requireLoad(this.db, scope, loadId, LOAD_ID_IN_PATH);
  }

  /** A saved view's filters; 404 when the view does not exist or is not visible to the caller. */
  private async viewFilters(scope: OrgScope, viewId: string): Promise<LoadFilters> {
    const view = await this.relations.viewFilters(scope, viewId);
    if (!view) throw notFound('Load view', viewId, 'view_id');
    return loadFilters.parse(view.filters);
  }
}

/**
 * Filters of the query and of a saved view narrow together: statuses intersect, every other
 * condition of both applies.
 */
async function combine(
  db: Db,
  organizationId: string,
  parts: (LoadFilters | null)[],
  rules: Record<Exclude<LoadTab, 'all'>, TabRule>,
): Promise<LoadQuery> {
  let statuses: string[] | null = null;
  const conditions = [];
  const tabs = new Set<Exclude<LoadTab, 'all'>>();
  for (const f of parts) {
    if (!f) continue;
    if (f.tab && f.tab !== 'all') tabs.add(f.tab);
    const wanted = f.status;
    if (wanted?.length) {
      statuses =
        statuses === null ? [...new Set(wanted)] : statuses.filter((s) => wanted.some((w) => w === s));
    }
    conditions.push(...(await filterConditions(db, organizationId, f)));
  }
  return { statuses, conditions, tabs: [...tabs].map((t) => rules[t]) };
}
