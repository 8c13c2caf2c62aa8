import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import type { HeldTransaction } from '../db/held-transaction.js';
import { AppError, stateConflict, unprocessable, validationFailed } from '../domain/errors.js';
import { canonicalJson } from '../lib/canonical-json.js';
import { scopeOf } from './authentication.js';
import { renderError } from './error-handler.js';
import type { Claim, IdempotencyStore } from './idempotency-store.js';

export { IdempotencyStore } from './idempotency-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route accepts an Idempotency-Key header (spec: Limits, Idempotency). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
    /** The transaction the keyed request runs in, from its claim to its stored response. */
    idempotencyTx: HeldTransaction | null;
  }
}

function principalOf(request: FastifyRequest): string {
  const p = request.principal;
  if (p?.kind === 'api_key') return `key:${p.apiKeyId}`;
  if (p?.kind === 'bearer') return `user:${p.userId}`;
  return 'system';
}

const HEADER = 'idempotency-key';
/**
 * Printable ASCII, up to 255 characters, not starting with a space (HTTP strips the spaces around
 * a header's value, so a key is never blank nor starts with one as the server reads it).
 */
const KEY_FORMAT = /^[\x21-\x7E][\x20-\x7E]{0,254}$/;
const KEY_RULE = 'Must be 1 to 255 printable ASCII characters, not starting with a space';
/** Response headers worth replaying; rate-limit and request-id headers belong to the retry. */
const STORED_HEADERS = ['content-type', 'location'];

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

export interface IdempotencyOptions {
  store: IdempotencyStore;
}

/**
 * Before the handler of an idempotent route: holds the key for this request (its transaction and
 * its lock), and claims it; or replays the response stored for it, or refuses (the key reused by
 * another credential or request, or its request still running).
 */
const claimOrReplay = (store: IdempotencyStore) => async (request: FastifyRequest, reply: FastifyReply) => {
  if (!request.routeOptions.config.idempotent) return;
  const key = request.headers[HEADER];
  if (key === undefined) return;
  if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
    throw validationFailed('header', [HEADER], KEY_RULE);
  }
  const path = request.url.split('?')[0];
  const claim: Claim = {
    organizationId: scopeOf(request).organizationId,
    endpoint: `${request.method} ${request.routeOptions.url}`,
    key,
    principal: principalOf(request),
    fingerprint: createHash('sha256')
      .update(`${request.method}\n${path}\n${request.canonicalBody ?? canonicalJson(request.body)}`)
      .digest('hex'),
  };
  const held = await store.hold(claim);
  if (!held) {
    throw stateConflict(
      'idempotency_key_in_progress',
      `A request with Idempotency-Key '${key}' is still in progress; retry shortly`,
      HEADER,
    );
  }
  let existing: Awaited<ReturnType<IdempotencyStore['find']>>;
  try {
    if (await store.claim(held.tx, claim, claim.fingerprint)) {
      request.idempotencyClaim = claim;
      request.idempotencyTx = held;
      return;
    }
    existing = await store.find(claim, held.tx);
  } finally {
    if (!request.idempotencyTx) await held.end(false).catch(() => {});
  }
  if (!existing)
    throw stateConflict('idempotency_key_in_progress', `Idempotency-Key '${key}' is busy`, HEADER);
  // Another credential of the organization reusing the key learns nothing of the response.
  if (existing.principal !== claim.principal) {
    throw unprocessable(
      'idempotency_key_reused',
      `Idempotency-Key '${key}' was already used by another credential`,
      HEADER,
    );
  }
  if (existing.fingerprint !== claim.fingerprint) {
    throw unprocessable(
      'idempotency_key_reused',
      `Idempotency-Key '${key}' was already used with a different request`,
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
};

/**
 * After the handler: stores the response in the request's transaction and commits it with the
 * request's writes; a 5xx or 429 rolls everything back, so a retry runs the request afresh. When
 * the commit cannot be confirmed, the stored record says whether it happened.
 */
const recordResponse =
  (store: IdempotencyStore) => async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = request.idempotencyClaim;
    const held = request.idempotencyTx;
    if (!claim || !held) return payload;
    request.idempotencyClaim = null;
    request.idempotencyTx = null;
    const status = reply.statusCode;
    if (status >= 500 || status === 429) {
      await held.end(false).catch(() => {});
      return payload;
    }
    const outcome: Outcome = { status, headers: storedHeaders(reply), body: bodyText(payload) };
    try {
      await store.complete(claim, outcome.status, outcome.headers, outcome.body, held.tx);
      await held.end(true);
      await held.commitQueue.run(afterCommitFailed(request));
      return payload;
    } catch (err) {
      await held.end(false).catch(() => {});
      request.log.warn({ err }, 'could not commit the keyed request with its response');
      return settleUncertain(store, request, reply, { claim, held, outcome }, payload);
    }
  };

