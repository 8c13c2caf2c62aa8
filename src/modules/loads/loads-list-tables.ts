// The structures that keep the load list's counts exact without counting loads (counters, the
// write log and versions), each written by triggers on loads in the same transaction as the write.
// The loads themselves and the records the list's tabs read are in loads-tables.

import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import { tstz } from '../../db/columns.js';

/**
 * The distinct values of the load columns filtered case-insensitively or by substring
 * (`customer_name`, `origin_city`, `destination_city`), per organization, kept by a statement
 * trigger on loads in the same transaction as every write (migration 0013_load_list_indexes). A
 * filter first picks the matching values here (a few hundred rows), then reads the loads through
 * the (organization_id, column) index with `= ANY(values)`. Values are never removed: one no load
 * carries any more matches nothing.
 */
export const loadFilterValues = pgTable(
  'load_filter_values',
  {
    organization_id: text('organization_id').notNull(),
    field: text('field').notNull(),
    value: text('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.field, t.value] })],
);

/** The filters whose counts load_facet_counts keeps, with the value each load is counted under. */
export const LOAD_FACETS = ['tms_status', 'mode', 'equipment_type', 'is_posted', 'rep_name'] as const;
export type LoadFacet = (typeof LOAD_FACETS)[number];

/**
 * Loads per organization, facet, value and load_status ('' for none), kept by statement triggers
 * on loads in the same transaction as every write, as load_status_counts is: the exact count of a
 * list filtered by one of these alone (or with statuses) without counting loads. Values:
 * lower(tms_status), mode, equipment_type, is_posted ('true'/'false'), and each name of rep_names
 * (a load counts once under each of its names).
 */
export const loadFacetCounts = pgTable(
  'load_facet_counts',
  {
    organization_id: text('organization_id').notNull(),
    facet: text('facet', { enum: LOAD_FACETS }).notNull(),
    value: text('value').notNull(),
    load_status: text('load_status').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.facet, t.value, t.load_status] })],
);

/** PostgreSQL's 64-bit transaction id, read and written as its decimal text. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * The loads each statement wrote, per organization: their ids and, for updates and deletes, each
 * row as it was before (the columns the list filters read; null for inserts), by the transaction
 * that wrote them; appended by statement triggers on loads. A count of the list kept with the
 * snapshot it was taken at is brought up to date by re-testing the loads changed since that
 * snapshot (LoadsService.count): exact, and as cheap as the changes are few. Entries older than
 * every snapshot still usable are purged (load_changes_purge); `load_changes_horizon` holds the
 * xmin below which entries may be gone.
 */
export const loadChanges = pgTable(
  'load_changes',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    organization_id: text('organization_id').notNull(),
    xid: xid8('xid').notNull(),
    load_ids: text('load_ids').array().notNull(),
    befores: jsonb('befores').array(),
  },
  (t) => [index('load_changes_organization_xid_idx').on(t.organization_id, t.xid)],
);

/**
 * Loads per organization and load_status ('' for none), kept by statement triggers on loads in the
 * same transaction as every write (migration loads_custom): the exact total_count of the unfiltered
 * and status-only lists without counting a million rows.
 */
export const loadStatusCounts = pgTable(
  'load_status_counts',
  {
    organization_id: text('organization_id').notNull(),
    load_status: text('load_status').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.load_status] })],
);

/**
 * Per organization and source table (loads, offers, calls, outreaches, notifications,
 * carrier_verifications, escalations): a version bumped by statement triggers on every write, in
 * the same transaction. An exact count computed at one set of versions is still exact while none
 * has moved. One row per source, so writers of different tables never wait on each other.
 */
export const loadListVersions = pgTable(
  'load_list_versions',
  {
    organization_id: text('organization_id').notNull(),
    source: text('source').notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.source] })],
);

/** Marks written by each purge of load_changes: when, the log's last seq, and the snapshot xmin. */
export const loadChangeMarks = pgTable('load_change_marks', {
  taken_at: tstz('taken_at').primaryKey(),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  snapshot_xmin: xid8('snapshot_xmin').notNull(),
});

/** One row: load_changes entries of transactions below this xmin may have been purged. */
export const loadChangesHorizon = pgTable(
  'load_changes_horizon',
  {
    id: integer('id').primaryKey().default(1),
    snapshot_xmin: xid8('snapshot_xmin').notNull(),
  },
  (t) => [check('load_changes_horizon_one_row', sql`${t.id} = 1`)],
);
