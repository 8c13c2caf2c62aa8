import { createHash } from 'node:crypto';
import { and, eq, lte, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import type { Db } from '../db/client.js';
import type { SecretBox } from '../db/secret-box.js';
import { stateConflict, unprocessable, validationFailed } from '../domain/errors.js';
import { scopeOf } from './authentication.js';
import { idempotencyKeys } from './idempotency-tables.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route accepts an Idempotency-Key header (spec: Limits, Idempotency). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
}

interface Claim {
  organizationId: string;
  endpoint: string;
  key: string;
  /** The credential that sent the request; a stored response is replayed to it alone. */
  principal: string;
}

function principalOf(request: FastifyRequest): string {
  const p = request.principal;
  if (p?.kind === 'api_key') return `key:${p.apiKeyId}`;
  if (p?.kind === 'bearer') return `user:${p.userId}`;
  return 'system';
}

const sealContext = (c: Claim) => `${c.organizationId}\n${c.endpoint}\n${c.key}`;

const HEADER = 'idempotency-key';
/**
 * Printable ASCII, up to 255 characters, not starting with a space (HTTP strips the spaces around
 * a header's value, so a key is never blank nor starts with one as the server reads it).
 */
const KEY_FORMAT = /^[\x21-\x7E][\x20-\x7E]{0,254}$/;
const KEY_RULE = 'Must be 1 to 255 printable ASCII characters, not starting with a space';
/** Response headers worth replaying; rate-limit and request-id headers belong to the retry. */
const STORED_HEADERS = ['content-type', 'location'];

/** JSON with object keys sorted at every level, so key order does not change a fingerprint. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

const headerDoc = z
  .string()
  .max(255)
  .regex(KEY_FORMAT, { message: KEY_RULE })
  .optional()
  .meta({
    description:
      'Up to 255 printable ASCII characters. A retry with the same key and request, from the same API key ' +
      'or user, returns the stored response with `Idempotent-Replayed: true` for 24 hours; the key sent ' +
      'by another credential, or with another request, is 422 `idempotency_key_reused`.',
  });

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
   * Claims the key in its own committed statement, before the handler runs: a concurrent duplicate
   * then finds the claim at once (409) instead of queueing behind the first request's transaction.
   * An expired record, or a crashed claim of the same request, is taken over.
   */
  async claim(c: Claim, fingerprint: string): Promise<boolean> {
    const rows = await this.db
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
          OR (${idempotencyKeys.state} = 'in_progress' AND ${idempotencyKeys.locked_until} <= now()
              AND ${idempotencyKeys.fingerprint} = excluded.fingerprint
              AND ${idempotencyKeys.principal} = excluded.principal)`,
      })
      .returning({ key: idempotencyKeys.key });
    return rows.length > 0;
  }

  async find(c: Claim) {
    const [row] = await this.db.select().from(idempotencyKeys).where(this.match(c)).limit(1);
    return row ?? null;
  }

  async complete(c: Claim, status: number, headers: Record<string, string>, body: string | null) {
    const stored = body === null ? null : this.sealed.seal(body, sealContext(c));
    await this.db
      .update(idempotencyKeys)
      .set({ state: 'completed', status_code: status, response_headers: headers, response_body: stored })
      .where(this.match(c));
  }

  /** The stored body in plain text; undefined when it cannot be opened any more. */
  openBody(c: Claim, stored: string | null): string | null | undefined {
    if (stored === null) return null;
    return this.sealed.open(stored, sealContext(c)) ?? undefined;
  }

  /** Frees the key (5xx, 429): a retry runs the operation again. */
  async release(c: Claim) {
    await this.db.delete(idempotencyKeys).where(and(this.match(c), eq(idempotencyKeys.state, 'in_progress')));
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

export interface IdempotencyOptions {
  store: IdempotencyStore;
}

/**
 * Before the handler of an idempotent route: claims the key for this request, or replays the
 * response stored for it, or refuses (the key reused by another credential or request, or its
 * request still running).
 */
const claimOrReplay = (store: IdempotencyStore) => async (request: FastifyRequest, reply: FastifyReply) => {
  if (!request.routeOptions.config.idempotent) return;
  const key = request.headers[HEADER];
  if (key === undefined) return;
  if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
    throw validationFailed('header', [HEADER], KEY_RULE);
  }
  const claim: Claim = {
    organizationId: scopeOf(request).organizationId,
    endpoint: `${request.method} ${request.routeOptions.url}`,
    key,
    principal: principalOf(request),
  };
  const path = request.url.split('?')[0];
  const fingerprint = createHash('sha256')
    .update(`${request.method}\n${path}\n${canonicalJson(request.body)}`)
    .digest('hex');

  // Two rounds: a record can expire or be released between the failed claim and the read.
  for (let round = 0; round < 2; round++) {
    if (await store.claim(claim, fingerprint)) {
      request.idempotencyClaim = claim;
      return;
    }
    const existing = await store.find(claim);
    if (!existing) continue;
    // Another credential of the organization reusing the key learns nothing of the response.
    if (existing.principal !== claim.principal) {
      throw unprocessable(
        'idempotency_key_reused',
        `Idempotency-Key '${key}' was already used by another credential`,
        HEADER,
      );
    }
    if (existing.fingerprint !== fingerprint) {
      throw unprocessable(
        'idempotency_key_reused',
        `Idempotency-Key '${key}' was already used with a different request`,
        HEADER,
      );
    }
    if (existing.state === 'in_progress') {
      throw stateConflict(
        'idempotency_key_in_progress',
        `A request with Idempotency-Key '${key}' is still in progress; retry shortly`,
        HEADER,
      );
    }
    const body = store.openBody(claim, existing.response_body);
    if (body === undefined) {
      throw stateConflict(
        'idempotency_key_unreadable',
        `The response stored for Idempotency-Key '${key}' can no longer be read (the encryption key changed); check the outcome, then retry with a new key`,
        HEADER,
      );
    }
    reply
      .status(existing.status_code ?? 200)
      .headers(existing.response_headers ?? {})
      .header('idempotent-replayed', 'true');
    return reply.send(body ?? undefined);
  }
  throw stateConflict(
    'idempotency_key_in_progress',
    `Idempotency-Key '${key}' is busy; retry shortly`,
    HEADER,
  );
};

/** After the handler: stores the response under the claimed key, or frees the key (5xx, 429). */
const recordResponse =
  (store: IdempotencyStore) => async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    const status = reply.statusCode;
    try {
      if (status >= 500 || status === 429) {
        await store.release(claim);
      } else {
        const headers: Record<string, string> = {};
        for (const name of STORED_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        const body =
          typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
        await store.complete(claim, status, headers, body === '' ? null : body);
      }
    } catch (err) {
      // The response still goes out; the claim's lock expires and a retry can proceed.
      request.log.error({ err }, 'could not record the idempotent response');
    }
    return payload;
  };

async function idempotencyPlugin(app: FastifyInstance, { store }: IdempotencyOptions) {
  app.decorateRequest('idempotencyClaim', null);

  // Document the header on every route that accepts it.
  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return;
    route.schema ??= {};
    if (!route.schema.headers) route.schema.headers = z.looseObject({ [HEADER]: headerDoc });
  });

  app.addHook('preValidation', claimOrReplay(store));

  app.addHook('onSend', recordResponse(store));
}

export const idempotency = fp(idempotencyPlugin, { name: 'idempotency', dependencies: ['authentication'] });
