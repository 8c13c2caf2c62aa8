import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Db, DbOrTx } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import type { WallClock } from '../../lib/wall-clock.js';
import { apiKeys } from './api-keys-tables.js';
import { hashKeySecret, KEY_FORMAT } from './key-secrets.js';

export interface ApiKeyCredential {
  id: string;
  organizationId: string;
  createdById: string | null;
  isActive: boolean;
  expiresAt: Date | null;
}

export type VerifyResult = { ok: true; credential: ApiKeyCredential } | { ok: false; reason: string };

// A validated key is trusted for this long without asking the database again. A change to a key
// (deactivation, regeneration) is announced on API_KEY_CHANGES to every instance, which forgets the
// key at once; while an instance cannot hear the announcements it trusts a key for a second only.
const CACHE_TTL_MS = 10_000;
const UNANNOUNCED_TTL_MS = 1_000;
/** The PostgreSQL NOTIFY channel that carries the id of a changed API key. */
export const API_KEY_CHANGES = 'envoy_api_key_changed';

/** Tells every instance (after the transaction commits) that this key changed. */
export async function announceApiKeyChange(db: DbOrTx, id: string): Promise<void> {
  await db.execute(sql`SELECT pg_notify(${API_KEY_CHANGES}, ${id})`);
}
const CACHE_MAX = 10_000;
// last_used_at is written at most this often per key, at the wall clock's time.
const STAMP_INTERVAL_MS = 60_000;

/** What a credential check needs of a key row. */
const credentialColumns = {
  id: apiKeys.id,
  organizationId: apiKeys.organization_id,
  createdById: apiKeys.created_by_id,
  isActive: apiKeys.is_active,
  expiresAt: apiKeys.expires_at,
};

const byHash = preparedFor((db) =>
  db
    .select(credentialColumns)
    .from(apiKeys)
    .where(eq(apiKeys.key_hash, sql.placeholder('hash')))
    .prepare('api_key_by_hash'),
);

const byId = preparedFor((db) =>
  db
    .select(credentialColumns)
    .from(apiKeys)
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare('api_key_by_id'),
);

const stamp = preparedFor((db) =>
  db
    .update(apiKeys)
    .set({ last_used_at: sql`${sql.placeholder('now')}::timestamptz` })
    .where(
      and(
        eq(apiKeys.id, sql.placeholder('id')),
        or(
          isNull(apiKeys.last_used_at),
          lt(apiKeys.last_used_at, sql`${sql.placeholder('now')}::timestamptz - interval '60 seconds'`),
        ),
      ),
    )
    .prepare('api_key_stamp_last_used'),
);

/** Verifies API key secrets: SHA-256, one indexed lookup, and a short in-memory cache. */
export class ApiKeyCredentials {
  private readonly cache = new LRUCache<string, { credential: ApiKeyCredential | null; until: number }>({
    max: CACHE_MAX,
  });
  private readonly stampedAt = new LRUCache<string, number>({ max: CACHE_MAX });

  /** Whether changes announced by other instances reach this one now. */
  private hearsAnnouncements: () => boolean = () => false;

  constructor(
    private readonly db: Db,
    private readonly wall: WallClock,
  ) {}

  /** Called once the announcement listener exists. */
  listenWith(listening: () => boolean): void {
    this.hearsAnnouncements = listening;
  }

  async verify(secret: string): Promise<VerifyResult> {
    if (!KEY_FORMAT.test(secret)) return { ok: false, reason: 'The API key is not valid' };
    const hash = hashKeySecret(secret);
    const now = this.wall.ms();
    let entry = this.cache.get(hash);
    if (!entry || entry.until <= now) {
      const [row] = await byHash(this.db).execute({ hash });
      const ttl = this.hearsAnnouncements() ? CACHE_TTL_MS : UNANNOUNCED_TTL_MS;
      entry = { credential: row ?? null, until: now + ttl };
      this.cache.set(hash, entry);
    }
    const credential = entry.credential;
    if (!credential) return { ok: false, reason: 'The API key is not valid' };
    if (!credential.isActive) return { ok: false, reason: 'The API key has been deactivated' };
    if (credential.expiresAt && credential.expiresAt.getTime() <= now) {
      return { ok: false, reason: 'The API key has expired' };
    }
    await this.stampLastUsed(credential.id, now);
    return { ok: true, credential };
  }

  /**
   * A key that was verified earlier (a stream ticket it obtained, a stream it holds), looked up
   * again by id: null once it is deactivated or expired.
   */
  async activeById(id: string): Promise<ApiKeyCredential | null> {
    const [row] = await byId(this.db).execute({ id });
    if (!row?.isActive || (row.expiresAt && row.expiresAt.getTime() <= this.wall.ms())) return null;
    return row;
  }

  /** Drops a key from the cache: called when it is deactivated or its expiry changes. */
  forget(id: string): void {
    const hashes = [...this.cache.entries()].filter(([, e]) => e.credential?.id === id).map(([h]) => h);
    for (const hash of hashes) this.cache.delete(hash);
  }

  /** Drops every cached key: announcements may have been missed. */
  forgetAll(): void {
    this.cache.clear();
  }

  private async stampLastUsed(id: string, now: number) {
    const last = this.stampedAt.get(id);
    if (last !== undefined && now - last < STAMP_INTERVAL_MS) return;
    this.stampedAt.set(id, now);
    await stamp(this.db).execute({ id, now: new Date(now) });
  }
}
