import { and, eq, lte, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client.js';
import { HeldTransaction } from '../db/held-transaction.js';
import type { SecretBox } from '../db/secret-box.js';
import { idempotencyKeys } from './idempotency-tables.js';

/** One use of an Idempotency-Key: by whom, on which endpoint, for which request. */
export interface Claim {
  organizationId: string;
  endpoint: string;
  key: string;
  /** The credential that sent the request; a stored response is replayed to it alone. */
  principal: string;
  /** SHA-256 of method, path and canonical JSON body. */
  fingerprint: string;
}

const sealContext = (c: Claim) => `${c.organizationId}\n${c.endpoint}\n${c.key}`;

/** Claims, stored responses and their purge; built once per process by the composition root. */
export class IdempotencyStore {
  constructor(
    private readonly db: Db,
    private readonly sealed: SecretBox,
    private readonly ttlSeconds: number,
    /** A claim whose request has not finished after this long is taken to have crashed. */
    private readonly lockSeconds: number,
  ) {}

  /**
   * Opens the transaction a keyed request runs in and takes the key's lock in it: a transaction
   * lock, so it ends with the transaction, whatever ends that (commit, rollback, a connection
   * that died, a process that crashed). Null when another request holds the key now. The
   * transaction gives up when idle longer than the lock time.
   */
  async hold(c: Claim): Promise<HeldTransaction | null> {
    const held = await HeldTransaction.open(this.db);
    try {
      const { rows } = await held.tx.execute<{ locked: boolean; xid: string }>(
        sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${sealContext(c)}, 0)) AS locked,
                   pg_current_xact_id()::text AS xid`,
      );
      if (rows[0]?.locked) {
        held.xid = rows[0].xid;
        await held.tx.execute(
          sql.raw(`SET LOCAL idle_in_transaction_session_timeout = '${this.lockSeconds}s'`),
        );
        return held;
      }
    } catch (err) {
      await held.end(false).catch(() => {});
      throw err;
    }
    await held.end(false).catch(() => {});
    return null;
  }

  /**
   * Claims the key inside the request's transaction, so the claim, the request's writes and its
   * stored response commit together or not at all. An expired record, or the in-progress record of
   * the same request left by an earlier version, is taken over (the lock says nobody runs it).
   */
  async claim(tx: DbOrTx, c: Claim, fingerprint: string): Promise<boolean> {
    const rows = await tx
      .insert(idempotencyKeys)
      .values({
        organization_id: c.organizationId,
        endpoint: c.endpoint,
        key: c.key,
        principal: c.principal,
        fingerprint,
        state: 'in_progress',
        locked_until: sql`now() + ${`${this.lockSeconds} seconds`}::interval`,
        expires_at: sql`now() + ${`${this.ttlSeconds} seconds`}::interval`,
      })
      .onConflictDoUpdate({
        target: [idempotencyKeys.organization_id, idempotencyKeys.endpoint, idempotencyKeys.key],
        set: {
          principal: c.principal,
          fingerprint,
          state: 'in_progress',
          status_code: null,
          response_headers: null,
          response_body: null,
          locked_until: sql`excluded.locked_until`,
          expires_at: sql`excluded.expires_at`,
          created_at: sql`now()`,
        },
        setWhere: sql`${idempotencyKeys.expires_at} <= now()
          OR (${idempotencyKeys.state} = 'in_progress'
              AND ${idempotencyKeys.fingerprint} = excluded.fingerprint
              AND ${idempotencyKeys.principal} = excluded.principal)`,
      })
      .returning({ key: idempotencyKeys.key });
    return rows.length > 0;
  }

  async find(c: Claim, db: DbOrTx = this.db) {
    const [row] = await db.select().from(idempotencyKeys).where(this.match(c)).limit(1);
    return row ?? null;
  }

  /** Stores the response in the request's transaction (`tx`), or on its own (`this.db`). */
  async complete(
    c: Claim,
    status: number,
    headers: Record<string, string>,
    body: string | null,
    tx: DbOrTx = this.db,
  ) {
    const stored = body === null ? null : this.sealed.seal(body, sealContext(c));
    await tx
      .update(idempotencyKeys)
      .set({ state: 'completed', status_code: status, response_headers: headers, response_body: stored })
      .where(this.match(c));
  }

  /** Claims the key and stores an outcome in one transaction of its own; false if it could not. */
  async storeOutcome(c: Claim, o: { status: number; headers: Record<string, string>; body: string | null }) {
    const held = await this.hold(c);
    if (!held) return false;
    try {
      if (!(await this.claim(held.tx, c, c.fingerprint))) {
        await held.end(false);
        return false;
      }
      await this.complete(c, o.status, o.headers, o.body, held.tx);
      await held.end(true);
      return true;
    } catch {
      await held.end(false).catch(() => {});
      return false;
    }
  }

  /**
   * Whether a request's transaction committed, asked of PostgreSQL on another connection: true,
   * false (rolled back, or its connection died first), or null while the server has not yet
   * noticed that a dead connection's transaction is gone.
   */
  async committed(held: HeldTransaction): Promise<boolean | null> {
    if (held.xid === null) return false;
    const { rows } = await this.db.execute<{ status: string | null }>(
      sql`SELECT pg_xact_status(${held.xid}::xid8) AS status`,
    );
    const status = rows[0]?.status;
    return status === 'committed' ? true : status === 'aborted' ? false : null;
  }

  /** The stored body in plain text; undefined when it cannot be opened any more. */
  openBody(c: Claim, stored: string | null): string | null | undefined {
    if (stored === null) return null;
    return this.sealed.open(stored, sealContext(c)) ?? undefined;
  }

  async purgeExpired(): Promise<number> {
    const rows = await this.db
      .delete(idempotencyKeys)
      .where(lte(idempotencyKeys.expires_at, sql`now()`))
      .returning({ key: idempotencyKeys.key });
    return rows.length;
  }

  private match(c: Claim) {
    return and(
      eq(idempotencyKeys.organization_id, c.organizationId),
      eq(idempotencyKeys.endpoint, c.endpoint),
      eq(idempotencyKeys.key, c.key),
    );
  }
}
