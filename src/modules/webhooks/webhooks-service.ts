import { isIP } from 'node:net';
import { and, count, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { firstRow } from '../../db/rows.js';
import type { SecretBox } from '../../db/secret-box.js';
import { notFound, validationFailed } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { offsetOf, pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { listDeliveries } from './deliveries-repository.js';
import { hostOf, newSigningSecret, nonPublicRange } from './delivery.js';
import { findMessage, listMessageAttempts, listMessages, messageExists } from './messages-repository.js';
import { type EventCatalogue, payloadSchema, typeNames } from './webhooks-events.js';
import type {
  CreateEndpointInput,
  ListDeliveriesQuery,
  PatchEndpointInput,
  WebhookEndpoint,
} from './webhooks-schemas.js';
import { WEBHOOK_URL } from './webhooks-schemas.js';
import {
  events,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
  webhookSecrets,
} from './webhooks-tables.js';

/** How long a rotated-out secret keeps signing (docs/decisions/0022-webhooks-outbox.md). */
const ROTATION_OVERLAP_SECONDS = 24 * 3600;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

export const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  organization_id: r.organization_id,
  url: r.url,
  description: r.description,
  event_types: r.event_types,
  headers: r.headers ?? null,
  status: r.status,
  disabled_reason: r.disabled_reason,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * Refuses what a webhook may not target: schemes other than http(s) always; in production plain
 * http and address literals that are not public unicast (names are checked again after DNS
 * resolution at delivery time); outside production http only to localhost. Each refusal is a 422
 * naming `url`, with `detail` like every validation error.
 */
export function validateTargetUrl(raw: string, production: boolean): string {
  const refuse = (msg: string, type = 'value_error') => validationFailed('body', ['url'], msg, type, raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('Must be an absolute http(s) URL', 'url_parsing');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw refuse(`Scheme '${url.protocol.replace(':', '')}' is not allowed; use https`, 'url_scheme');
  }
  if (url.username || url.password) {
    throw refuse('Must not carry credentials; use headers');
  }
  const host = hostOf(url).toLowerCase();
  const loopback =
    LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || (isIP(host) > 0 && host.startsWith('127.'));
  if (production) {
    if (url.protocol !== 'https:') throw refuse('Must use https', 'url_scheme');
    const range = loopback ? 'loopback' : isIP(host) > 0 ? nonPublicRange(host) : null;
    if (range) throw refuse(`Must target a public unicast address; ${host} is ${range}`, 'url_host');
  } else if (url.protocol === 'http:' && !loopback) {
    throw refuse('Must use https (http is allowed to localhost outside production)', 'url_scheme');
  }
  // What the rules above leave is held to the document's pattern, so it says exactly what is refused.
  if (!WEBHOOK_URL.test(raw)) throw refuse('Must be an absolute http(s) URL', 'url_parsing');
  return url.toString();
}

/** A new pending delivery of an event to an endpoint, due at once; returns its id. */
async function queueDelivery(db: DbOrTx, scope: OrgScope, endpointId: string, eventId: string) {
  const id = newId('delivery');
  await db
    .insert(webhookDeliveries)
    .values({ id, organization_id: scope.organizationId, endpoint_id: endpointId, event_id: eventId });
  return id;
}

export class WebhooksService {
  constructor(
    private readonly db: Db,
    private readonly production: boolean,
    /** Signing secrets are stored sealed; only the creation or rotation response shows one. */
    private readonly secrets: SecretBox,
    private readonly catalogue: EventCatalogue,
  ) {}

  private async find(scope: OrgScope, id: string): Promise<EndpointRow> {
    const [row] = await this.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.organization_id, scope.organizationId), eq(webhookEndpoints.id, id)));
    if (!row) throw notFound('Webhook endpoint', id, 'endpoint_id');
    return row;
  }

  async create(scope: OrgScope, input: CreateEndpointInput) {
    const url = validateTargetUrl(input.url, this.production);
    const secret = newSigningSecret();
    const row = await this.db.transaction(async (tx) => {
      const created = firstRow(
        await tx
          .insert(webhookEndpoints)
          .values({
            id: newId('webhookEndpoint'),
            organization_id: scope.organizationId,
            url,
            description: input.description ?? null,
            event_types: input.event_types,
            headers: input.headers ?? null,
          })
          .returning(),
        'insert of the webhook endpoint',
      );
      await tx.insert(webhookSecrets).values({
        id: newId('webhookSecret'),
        endpoint_id: created.id,
        secret: this.secrets.seal(secret, created.id),
      });
      return created;
    });
    return { ...toEndpoint(row), signing_secret: secret };
  }

  async get(scope: OrgScope, id: string) {
    return toEndpoint(await this.find(scope, id));
  }

  async list(scope: OrgScope, q: { page: number; page_size: number; status?: EndpointRow['status'] }) {
    const conditions: SQL[] = [eq(webhookEndpoints.organization_id, scope.organizationId)];
    if (q.status) conditions.push(eq(webhookEndpoints.status, q.status));
    const where = and(...conditions);
    const [rows, [total]] = await Promise.all([
      this.db
        .select()
        .from(webhookEndpoints)
        .where(where)
        .orderBy(desc(webhookEndpoints.created_at), desc(webhookEndpoints.id))
        .limit(q.page_size)
        .offset(offsetOf(q.page, q.page_size)),
      this.db.select({ n: count() }).from(webhookEndpoints).where(where),
    ]);
    return { data: rows.map(toEndpoint), pagination: pagination(q.page, q.page_size, total?.n ?? 0) };
  }

  async update(scope: OrgScope, id: string, input: PatchEndpointInput) {
    const current = await this.find(scope, id);
    const set: PgUpdateSetSource<typeof webhookEndpoints> = { updated_at: productNow };
    if (input.url !== undefined) set.url = validateTargetUrl(input.url, this.production);
    if (input.event_types !== undefined) set.event_types = input.event_types;
    if (input.headers !== undefined) set.headers = input.headers;
    if (input.description !== undefined) set.description = input.description;
    if (input.status !== undefined && input.status !== current.status) {
      set.status = input.status;
      if (input.status === 'ACTIVE') {
        set.disabled_reason = null;
        set.failing_since = null;
        set.failures_since_success = 0;
      }
    }
    const [row] = await this.db
      .update(webhookEndpoints)
      .set(set)
      .where(and(eq(webhookEndpoints.organization_id, scope.organizationId), eq(webhookEndpoints.id, id)))
      .returning();
    if (!row) throw notFound('Webhook endpoint', id, 'endpoint_id');
    return toEndpoint(row);
  }

  /** Deletes the endpoint; its secrets, queued deliveries and attempts go with it (cascade). */
  async remove(scope: OrgScope, id: string) {
    const deleted = await this.db
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.organization_id, scope.organizationId), eq(webhookEndpoints.id, id)))
      .returning({ id: webhookEndpoints.id });
    if (deleted.length === 0) throw notFound('Webhook endpoint', id, 'endpoint_id');
  }

  /** A new secret; the current ones keep signing for 24 h (both signatures are sent meanwhile). */
  async rotateSecret(scope: OrgScope, id: string) {
    const secret = newSigningSecret();
    const row = await this.db.transaction(async (tx) => {
      const [endpoint] = await tx
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.organization_id, scope.organizationId), eq(webhookEndpoints.id, id)))
        .for('update');
      if (!endpoint) throw notFound('Webhook endpoint', id, 'endpoint_id');
      await tx
        .update(webhookSecrets)
        .set({ expires_at: sql`now() + make_interval(secs => ${ROTATION_OVERLAP_SECONDS})` })
        .where(and(eq(webhookSecrets.endpoint_id, id), isNull(webhookSecrets.expires_at)));
      await tx
        .insert(webhookSecrets)
        .values({ id: newId('webhookSecret'), endpoint_id: id, secret: this.secrets.seal(secret, id) });
      return endpoint;
    });
    return { ...toEndpoint(row), signing_secret: secret };
  }

  async attempts(scope: OrgScope, id: string, q: { page: number; page_size: number }) {
    await this.find(scope, id);
    const where = and(
      eq(webhookAttempts.organization_id, scope.organizationId),
      eq(webhookAttempts.endpoint_id, id),
    );
    const [rows, [total]] = await Promise.all([
      this.db
        .select()
        .from(webhookAttempts)
        .where(where)
        .orderBy(desc(webhookAttempts.created_at), desc(webhookAttempts.id))
        .limit(q.page_size)
        .offset(offsetOf(q.page, q.page_size)),
      this.db.select({ n: count() }).from(webhookAttempts).where(where),
    ]);
    return {
      data: rows.map(({ organization_id: _o, ...r }) => r),
      pagination: pagination(q.page, q.page_size, total?.n ?? 0),
    };
  }

  /** GET /webhooks/deliveries: the organization's deliveries, newest first. */
  async deliveries(scope: OrgScope, q: ListDeliveriesQuery) {
    const { page, page_size, ...filters } = q;
    const { rows, total } = await listDeliveries(this.db, scope, filters, { page, page_size });
    return { data: rows, pagination: pagination(page, page_size, total) };
  }

  /** A `ping` event for this endpoint only. */
  async test(scope: OrgScope, id: string) {
    const endpoint = await this.find(scope, id);
    return this.db.transaction(async (tx) => {
      const eventId = newId('event');
      await tx.insert(events).values({
        id: eventId,
        organization_id: scope.organizationId,
        type: 'ping',
        data: { endpoint_id: endpoint.id, message: 'Test event from Envoy' },
      });
      const deliveryId = await queueDelivery(tx, scope, endpoint.id, eventId);
      return { delivery_id: deliveryId, event_id: eventId, endpoint_id: endpoint.id };
    });
  }

  /** Sends a past delivery's event again, as a new delivery with the same event id. */
  async replay(scope: OrgScope, deliveryId: string) {
    const [past] = await this.db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.organization_id, scope.organizationId),
          eq(webhookDeliveries.id, deliveryId),
        ),
      );
    if (!past) throw notFound('Webhook delivery', deliveryId, 'delivery_id');
    const id = await queueDelivery(this.db, scope, past.endpoint_id, past.event_id);
    return { delivery_id: id, event_id: past.event_id, endpoint_id: past.endpoint_id };
  }

  /** GET /webhooks/endpoints/{id}/messages: the events sent to one endpoint, newest first. */
  async messages(scope: OrgScope, id: string, q: { page: number; page_size: number }) {
    await this.find(scope, id);
    const { rows, total } = await listMessages(this.db, scope, id, q);
    return { data: rows, pagination: pagination(q.page, q.page_size, total) };
  }

  /** GET /webhooks/messages/{id}/attempts: every HTTP attempt of a message, oldest first. */
  async messageAttempts(scope: OrgScope, messageId: string) {
    if (!(await messageExists(this.db, scope, messageId))) {
      throw notFound('Webhook message', messageId, 'message_id');
    }
    return listMessageAttempts(this.db, scope, messageId);
  }

  /**
   * Sends a message again to one endpoint it was sent to, as a new delivery of the same event (so
   * the same `webhook-id` and body); returns the message as it stands then.
   */
  async replayMessage(scope: OrgScope, messageId: string, endpointId: string) {
    if (!(await messageExists(this.db, scope, messageId))) {
      throw notFound('Webhook message', messageId, 'message_id');
    }
    await this.find(scope, endpointId);
    return this.db.transaction(async (tx) => {
      if (!(await findMessage(tx, scope, messageId, endpointId))) {
        throw notFound(`Webhook message '${messageId}' for endpoint`, endpointId, 'endpoint_id');
      }
      await queueDelivery(tx, scope, endpointId, messageId);
      return defined(await findMessage(tx, scope, messageId, endpointId), 'the replayed message');
    });
  }

  /** The type names of the catalogue, in its order. */
  eventTypeNames() {
    return typeNames(this.catalogue);
  }

  eventTypes() {
    return {
      data: this.catalogue.map((e) => ({
        type: e.type,
        description: e.description,
        schema: payloadSchema(e.data),
      })),
    };
  }
}
