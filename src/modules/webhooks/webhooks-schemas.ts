import { z } from 'zod';
import { checkCreatedRange, createdRangeShape } from '../../http/list-query.js';
import { documentAs } from '../../http/openapi.js';
import { pageQuery } from '../../http/page-query.js';
import { dateTime, prefixedId, queryList, storedEnum, text } from '../../http/schemas.js';
import { DELIVERY_STATUSES, ENDPOINT_STATUSES } from './webhooks-tables.js';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the service sets itself; an endpoint may not override them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'user-agent',
]);

const ONE_LINE = /^[^\r\n]*$/;

/** `s` with each letter matching either case, for patterns that cannot carry a flag. */
const anyCase = (s: string) => s.replace(/[a-z]/g, (c) => `[${c.toUpperCase()}${c}]`);

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H16 = '[0-9A-Fa-f]{1,4}';
const IPV6 =
  `(?:(?:${H16}:){7}${H16}|(?:${H16}:){1,7}:|(?:${H16}:){1,6}:${H16}|(?:${H16}:){1,5}(?::${H16}){1,2}|` +
  `(?:${H16}:){1,4}(?::${H16}){1,3}|(?:${H16}:){1,3}(?::${H16}){1,4}|(?:${H16}:){1,2}(?::${H16}){1,5}|` +
  `${H16}:(?::${H16}){1,6}|:(?:(?::${H16}){1,7}|:)|` +
  // An IPv4 address in its last 32 bits: ::ffff:8.8.8.8, 64:ff9b::1.2.3.4, and the full form.
  `(?:${H16}:){6}${IPV4}|::(?:[Ff]{4}(?::0{1,4})?:)?${IPV4}|(?:${H16}:){1,4}:${IPV4})`;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A host name whose last label starts with a letter (a numeric one would be read as an address). */
const HOSTNAME = `(?:${LABEL}\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?`;
const PORT =
  '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?';
const LOOPBACK = `(?:${anyCase('localhost')}|(?:${LABEL}\\.)+${anyCase('localhost')}|127(?:\\.${OCTET}){3}|\\[::1\\])`;

/**
 * The webhook targets the API accepts, as the document states them: `https://` and a host name,
 * an IPv4 address or a bracketed IPv6 address, or `http://` to this machine (localhost, a name
 * under it, 127.x.x.x or [::1]); an optional port; then any printable ASCII path, query and
 * fragment. In production only `https` to a public unicast address is accepted besides (checked
 * when the endpoint is saved, and again after DNS resolution at every delivery).
 */
export const WEBHOOK_URL = new RegExp(
  `^(?:${anyCase('https')}://(?:${HOSTNAME}|${IPV4}|\\[${IPV6}\\])|${anyCase('http')}://${LOOPBACK})${PORT}(?:[/?#][\\x21-\\x7E]*)?$`,
);

const webhookUrl = () =>
  z
    .string()
    .min(1)
    .max(2000)
    .meta({
      pattern: WEBHOOK_URL.source,
      description:
        'Where deliveries go: `https://` (or `http://` to localhost outside production) with a host name or address, ' +
        'an optional port, path and query. In production the address must be public unicast.',
    });

/** The reserved names and the `webhook-` prefix, as a pattern matching them in any letter case. */
const RESERVED_PATTERN = anyCase(`^(?:${[...RESERVED_HEADERS].join('|')})$|^webhook-`);

