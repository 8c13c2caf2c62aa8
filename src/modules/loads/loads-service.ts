// What the loads routes call: the upserts (loads-upsert does the work), one load and the records
// attached to it, the list with its exact count (kept per instance and brought up to date), and
// the stats.

import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Db } from '../../db/client.js';
import { registerUniqueConstraint } from '../../db/pg-errors.js';
import { AppError, notFound, validationFailed } from '../../domain/errors.js';
import { offsetOf, pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { listLoadCalls, toCall } from '../calls/index.js';
import { findVisibleLoadView } from '../load-views/index.js';
import { LOAD_ID_IN_PATH, requireLoad } from './load-lookup.js';
import type { LoadInput } from './loads-input-schemas.js';
import {
  countChangesSince,
  countFromCounters,
  countKey,
  countLoads,
  listVersions,
  loadStats,
  purgeLoadChanges,
} from './loads-list-counts.js';
import { filterConditions, type LoadQuery } from './loads-list-filters.js';
import { listLoadPage } from './loads-list-repository.js';
import { findLoadView, listLoadEscalations, listLoadVerifications } from './loads-repository.js';
import { toLoad } from './loads-responses.js';
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
import {
  applyItems,
  batchResult,
  type Item,
  type ItemOutcome,
  parseBatch,
  pathOf,
  screenItems,
} from './loads-upsert.js';

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

const COUNT_CACHE_MAX = 10_000;
/**
 * Bringing a kept count up to date costs about this much per changed load (re-testing it as it is
 * and as it was): in `npm run bench -- loads` at 1,000,000 loads, PostgreSQL's slow-statement log
 * showed eight such statements over about 7,000 changed loads each finishing in 500-700 ms side
 * by side on two cores, about 0.02-0.03 ms of one core a load. A list whose fresh
 * count took less than the changes would cost is counted afresh instead: a filter counted on a
 * covering index recounts in milliseconds, a substring search reads its matches from the table.
 */
const DELTA_MS_PER_CHANGE = 0.03;
/** Bounds on how many changed loads a kept count is brought up to date over. */
const COUNT_MIN_CHANGES = 200;
const COUNT_MAX_CHANGES = 20_000;
const PURGE_EVERY_MS = 15_000;
const PURGE_KEEP_SECONDS = 60;

/**
 * A count kept for reuse: with the snapshot it is exact at and the write versions of its tabs'
 * tables then ('' without tabs), or (a tab alone) only the version of the tab's table.
 */
interface KeptCount {
  count: number;
  snapshot?: string;
  version: string;
  /** How long the last fresh count of the list took (ms). */
  freshMs?: number;
}

export class LoadsService {
  private readonly counts = new Map<string, KeptCount>();
  /** The count of each list being taken now (by count key), for the requests that arrive meanwhile. */
  private readonly counting = new Map<string, Promise<number>>();
  /** Fresh counts (countLoads) running in this instance now. */
  private freshCounting = 0;
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
    const { outcomes, valid } = parseBatch(raw);
    outcomes.push(...(await this.ingest(scope, valid, ['loads'])));
    outcomes.sort((a, b) => a.index - b.index);
    return batchResult(outcomes);
  }

  private async ingest(scope: OrgScope, items: Item[], prefix: (string | number)[]): Promise<ItemOutcome[]> {
    const at = pathOf(prefix);
    const screened = screenItems(scope, items, at);
    if (screened.accepted.length === 0) return screened.outcomes;
    const applied = await applyItems(this.db, scope, screened, at);
    this.purgeChangesNow();
    return [...screened.outcomes, ...applied];
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
    const q = await combine(this.db, scope.organizationId, [filters, viewFilters]);
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
   * list with a tab and a filter also depends on the tab's table: its kept count is brought up to
   * date the same way while that table is unchanged (the versions read with the count and with
   * the change say so), and counted afresh once it has been written.
   */
  private async count(scope: OrgScope, q: LoadQuery): Promise<number> {
    const key = countKey(scope, q);
    // One count of a list at a time per instance. A request arriving while one is under way (the
    // dashboards of a team opening the same screen, a sync's write invalidating a count several
    // readers want) waits for it and then brings its result up to date, which costs the few
    // changes since rather than a second count of the same list side by side. The running count's
    // failure is its own request's: a waiter goes on and counts for itself.
    const running = this.counting.get(key);
    if (running) await running.catch(() => undefined);
    const work = this.countNow(scope, q, key);
    if (!this.counting.has(key)) {
      this.counting.set(key, work);
      const done = () => {
        if (this.counting.get(key) === work) this.counting.delete(key);
      };
      work.then(done, done);
    }
    return work;
  }

  private async countNow(scope: OrgScope, q: LoadQuery, key: string): Promise<number> {
    const tab = q.tabs.length === 1 && q.conditions.length === 0 && q.statuses === null ? q.tabs[0] : null;
    const cached = this.counts.get(key);
    if (tab) {
      // A tab alone is counted on its own table, and depends on that table only.
      const version = await listVersions(this.db, scope, q);
      if (cached?.version === version) return cached.count;
      const count = (await countFromCounters(this.db, scope, q)) ?? 0;
      this.remember(key, { count, version });
      return count;
    }
    const counted = await countFromCounters(this.db, scope, q);
    if (counted !== null) return counted;
    if (cached?.snapshot) {
      const worth = Math.round((cached.freshMs ?? 0) / DELTA_MS_PER_CHANGE);
      const maxChanges = Math.min(COUNT_MAX_CHANGES, Math.max(COUNT_MIN_CHANGES, worth));
      const moved = await countChangesSince(this.db, scope, q, cached.snapshot, maxChanges);
      if (moved && moved.tabVersions === cached.version) {
        const count = cached.count + moved.delta;
        this.remember(key, { ...cached, count, snapshot: moved.snapshot });
        return count;
      }
    }
    // What a fresh count of this list costs, for the choice above: its time shared among the
    // fresh counts of other lists this instance runs at once (a dashboard opening several lists
    // nobody read lately), and the cheapest seen so far.
    const started = performance.now();
    const alongside = ++this.freshCounting;
    let fresh: Awaited<ReturnType<typeof countLoads>>;
    try {
      fresh = await countLoads(this.db, scope, q);
    } finally {
      this.freshCounting--;
    }
    const ms = (performance.now() - started) / alongside;
    this.remember(key, {
      count: fresh.count,
      snapshot: fresh.snapshot,
      version: fresh.tabVersions,
      freshMs: Math.min(ms, cached?.freshMs ?? ms),
    });
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
    const q = await combine(this.db, scope.organizationId, [filters, viewFilters]);
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
async function combine(db: Db, organizationId: string, parts: (LoadFilters | null)[]): Promise<LoadQuery> {
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
    conditions.push(...(await filterConditions(db, organizationId, f)));
  }
  return { statuses, conditions, tabs: [...tabs] };
}
