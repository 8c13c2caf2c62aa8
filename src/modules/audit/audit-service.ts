import type { Db } from '../../db/client.js';
import { type LaggedReads, onPrimary } from '../../db/replicas.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { listAuditLog } from './audit-repository.js';
import type { ListAuditLogQuery } from './audit-schemas.js';

export class AuditLogService {
  constructor(
    db: Db,
    private readonly reads: LaggedReads = onPrimary(db),
  ) {}

  /** The organization's audit log, newest first, filtered. */
  async list(scope: OrgScope, q: ListAuditLogQuery) {
    const { rows, total } = await this.reads.read(scope, (db) =>
      listAuditLog(
        db,
        scope,
        {
          actorId: q.actor_id,
          actorType: q.actor_type,
          entityType: q.entity_type,
          entityId: q.entity_id,
          actions: q.action,
          createdAfter: q.created_after,
          createdBefore: q.created_before,
        },
        q.page,
        q.page_size,
      ),
    );
    return { data: rows, pagination: pagination(q.page, q.page_size, total) };
  }
}