const headers = documentAs(
  z
    .record(z.string(), z.string().max(1000).regex(ONE_LINE, 'must be one line'))
    .nullable()
    .superRefine((value, ctx) => {
      if (!value) return;
      const names = Object.keys(value);
      if (names.length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 headers' });
      for (const name of names) {
        const lower = name.toLowerCase();
        if (!HEADER_NAME.test(name) || RESERVED_HEADERS.has(lower) || lower.startsWith('webhook-')) {
          ctx.addIssue({ code: 'custom', message: `header '${name}' is not allowed`, path: [name] });
        }
      }
    }),
  () => ({
    anyOf: [
      {
        type: 'object',
        maxProperties: 20,
        propertyNames: { pattern: HEADER_NAME.source, not: { pattern: RESERVED_PATTERN } },
        additionalProperties: { type: 'string', maxLength: 1000, pattern: ONE_LINE.source },
      },
      { type: 'null' },
    ],
  }),
).meta({
  description: 'Extra headers sent with every delivery (not `webhook-*`, `content-type`, `host`, ...)',
});

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    organization_id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    headers: z.record(z.string(), z.string()).nullable(),
    status: z.enum(ENDPOINT_STATUSES),
    disabled_reason: z.string().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export const endpointWithSecretSchema = webhookEndpointSchema
  .extend({
    signing_secret: z.string().meta({
      description: 'The Standard Webhooks signing secret (`whsec_...`); shown only in this response',
    }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const listEndpointsQuery = pageQuery().extend({ status: z.enum(ENDPOINT_STATUSES).optional() });
export const endpointIdParams = z.object({ endpoint_id: prefixedId('webhookEndpoint') });
export const deliveryIdParams = z.object({ delivery_id: prefixedId('delivery') });
export const listAttemptsQuery = pageQuery();
export const listMessagesQuery = pageQuery();

export const attemptSchema = z
  .object({
    id: z.string(),
    endpoint_id: z.string(),
    delivery_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    attempt_number: z.number().int(),
    succeeded: z.boolean(),
    status_code: z.number().int().nullable(),
    duration_ms: z.number().int(),
    response_body: z.string().nullable().meta({ description: 'The first 1 KB of the answer' }),
    error: z.string().nullable(),
    created_at: dateTime(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const queuedDeliverySchema = z
  .object({ delivery_id: z.string(), event_id: z.string(), endpoint_id: z.string() })
  .meta({ id: 'WebhookQueuedDelivery' });

/** A message id: the event id a receiver gets as `webhook-id` and as the body's `id`. */
export const messageIdParams = z.object({
  message_id: prefixedId('event').meta({
    description: 'The event id, as the receiver got it in `webhook-id` and in the body’s `id`',
  }),
});
export const replayMessageBody = z.object({
  endpoint_id: prefixedId('webhookEndpoint').meta({
    description: 'The endpoint of the organization to send it to again',
  }),
});

/** The body of every attempt of an event: `{id, type, created_at, organization_id, data}`. */
const webhookPayloadSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    created_at: z.string(),
    organization_id: z.string(),
    data: z.unknown(),
  })
  .meta({ id: 'WebhookPayload', description: 'The JSON body the receiver gets' });

export const webhookMessageSchema = z
  .object({
    id: z.string().meta({ description: 'The message id: the event id, the `webhook-id` of every attempt' }),
    endpoint_id: z.string(),
    event_type: z.string(),
    latest_status: z.enum(['PENDING', 'SUCCEEDED', 'DEAD']).meta({
      description:
        'Of the latest delivery: `PENDING` queued or waiting for a retry, `SUCCEEDED`, `DEAD` given up',
    }),
    attempt_count: z.number().int().meta({ description: 'HTTP attempts so far, replays included' }),
    last_response_status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Of the latest attempt; null before the first or when no answer came' }),
    next_attempt_at: dateTime().nullable().meta({ description: 'When a PENDING message is due (again)' }),
    created_at: dateTime().meta({ description: 'When the message was first queued for this endpoint' }),
    updated_at: dateTime(),
    payload: webhookPayloadSchema,
  })
  .meta({ id: 'WebhookMessage' });
export type WebhookMessage = z.infer<typeof webhookMessageSchema>;

export const messageAttemptSchema = z
  .object({
    id: z.string(),
    message_id: z.string(),
    endpoint_id: z.string(),
    delivery_id: z.string().meta({ description: 'The delivery it belongs to (a replay is a new one)' }),
    attempt: z.number().int().meta({ description: 'Its number within its delivery, from 1' }),
    max_attempts: z.number().int().meta({ description: 'Attempts a delivery gets at most' }),
    status: z.enum(['SUCCEEDED', 'FAILED', 'DEAD']).meta({
      description: '`DEAD`: the last attempt of a delivery that was given up',
    }),
    next_attempt_at: dateTime()
      .nullable()
      .meta({ description: 'When the retry after this failed attempt is due; null if none is' }),
    response_status_code: z.number().int().nullable().meta({ description: 'Null when no answer came' }),
    response_body_excerpt: z.string().nullable().meta({ description: 'The first 1 KB of the answer' }),
    error_message: z.string().nullable(),
    duration_ms: z.number().int(),
    delivered_at: dateTime().nullable().meta({ description: 'When it succeeded; null otherwise' }),
    created_at: dateTime(),
    payload: webhookPayloadSchema,
  })
  .meta({ id: 'WebhookMessageAttempt' });
export type WebhookMessageAttempt = z.infer<typeof messageAttemptSchema>;

export const eventTypesSchema = z.object({
  data: z.array(
    z.object({ type: z.string(), description: z.string(), schema: z.record(z.string(), z.unknown()) }),
  ),
});

/** The event type names of the catalogue the composition root hands the webhooks module. */
export type EventTypeNames = readonly [string, ...string[]];

const eventTypesList = (names: EventTypeNames) =>
  z
    .array(z.enum([...names, '*']))
    .min(1)
    .max(50)
    .transform((list) => [...new Set(list)])
    .meta({ description: 'Event types from GET /webhooks/event-types, or `["*"]` for all' });
type EventTypesSchema = ReturnType<typeof eventTypesList>;

const createEndpointBody = (eventTypes: EventTypesSchema) =>
  z.object({
    url: webhookUrl(),
    event_types: eventTypes,
    headers: headers.optional(),
    description: text(500).nullable().optional(),
  });

const patchEndpointBody = (eventTypes: EventTypesSchema) =>
  z.object({
    url: webhookUrl().optional(),
    event_types: eventTypes.optional(),
    headers: headers.optional(),
    description: text(500).nullable().optional(),
    status: z
      .enum(['ACTIVE', 'PAUSED'])
      .optional()
      .meta({ description: 'PAUSED holds deliveries until ACTIVE again; ACTIVE clears `disabled_reason`' }),
  });

const listDeliveriesQuery = (names: EventTypeNames) =>
  checkCreatedRange(
    pageQuery().extend({
      status: queryList(z.enum(DELIVERY_STATUSES)).optional(),
      event_type: queryList(z.enum(names))
        .optional()
        .meta({ description: 'Event types from GET /webhooks/event-types' }),
      endpoint_id: prefixedId('webhookEndpoint')
        .optional()
        .meta({ description: "One endpoint's deliveries (an id of another organization matches none)" }),
      ...createdRangeShape,
    }),
  );

const deliverySchema = (names: EventTypeNames) =>
  z
    .object({
      id: z.string(),
      endpoint_id: z.string(),
      endpoint_url: z.string(),
      event_id: z.string().meta({ description: 'The `webhook-id` of every attempt of this delivery' }),
      event_type: storedEnum(names),
      status: z.enum(DELIVERY_STATUSES).meta({
        description: '`pending`: queued or waiting for a retry; `succeeded`; `failed`: given up',
      }),
      attempt_count: z.number().int(),
      next_attempt_at: dateTime()
        .nullable()
        .meta({ description: 'When a pending delivery is due (again); null once it succeeded or failed' }),
      last_attempt: z
        .object({
          attempt_number: z.number().int(),
          succeeded: z.boolean(),
          status_code: z.number().int().nullable().meta({ description: 'Null when no answer came' }),
          error: z.string().nullable(),
          created_at: dateTime(),
        })
        .nullable()
        .meta({ description: 'The latest HTTP attempt; null before the first' }),
      created_at: dateTime(),
      updated_at: dateTime(),
    })
    .meta({ id: 'WebhookDelivery' });

function buildEventTypeSchemas(names: EventTypeNames) {
  const eventTypes = eventTypesList(names);
  return {
    createEndpointBody: createEndpointBody(eventTypes),
    patchEndpointBody: patchEndpointBody(eventTypes),
    listDeliveriesQuery: listDeliveriesQuery(names),
    deliverySchema: deliverySchema(names),
  };
}
export type EventTypeSchemas = ReturnType<typeof buildEventTypeSchemas>;

const built = new Map<string, EventTypeSchemas>();

/**
 * The schemas that name the event types (subscriptions, the delivery list's filter, a delivery),
 * built from the catalogue the module is handed; the webhooks module itself knows no event type.
 * Built once per catalogue: the delivery schema carries an OpenAPI component id, which may be
 * registered only once per process.
 */
export function eventTypeSchemas(names: EventTypeNames): EventTypeSchemas {
  const key = names.join(',');
  const cached = built.get(key);
  if (cached) return cached;
  const schemas = buildEventTypeSchemas(names);
  built.set(key, schemas);
  return schemas;
}

export type CreateEndpointInput = z.output<EventTypeSchemas['createEndpointBody']>;
export type PatchEndpointInput = z.output<EventTypeSchemas['patchEndpointBody']>;
export type ListDeliveriesQuery = z.output<EventTypeSchemas['listDeliveriesQuery']>;
export type WebhookDelivery = z.infer<EventTypeSchemas['deliverySchema']>;
