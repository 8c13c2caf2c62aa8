import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import {
  attemptSchema,
  deliveryIdParams,
  type EventTypeNames,
  type EventTypeSchemas,
  endpointIdParams,
  endpointWithSecretSchema,
  eventTypeSchemas,
  eventTypesSchema,
  listAttemptsQuery,
  listEndpointsQuery,
  listMessagesQuery,
  messageAttemptSchema,
  messageIdParams,
  queuedDeliverySchema,
  replayMessageBody,
  webhookEndpointSchema,
  webhookMessageSchema,
} from './webhooks-schemas.js';
import type { WebhooksService } from './webhooks-service.js';

const tags = ['webhooks'];
const manage = access.apiKeyOrBearer('OWNER', 'ADMIN');

const DELIVERY_NOTES =
  'Deliveries are signed with Standard Webhooks (`webhook-id` = the event id, the same on every retry; ' +
  '`webhook-timestamp`; `webhook-signature: v1,<base64 HMAC-SHA256>`), at least once, with no ordering ' +
  'promise: order by the event `created_at` (or the time-ordered event id) when it matters.';

type App = Parameters<FastifyPluginAsyncZod>[0];

export const webhooksRoutes: FastifyPluginAsyncZod<{
  webhooks: PerRequest<WebhooksService>;
  /** The event catalogue's type names, which the endpoint bodies' schemas list. */
  eventTypes: EventTypeNames;
}> = async (app, { webhooks: service, eventTypes }) => {
  const schemas = eventTypeSchemas(eventTypes);
  collectionRoutes(app, service, schemas);
  endpointRoutes(app, service, schemas);
  deliveryRoutes(app, service, schemas);
  messageRoutes(app, service);
};

