import type { Db } from '../../db/client.js';
import { forbidden, notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import {
  deleteLoadView,
  findVisibleLoadView,
  insertLoadView,
  type LoadViewRow,
  listVisibleLoadViews,
  ownerIdOf,
  updateLoadView,
} from './load-views-repository.js';
import type { LoadView } from './load-views-schemas.js';

export function toLoadView(row: LoadViewRow): LoadView {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    filters: row.filters,
    visibility: row.visibility,
    owner_id: row.owner_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

type Visibility = LoadView['visibility'];

export class LoadViewsService {
  constructor(private readonly db: Db) {}

  async create(
    scope: OrgScope,
    input: { name: string; filters: Record<string, string | string[]>; visibility: Visibility },
  ) {
    const row = await insertLoadView(this.db, scope, {
      id: newId('loadView'),
      name: input.name.trim(),
      filters: input.filters,
      visibility: input.visibility,
      owner_id: ownerIdOf(scope.principal),
    });
    return toLoadView(row);
  }

  async list(scope: OrgScope, query: { page: number; page_size: number }) {
    const { rows, total } = await listVisibleLoadViews(this.db, scope, query.page, query.page_size);
    return { data: rows.map(toLoadView), pagination: pagination(query.page, query.page_size, total) };
  }

  async get(scope: OrgScope, id: string) {
    return toLoadView(await this.visible(scope, id));
  }

  async update(
    scope: OrgScope,
    id: string,
    input: {
      name?: string | undefined;
      filters?: Record<string, string | string[]> | undefined;
      visibility?: Visibility | undefined;
    },
  ) {
    this.mayChange(scope, await this.visible(scope, id));
    const changes: Partial<Pick<LoadViewRow, 'name' | 'filters' | 'visibility'>> = {};
    if (input.name !== undefined) changes.name = input.name.trim();
    if (input.filters !== undefined) changes.filters = input.filters;
    if (input.visibility !== undefined) changes.visibility = input.visibility;
    const row = await updateLoadView(this.db, scope, id, changes);
    if (!row) throw notFound('Load view', id, 'view_id');
    return toLoadView(row);
  }

  async delete(scope: OrgScope, id: string) {
    this.mayChange(scope, await this.visible(scope, id));
    await deleteLoadView(this.db, scope, id);
  }

  private async visible(scope: OrgScope, id: string) {
    const row = await findVisibleLoadView(this.db, scope, id);
    if (!row) throw notFound('Load view', id, 'view_id');
    return row;
  }

  /** Its creator changes a view; an organization view also its OWNERs and ADMINs. */
  private mayChange(scope: OrgScope, row: LoadViewRow) {
    if (row.owner_id === ownerIdOf(scope.principal)) return;
    const role = scope.principal.role;
    if (row.visibility === 'organization' && (role === 'OWNER' || role === 'ADMIN')) return;
    throw forbidden(`Only the creator of load view '${row.id}' or an organization admin may change it`);
  }
}
