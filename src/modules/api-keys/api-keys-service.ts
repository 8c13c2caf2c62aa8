import type { Db } from '../../db/client.js';
import type { UniqueConstraint } from '../../db/pg-errors.js';
import { notFound, stateConflict } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { WallClock } from '../../lib/wall-clock.js';
import { type ApiKeyCredentials, announceApiKeyChange } from './api-key-credentials.js';
import {
  type ApiKeyRow,
  deactivateApiKey,
  findApiKey,
  insertApiKey,
  listApiKeys,
  markReplaced,
} from './api-keys-repository.js';
import type { ApiKey } from './api-keys-schemas.js';
import { generateKeySecret, hashKeySecret } from './key-secrets.js';

/** The unique constraints whose violation is a 409 on the field named (registered by buildServices). */
export const apiKeyUniqueConstraints: readonly UniqueConstraint[] = [
  {
    constraint: 'api_keys_organization_name_key',
    param: 'name',
    message: 'An active API key with this name already exists',
  },
];

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    organization_id: row.organization_id,
    is_active: row.is_active,
    description: row.description,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export class ApiKeysService {
  constructor(
    private readonly db: Db,
    private readonly credentials: ApiKeyCredentials,
    private readonly wall: WallClock,
  ) {}

  async create(
    scope: OrgScope,
    input: { name: string; description?: string | null; expires_at?: Date | null },
  ) {
    const secret = generateKeySecret();
    const row = await insertApiKey(this.db, scope, {
      id: newId('apiKey'),
      name: input.name.trim(),
      description: input.description ?? null,
      expires_at: input.expires_at ?? null,
      key_hash: hashKeySecret(secret),
      created_by_id: scope.principal.userId,
    });
    return { ...toApiKey(row), key: secret };
  }

  async list(scope: OrgScope, query: { page: number; page_size: number; is_active?: boolean | undefined }) {
    const { rows, total } = await listApiKeys(this.db, scope, {
      page: query.page,
      pageSize: query.page_size,
      isActive: query.is_active,
    });
    return { data: rows.map(toApiKey), pagination: pagination(query.page, query.page_size, total) };
  }

  async get(scope: OrgScope, id: string) {
    const row = await findApiKey(this.db, scope, id);
    if (!row) throw notFound('API key', id, 'id');
    return toApiKey(row);
  }

  /** Deactivates the key; the record stays listed with is_active false. Repeats are no-ops. */
  async deactivate(scope: OrgScope, id: string): Promise<void> {
    const changed = await deactivateApiKey(this.db, scope, id);
    if (!changed && !(await findApiKey(this.db, scope, id))) throw notFound('API key', id, 'id');
    if (changed) await announceApiKeyChange(this.db, id);
    this.credentials.forget(id);
  }

  /** Issues a replacement with the same name; the old key keeps working for `expireOldInSeconds`. */
  async regenerate(scope: OrgScope, id: string, expireOldInSeconds: number) {
    const secret = generateKeySecret();
    const replacement = await this.db.transaction(async (tx) => {
      const old = await findApiKey(tx, scope, id, true);
      if (!old) throw notFound('API key', id, 'id');
      if (!old.is_active)
        throw stateConflict(
          'api_key_not_regenerable',
          `API key '${id}' is deactivated and cannot be regenerated`,
        );
      if (old.replaced_by_id) {
        throw stateConflict(
          'api_key_not_regenerable',
          `API key '${id}' was already regenerated as '${old.replaced_by_id}'`,
        );
      }
      if (old.expires_at && old.expires_at.getTime() <= this.wall.ms()) {
        throw stateConflict(
          'api_key_not_regenerable',
          `API key '${id}' has expired and cannot be regenerated`,
        );
      }
      const replacementId = newId('apiKey');
      await markReplaced(tx, scope, id, replacementId, new Date(this.wall.ms() + expireOldInSeconds * 1000));
      await announceApiKeyChange(tx, id);
      return insertApiKey(tx, scope, {
        id: replacementId,
        name: old.name,
        description: old.description,
        expires_at: old.expires_at,
        key_hash: hashKeySecret(secret),
        created_by_id: scope.principal.userId ?? old.created_by_id,
      });
    });
    this.credentials.forget(id);
    return { ...toApiKey(replacement), key: secret };
  }
}
