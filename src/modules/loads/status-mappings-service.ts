import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import type { OrgScope } from '../../domain/scope.js';
import { DEFAULT_STATUS_MAP, normalizeTmsStatus } from './loads-ingestion.js';
import { statusMappingsOf } from './loads-repository.js';
import type { LOAD_STATUSES } from './loads-tables.js';
import { loadStatusMappings, loads } from './loads-tables.js';
import type { StatusMapping } from './status-mappings-schemas.js';

/**
 * The tms_status -> load_status table an organization works with: the default table
 * (docs/decisions/0018-tms-owns-load-status.md), extended or overridden by its own entries. A change also remaps the organization's loads that carry that
 * TMS status, in the same statement, so lists and counts agree at once.
 */
export class StatusMappings {
  constructor(private readonly db: Db) {}

  async list(scope: OrgScope) {
    const own = await statusMappingsOf(this.db, scope);
    const rows = new Map<string, StatusMapping>();
    for (const [tms_status, load_status] of DEFAULT_STATUS_MAP)
      rows.set(tms_status, { tms_status, load_status, source: 'default' });
    for (const [tms_status, load_status] of own) {
      rows.set(tms_status, {
        tms_status,
        // A mapping is saved only through its schema's LOAD_STATUSES enum.
        load_status: load_status as (typeof LOAD_STATUSES)[number],
        source: 'organization',
      });
    }
    return [...rows.values()].sort((a, b) => a.tms_status.localeCompare(b.tms_status));
  }

  async set(scope: OrgScope, tmsStatus: string, loadStatus: (typeof LOAD_STATUSES)[number]) {
    const key = normalizeTmsStatus(tmsStatus);
    const remapped = await this.db.transaction(async (tx) => {
      await tx
        .insert(loadStatusMappings)
        .values({ organization_id: scope.organizationId, tms_status: key, load_status: loadStatus })
        .onConflictDoUpdate({
          target: [loadStatusMappings.organization_id, loadStatusMappings.tms_status],
          set: { load_status: loadStatus, updated_at: productNow },
        });
      return this.remap(tx, scope, key, loadStatus);
    });
    return {
      tms_status: key,
      load_status: loadStatus,
      source: 'organization' as const,
      remapped_loads: remapped,
    };
  }

  /** Drops the organization's own entry: the default (or no status) applies again. */
  async remove(scope: OrgScope, tmsStatus: string) {
    const key = normalizeTmsStatus(tmsStatus);
    await this.db.transaction(async (tx) => {
      await tx
        .delete(loadStatusMappings)
        .where(
          and(
            eq(loadStatusMappings.organization_id, scope.organizationId),
            eq(loadStatusMappings.tms_status, key),
          ),
        );
      await this.remap(tx, scope, key, DEFAULT_STATUS_MAP.get(key) ?? null);
    });
  }

  private async remap(
    tx: Parameters<Parameters<Db['transaction']>[0]>[0],
    scope: OrgScope,
    key: string,
    status: string | null,
  ) {
    const rows = await tx
      .update(loads)
      .set({ load_status: status, updated_at: productNow })
      .where(
        and(
          eq(loads.organization_id, scope.organizationId),
          sql`lower(regexp_replace(trim(${loads.tms_status}), '\\s+', ' ', 'g')) = ${key}`,
          sql`${loads.load_status} IS DISTINCT FROM ${status}`,
        ),
      )
      .returning({ id: loads.id });
    return rows.length;
  }
}
