// The load list as LoadsService serves it: the exact total (from the counters, or counted once and
// then brought up to date from the change log) and the page, both kept per instance for as long as
// the change log says they still hold. What the statements read is in loads-list-counts and
// loads-list-repository.

import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import {
  countChangesSince,
  countFromCounters,
  countKey,
  countLoads,
  listSnapshot,
  listVersions,
  pageChangesSince,
  purgeLoadChanges,
} from './loads-list-counts.js';
import type { LoadQuery, TabRule } from './loads-list-filters.js';
import { listLoadPage, readLoadsInOrder, sortKeyOf } from './loads-list-repository.js';
import type { LoadView } from './loads-repository.js';
import type { LoadSortField } from './loads-schemas.js';

const COUNT_CACHE_MAX = 10_000;
/** Pages kept at most (of up to 100 ids each: a few MB). */
const PAGE_CACHE_MAX = 2_000;
/**
 * A kept page is checked against at most this many changed loads (about 0.03 ms each, see
 * DELTA_MS_PER_CHANGE); past that it is read again, which costs a few milliseconds at most.
 */
const PAGE_MAX_CHANGES = 300;
/**
 * PostgreSQL's own time to bring a kept count up to date, per changed load (measured at a million
 * loads: docs/decisions/0017-load-list-counts-and-pages.md). A list whose fresh count costs less than that is counted afresh.
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
  /** How long PostgreSQL took for the cheapest fresh count of the list so far (ms). */
  freshMs?: number;
}

/** The ids of a page, with the snapshot they were read at (or before) and its tabs' versions then. */
interface KeptPage {
  ids: string[];
  snapshot: string;
  tabVersions: string;
}

type LoadSort = { field: LoadSortField; desc: boolean };

/** A list's total and the key its count is kept under. */
interface Counted {
  total: number;
  key: string;
}

export class LoadListReader {
  /** Kept counts by count key; the least recently used goes first when the cache is full. */
  private readonly counts = new LRUCache<string, KeptCount>({ max: COUNT_CACHE_MAX });
  /** The count of each list being taken now (by count key), for the requests that arrive meanwhile. */
  private readonly counting = new Map<string, Promise<Counted>>();
  /** Page ids by count key, sort and position; the least recently used goes first when full. */
  private readonly pages = new LRUCache<string, KeptPage>({ max: PAGE_CACHE_MAX });
  private lastPurge = 0;

  constructor(
    private readonly db: Db,
    private readonly log?: Pick<FastifyBaseLogger, 'warn'>,
  ) {}

  /**
   * One page of a list and its exact total. The count comes first: it is cheap (kept, or from a
   * counter), and the page reads differently when it is small (listLoadPage). A page read before
   * is read again by its ids alone when no load written since could move it (pageChangesSince:
   * none entered or left the list, none in it changed its sort key, its tabs' tables are
   * unchanged); its rows are read as they are now. A dashboard polling a deep page, or a filter
   * whose matches the sync does not touch, then costs what its ids cost.
   */
  async read(
    scope: OrgScope,
    q: LoadQuery,
    sort: LoadSort,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: LoadView[] }> {
    const { total, key } = await this.count(scope, q);
    if (offset >= total) return { total, rows: [] };
    const pageKey = `${key}\u0000${sort.field} ${sort.desc} ${limit} ${offset}`;
    const kept = this.pages.get(pageKey);
    let stamp: { snapshot: string; tabVersions: string } | null = null;
    if (kept) {
      const check = await pageChangesSince(
        this.db,
        scope,
        q,
        sortKeyOf(sort.field),
        kept.snapshot,
        PAGE_MAX_CHANGES,
      );
      if (check?.moved === 0 && check.tabVersions === kept.tabVersions) {
        kept.snapshot = check.snapshot;
        return { total, rows: await readLoadsInOrder(this.db, scope, kept.ids, sort) };
      }
      stamp = check;
    }
    // The page read below sees at least what this snapshot saw: checking from it later can only
    // find more changes than there were since the read, never fewer.
    stamp ??= await listSnapshot(this.db, scope, q);
    const rows = await listLoadPage(this.db, scope, q, sort, limit, offset, total);
    this.pages.set(pageKey, {
      ids: rows.map((r) => r.id),
      snapshot: stamp.snapshot,
      tabVersions: stamp.tabVersions,
    });
    return { total, rows };
  }

  /**
   * Each tab's total over the whole organization, as the list counts a tab alone (on the tab's
   * own table, kept until that table is written): GET /loads/stats of an unfiltered dashboard.
   */
  async tabTotals(scope: OrgScope, tabs: TabRule[]): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const tab of tabs) {
      out[tab.name] = (await this.count(scope, { statuses: null, conditions: [], tabs: [tab] })).total;
    }
    return out;
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
  private async count(scope: OrgScope, q: LoadQuery): Promise<Counted> {
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

  private async countNow(scope: OrgScope, q: LoadQuery, key: string): Promise<Counted> {
    const tab = q.tabs.length === 1 && q.conditions.length === 0 && q.statuses === null ? q.tabs[0] : null;
    const cached = this.counts.get(key);
    if (tab) {
      // A tab alone is counted on its own table, and depends on that table only.
      const version = await listVersions(this.db, scope, q);
      if (cached?.version === version) return { total: cached.count, key };
      const count = (await countFromCounters(this.db, scope, q)) ?? 0;
      this.remember(key, { count, version });
      return { total: count, key };
    }
    const counted = await countFromCounters(this.db, scope, q);
    if (counted !== null) return { total: counted, key };
    if (cached?.snapshot) {
      const worth = Math.round((cached.freshMs ?? 0) / DELTA_MS_PER_CHANGE);
      const maxChanges = Math.min(COUNT_MAX_CHANGES, Math.max(COUNT_MIN_CHANGES, worth));
      const moved = await countChangesSince(this.db, scope, q, cached.snapshot, maxChanges);
      if (moved && moved.tabVersions === cached.version) {
        const count = cached.count + moved.delta;
        this.remember(key, { ...cached, count, snapshot: moved.snapshot });
        return { total: count, key };
      }
    }
    // What a fresh count of this list costs, for the choice above: the cheapest seen so far.
    const fresh = await countLoads(this.db, scope, q);
    this.remember(key, {
      count: fresh.count,
      snapshot: fresh.snapshot,
      version: fresh.tabVersions,
      freshMs: Math.min(fresh.ms, cached?.freshMs ?? fresh.ms),
    });
    return { total: fresh.count, key };
  }

  private remember(key: string, entry: KeptCount) {
    this.counts.set(key, entry);
  }

  /**
   * load_changes only has to reach back as far as the oldest count worth bringing up to date:
   * after a write, at most every PURGE_EVERY_MS per instance, older entries are dropped in the
   * background (counts kept longer than PURGE_KEEP_SECONDS are counted afresh).
   */
  purgeChangesNow() {
    const now = Date.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    purgeLoadChanges(this.db, PURGE_KEEP_SECONDS).catch((err: unknown) => {
      this.log?.warn({ err }, 'purging load_changes failed; the next write retries');
      this.lastPurge = 0;
    });
  }
}