const afterCommitFailed = (request: FastifyRequest) => (err: unknown) =>
  request.log.error({ err }, 'work queued for after the commit of a keyed request failed');

interface Outcome {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

function storedHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}

function bodyText(payload: unknown): string | null {
  const body =
    typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  return body === '' ? null : body;
}

/**
 * The request's transaction failed to commit, or its connection died at the commit. PostgreSQL
 * says, by the transaction's id, whether it committed; if it did, the response goes out as it is. If not, nothing it did was kept: a
 * refusal (4xx) is still the right answer and is stored on its own; a success is not true any more
 * and becomes 503. If the database cannot say, 503 tells the client to retry with the same key.
 */
async function settleUncertain(
  store: IdempotencyStore,
  request: FastifyRequest,
  reply: FastifyReply,
  { claim, held, outcome }: { claim: Claim; held: HeldTransaction; outcome: Outcome },
  payload: unknown,
): Promise<unknown> {
  let committed: boolean | null = null;
  // A connection that died at the commit leaves its transaction "in progress" for a moment.
  for (let attempt = 0; attempt < 5 && committed === null; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 100 * attempt));
    try {
      committed = await store.committed(held);
    } catch (err) {
      request.log.warn({ err }, 'could not read whether the keyed request committed');
    }
  }
  if (committed) {
    await held.commitQueue.run(afterCommitFailed(request));
    return payload;
  }
  // Not committed, or not known: what waited for the commit is not sent (docs/reliability-and-security.md).
  held.commitQueue.drop();
  if (committed === false && outcome.status >= 400) {
    await store.storeOutcome(claim, outcome).catch(() => false);
    return payload;
  }
  const message =
    committed === false
      ? 'The request was not applied: the database connection was lost; retry it'
      : `Whether the request was applied is not known yet: retry with the same Idempotency-Key, which returns the stored response if it was and runs it if it was not`;
  reply.status(503).removeHeader('location').type('application/json; charset=utf-8');
  return JSON.stringify(renderError(new AppError(503, 'service_unavailable', message)));
}

async function idempotencyPlugin(app: FastifyInstance, { store }: IdempotencyOptions) {
  app.decorateRequest('idempotencyClaim', null);
  app.decorateRequest('idempotencyTx', null);

  // Document the header on every route that accepts it.
  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return;
    route.schema ??= {};
    if (!route.schema.headers) route.schema.headers = z.looseObject({ [HEADER]: headerDoc });
  });

  app.addHook('preValidation', claimOrReplay(store));

  app.addHook('onSend', recordResponse(store));
  // A request that ended without its response being sent (the client went away) rolls back.
  app.addHook('onResponse', async (request) => {
    const held = request.idempotencyTx;
    if (!held) return;
    request.idempotencyTx = null;
    request.idempotencyClaim = null;
    await held.end(false).catch(() => {});
  });
}

export const idempotency = fp(idempotencyPlugin, { name: 'idempotency', dependencies: ['authentication'] });