/** The event types; create and list endpoints. */
function collectionRoutes(
  app: App,
  service: PerRequest<WebhooksService>,
  { createEndpointBody }: EventTypeSchemas,
) {
  app.get(
    '/webhooks/event-types',
    {
      config: { access: manage },
      schema: {
        operationId: 'listWebhookEventTypes',
        tags,
        summary: 'The event catalogue, each with a JSON schema of its `data`',
        description: `Every event body is \`{id: evt_..., type, created_at, organization_id, data}\`. ${DELIVERY_NOTES}`,
        response: { 200: eventTypesSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => service(request).eventTypes(),
  );

  app.post(
    '/webhooks/endpoints',
    {
      config: { access: manage, idempotent: true },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Register a webhook endpoint; the signing secret is shown once',
        description:
          '`url` must be https (http to localhost outside production). In production the target must be ' +
          'public unicast: an address in any special-purpose range (loopback, private, link-local, ' +
          'carrier-grade NAT, multicast, reserved, documentation; IPv4-compatible, 6to4, NAT64 and Teredo ' +
          'IPv6; an IPv4-mapped address is judged by the IPv4 it carries) is refused with 422 naming the ' +
          'range, when the endpoint is saved and again after DNS resolution at every delivery. ' +
          DELIVERY_NOTES,
        body: createEndpointBody,
        response: { 201: endpointWithSecretSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await service(request).create(scopeOf(request), request.body)),
  );

  app.get(
    '/webhooks/endpoints',
    {
      config: { access: manage },
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: 'List webhook endpoints, newest first',
        querystring: listEndpointsQuery,
        response: { 200: pageOf(webhookEndpointSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service(request).list(scopeOf(request), request.query),
  );
}

/** Read, update and delete one endpoint. */
function endpointRoutes(
  app: App,
  service: PerRequest<WebhooksService>,
  { patchEndpointBody }: EventTypeSchemas,
) {
  app.get(
    '/webhooks/endpoints/:endpoint_id',
    {
      config: { access: manage },
      schema: {
        operationId: 'getWebhookEndpoint',
        tags,
        summary: 'One webhook endpoint (its secrets are never shown again)',
        params: endpointIdParams,
        response: { 200: webhookEndpointSchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).get(scopeOf(request), request.params.endpoint_id),
  );

  app.patch(
    '/webhooks/endpoints/:endpoint_id',
    {
      config: { access: manage, idempotent: true },
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        summary: 'Change url, event types, headers, description, or pause and resume',
        description:
          '`status` PAUSED holds deliveries (events keep queuing) until ACTIVE again; ACTIVE also re-enables ' +
          'a DISABLED endpoint and clears `disabled_reason`.',
        params: endpointIdParams,
        body: patchEndpointBody,
        response: { 200: webhookEndpointSchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).update(scopeOf(request), request.params.endpoint_id, request.body),
  );

  app.delete(
    '/webhooks/endpoints/:endpoint_id',
    {
      config: { access: manage, idempotent: true },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Delete an endpoint with its secrets, queued deliveries and attempts',
        params: endpointIdParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      await service(request).remove(scopeOf(request), request.params.endpoint_id);
      return reply.status(204).send(null);
    },
  );
}

/** Rotate an endpoint's secret, its attempts, a test event, and replaying a delivery. */
function deliveryRoutes(
  app: App,
  service: PerRequest<WebhooksService>,
  { listDeliveriesQuery, deliverySchema }: EventTypeSchemas,
) {
  app.post(
    '/webhooks/endpoints/:endpoint_id/rotate-secret',
    {
      config: { access: manage, idempotent: true },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'Issue a new signing secret; the old one also signs for 24 h',
        description: 'While both are valid, `webhook-signature` carries both signatures, space-separated.',
        params: endpointIdParams,
        response: { 201: endpointWithSecretSchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await service(request).rotateSecret(scopeOf(request), request.params.endpoint_id)),
  );

  app.get(
    '/webhooks/endpoints/:endpoint_id/attempts',
    {
      config: { access: manage },
      schema: {
        operationId: 'listWebhookAttempts',
        tags,
        summary: 'Delivery attempts of an endpoint, newest first',
        params: endpointIdParams,
        querystring: listAttemptsQuery,
        response: { 200: pageOf(attemptSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).attempts(scopeOf(request), request.params.endpoint_id, request.query),
  );

  app.post(
    '/webhooks/endpoints/:endpoint_id/test',
    {
      config: { access: manage },
      schema: {
        operationId: 'testWebhookEndpoint',
        tags,
        summary: 'Queue a `ping` event to this endpoint',
        params: endpointIdParams,
        response: { 202: queuedDeliverySchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await service(request).test(scopeOf(request), request.params.endpoint_id)),
  );

  // Its own path: `/webhooks/deliveries/{delivery_id}/replay` is two segments longer, so neither can
  // match the other's requests.
  app.get(
    '/webhooks/deliveries',
    {
      config: { access: manage },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: "The organization's deliveries across its endpoints, newest first",
        description:
          'One delivery per event and endpoint (a replay adds another), with its status, attempts so far, ' +
          'when it is due again, and its last attempt. List parameters take repeated parameters or ' +
          'comma-separated values. `created_after` is inclusive, `created_before` exclusive; ' +
          '`created_after` later than `created_before` is 422. Ties break on id; `total_count` is exact.',
        querystring: listDeliveriesQuery,
        response: { 200: pageOf(deliverySchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service(request).deliveries(scopeOf(request), request.query),
  );

  app.post(
    '/webhooks/deliveries/:delivery_id/replay',
    {
      config: { access: manage },
      schema: {
        operationId: 'replayWebhookDelivery',
        tags,
        summary: 'Send a past delivery’s event again (same event id, so the same `webhook-id`)',
        params: deliveryIdParams,
        response: { 202: queuedDeliverySchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await service(request).replay(scopeOf(request), request.params.delivery_id)),
  );
}

const MESSAGE_NOTES =
  'A message is one event as sent to one endpoint; its id is the event id, which the receiver gets as ' +
  '`webhook-id` and as the body’s `id` on every attempt, retry and replay alike.';

/** Webhook history by message: an endpoint's messages, a message's attempts, replaying one. */
function messageRoutes(app: App, service: PerRequest<WebhooksService>) {
  app.get(
    '/webhooks/endpoints/:endpoint_id/messages',
    {
      config: { access: manage },
      schema: {
        operationId: 'listWebhookMessages',
        tags,
        summary: 'The messages sent to an endpoint, newest first, each with its body',
        description:
          `${MESSAGE_NOTES} Each carries the status of its latest delivery, the attempts so far (replays ` +
          'included), the status code of the latest attempt and the body delivered. Ordered by message id ' +
          '(time-ordered); `total_count` is exact.',
        params: endpointIdParams,
        querystring: listMessagesQuery,
        response: { 200: pageOf(webhookMessageSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).messages(scopeOf(request), request.params.endpoint_id, request.query),
  );

  app.get(
    '/webhooks/messages/:message_id/attempts',
    {
      config: { access: manage },
      schema: {
        operationId: 'listWebhookMessageAttempts',
        tags,
        summary: 'Every HTTP attempt of a message, to each endpoint, oldest first, with the body sent',
        description:
          `${MESSAGE_NOTES} An array, not a page. A message queued but not yet attempted answers \`[]\`; ` +
          'one never sent to an endpoint of the organization is 404.',
        params: messageIdParams,
        response: { 200: z.array(messageAttemptSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).messageAttempts(scopeOf(request), request.params.message_id),
  );

  app.post(
    '/webhooks/messages/:message_id/replay',
    {
      config: { access: manage },
      schema: {
        operationId: 'replayWebhookMessage',
        tags,
        summary: 'Send a message again to an endpoint it was sent to, with its original id',
        description:
          `${MESSAGE_NOTES} Queues a new delivery of the same event to \`endpoint_id\`, due at once: the ` +
          'receiver gets the same body and `webhook-id`, so it can deduplicate, and the attempt is recorded ' +
          'as a new one. Answers the message as it stands (`latest_status` PENDING). 404 when the message, ' +
          'or the endpoint, is not the organization’s, or the message was never sent to that endpoint.',
        params: messageIdParams,
        body: replayMessageBody,
        response: { 202: webhookMessageSchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await service(request).replayMessage(
            scopeOf(request),
            request.params.message_id,
            request.body.endpoint_id,
          ),
        ),
  );
}
