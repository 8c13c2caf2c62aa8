import type {
  FastifyDynamicSwaggerOptions,
  SwaggerTransform,
  SwaggerTransformObject,
} from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { Access } from './access.js';
import { finalizeDocument, type OperationTraits, TRAITS_KEY } from './openapi-document.js';

/**
 * The OpenAPI document: @fastify/swagger collects the routes, fastify-type-provider-zod turns their
 * zod schemas into JSON Schema, and the passes of openapi-document.ts finish it. Routes declare
 * only what is theirs (schemas, operationId, tag, summary, access); what every operation shares is
 * added here, once.
 */

/** Every tag an operation may carry; the lint refuses an operation tagged with anything else. */
export const TAGS = [
  {
    name: 'auth',
    description:
      'Sign in with e-mail and password (or an invitation) for an access token and a refresh token; refresh, sign out; who you are.',
  },
  {
    name: 'members',
    description: 'The team: members and their roles, invitations by e-mail, removals.',
  },
  {
    name: 'api-keys',
    description: 'Long-lived keys for integrations, shown once, rotated without downtime.',
  },
  {
    name: 'loads',
    description:
      'Loads from the TMS (single and batch upserts), the filtered list, stats and status mappings.',
  },
  {
    name: 'load-views',
    description: 'Saved filters of the load list, private or shared with the organization.',
  },
  {
    name: 'carriers',
    description:
      'Carriers (single, batch and CSV ingestion), compliance, lane preferences and their audit trail.',
  },
  { name: 'offers', description: 'What carriers ask to haul a load, and accepting or rejecting it.' },
  { name: 'calls', description: 'Outbound calls through the voice platform, live transfer and transcripts.' },
  { name: 'elp', description: 'Driver English-proficiency tests run by phone.' },
  {
    name: 'voice',
    description: "The voice platform's settings in use, and each organization's own numbers on it.",
  },
  {
    name: 'voice-templates',
    description: 'Call scripts: what the voice agent says and may do for each purpose of a call.',
  },
  { name: 'outreaches', description: 'Contacts with a carrier about a load by call, e-mail or WhatsApp.' },
  { name: 'tracking', description: 'Check calls and messages to the carrier hauling a load.' },
  { name: 'escalations', description: 'Questions the agents put to a person about a load, and the answers.' },
  { name: 'agent', description: "The load-working agent's settings for the organization." },
  { name: 'webhooks', description: 'Endpoints that receive signed event deliveries, and their attempts.' },
  {
    name: 'events',
    description: 'The same events live in the browser: a Server-Sent Events stream, and tickets to open it.',
  },
  {
    name: 'integrations',
    description: 'Where the voice, e-mail and WhatsApp platforms call in; authenticated by their signatures.',
  },
  {
    name: 'audit',
    description: 'The organization’s audit log: carrier, lane-preference and team changes, who made them.',
  },
  { name: 'health', description: 'Probes for load balancers: no credentials, no rate limit.' },
];

const overrides = new WeakMap<z.ZodType, (toJson: (schema: z.ZodType) => object) => object>();

/**
 * Validate with `schema`, document it as `doc`: for inputs whose validation is looser than their
 * shape (batch items checked one by one, query lists split on commas). `doc` is a zod schema or a
 * function building the JSON Schema from others.
 */
export function documentAs<T extends z.ZodType>(
  schema: T,
  doc: z.ZodType | ((toJson: (schema: z.ZodType) => object) => object),
): T {
  overrides.set(schema, typeof doc === 'function' ? doc : (toJson) => toJson(doc));
  return schema;
}

const mediaDocs = new WeakMap<z.ZodType, Record<string, z.ZodType>>();

/** A request body accepted in several media types, each documented by its own schema. */
export function documentMedia<T extends z.ZodType>(schema: T, content: Record<string, z.ZodType>): T {
  mediaDocs.set(schema, content);
  return schema;
}

const TARGET = 'draft-2020-12';

const toInputJson = (schema: z.ZodType): object => {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    target: TARGET,
    unrepresentable: 'any',
    override,
  });
  return json;
};

/**
 * The library's own adjustments (empty union members dropped, dates as date-time strings) plus
 * ours: documented overrides, and records keyed by an enum shown as objects with those properties.
 */
function override(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }) {
  // fastify-type-provider-zod calls override with the zod schema it is converting.
  const zod = ctx.zodSchema as z.ZodType;
  const json = ctx.jsonSchema;
  const doc = documented(zod);
  if (doc) {
    const annotations = pick(json, ['description', 'default', 'title']);
    for (const key of Object.keys(json)) delete json[key];
    Object.assign(json, doc(toInputJson), annotations);
    return;
  }
  // Every zod 4 schema carries its definition, with its kind in `type`, under `_zod.def`.
  const def = (zod as unknown as { _zod: { def: { type: string } } })._zod.def;
  if (def.type === 'union' && Array.isArray(json.anyOf)) {
    json.anyOf = json.anyOf.filter((member) => Object.keys(member).length > 0);
  }
  if (def.type === 'date') {
    json.type = 'string';
    json.format = 'date-time';
  }
  // Keys are strings anyway: an unbounded `propertyNames: {type: string}` says nothing.
  if (def.type === 'record' && isPlainString(json.propertyNames)) delete json.propertyNames;
  // zod writes a record's key schema under propertyNames: an object, with `enum` for an enum key.
  if (def.type === 'record' && Array.isArray((json.propertyNames as { enum?: unknown[] })?.enum)) {
    // Checked just above to be an array; zod writes an enum key's values, all strings.
    const keys = (json.propertyNames as { enum: string[] }).enum;
    json.properties = Object.fromEntries(keys.map((k) => [k, json.additionalProperties]));
    json.additionalProperties = false;
    delete json.propertyNames;
  }
}

/** The documented override of a schema, or of the schema it was cloned from by `.meta()` or `.describe()`. */
function documented(schema: z.ZodType) {
  for (
    let s: z.ZodType | undefined = schema;
    s;
    // zod 4 keeps the schema a clone was made from under `_zod.parent`.
    s = (s as unknown as { _zod: { parent?: z.ZodType } })._zod.parent
  ) {
    const doc = overrides.get(s);
    if (doc) return doc;
  }
  return undefined;
}

const isPlainString = (s: unknown) =>
  // `s` is checked to be an object just before; reading a member of it that may be absent is safe.
  !!s && typeof s === 'object' && Object.keys(s).length === 1 && (s as { type?: unknown }).type === 'string';

const pick = (o: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

const zodToJsonConfig = { target: TARGET, override } as const;
const routeTransform = createJsonSchemaTransform({ skipList: [], zodToJsonConfig });
const objectTransform = createJsonSchemaTransformObject({ zodToJsonConfig });

type RouteInfo = Parameters<SwaggerTransform>[0];

/** Per route: the zod schemas as JSON Schema, the body's media types, and the route's traits. */
function transformRoute(prefix: string): SwaggerTransform {
  return (input: RouteInfo) => {
    const out = routeTransform(input);
    // Routes declare FastifySchema, with `hide` and `security` as @fastify/swagger reads them.
    const schema = input.schema as FastifySchema & { hide?: boolean; security?: unknown };
    // The route transform answers a plain JSON Schema object.
    const outSchema = out.schema as Record<string, unknown>;
    if (!schema || outSchema.hide) return out;

    // With the zod type provider, every route's body schema is a zod schema.
    const media = schema.body ? mediaDocs.get(schema.body as z.ZodType) : undefined;
    if (media) {
      const content: Record<string, { schema: unknown }> = {};
      for (const [type, doc] of Object.entries(media)) {
        // Given a body, the route transform answers a schema with that body member.
        const json = routeTransform({ ...input, schema: { body: doc } }).schema as { body: unknown };
        content[type] = { schema: json.body };
      }
      outSchema.body = { content };
    }

    // The route options' config, as the routes of this API declare it (see http/access.ts and friends).
    const config = (input.route.config ?? {}) as {
      access?: Access;
      rateLimit?: unknown;
      idempotent?: boolean;
      unknownQuery?: 'ignore';
    };
    const traits: OperationTraits = {
      public: !config.access || !!config.access.public,
      rateLimited: input.url.startsWith(prefix) && config.rateLimit !== false,
      idempotent: !!config.idempotent,
      // Idempotency-Key is checked (422 when malformed); a schema documented as something else
      // (the WhatsApp handshake's query) is not what refuses the request.
      validates:
        !!config.idempotent ||
        // An undeclared query parameter is a 422 (see query-params.ts).
        config.unknownQuery !== 'ignore' ||
        [schema.body, schema.querystring, schema.params, schema.headers].some(
          // As above: with the zod type provider, each declared schema is a zod schema.
          (s) => s !== undefined && !documented(s as z.ZodType),
        ),
    };
    outSchema[TRAITS_KEY] = traits;
    // The bearer roles the operation accepts, for clients that show only what a role may do (the
    // console): the same list the authentication hook enforces.
    if (config.access && !config.access.public) outSchema['x-envoy-roles'] = [...config.access.roles];
    outSchema.security ??= [];
    if (!outSchema.description) outSchema.description = 'No credentials required; not rate limited.';
    return out;
  };
}

const finishDocument: SwaggerTransformObject = (input) =>
  // The object transform answers the OpenAPI document as plain JSON; finalizeDocument returns it, changed in place.
  finalizeDocument(objectTransform(input) as Record<string, unknown>) as ReturnType<SwaggerTransformObject>;

/**
 * Where integrators reach the API: production and staging when configured, and this deployment's
 * PUBLIC_BASE_URL. With none set, the host that served the document (a relative URL).
 */
export function serversOf(config: Config) {
  const servers: { url: string; description: string; 'x-internal': boolean }[] = [];
  const add = (url: string | undefined, description: string) => {
    if (!url) return;
    const clean = url.replace(/\/+$/, '');
    if (!servers.some((s) => s.url === clean)) servers.push({ url: clean, description, 'x-internal': false });
  };
  const environment = config.env === 'production' ? 'production' : config.env === 'test' ? 'test' : 'local';
  add(config.servers.production, 'Production');
  add(config.servers.staging, 'Staging');
  add(config.publicBaseUrl, `This deployment (${environment})`);
  if (servers.length === 0)
    servers.push({ url: '/', description: `This deployment (${environment})`, 'x-internal': false });
  return servers;
}

export function swaggerOptions(config: Config, prefix: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Envoy freight-brokerage automation API',
        version: '1.0.0',
        description:
          'Loads, carriers, offers, calls, outreaches, ELP tests and webhooks for freight brokerages. ' +
          'Errors have the shape `{error: {code, message, param}}`; validation errors (422) add `detail`. ' +
          'JSON bodies nest at most 64 levels (deeper: 422 `json_too_deep`); a badly percent-encoded path ' +
          'is 400 `bad_request`, a path parameter over 100 characters 414 `uri_too_long`, oversized ' +
          'headers 431 `request_header_fields_too_large`. ' +
          "Every response carries `X-Request-ID`; every `/api/v1` response except the platforms' webhooks " +
          'carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`.',
      },
      servers: serversOf(config),
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'An organization API key (`envoy_sk_...`), for integrations.',
          },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'An access token from POST /auth/login, /auth/refresh or /auth/accept-invitation: a JWS signed ' +
              'with HS256, its algorithm pinned on verification and `iss`, `aud` and `exp` checked, following ' +
              'the best practices of RFC8725; valid 15 minutes by default, and only while its session (`sid`) ' +
              'has not ended.',
          },
        },
      },
    },
    stripBasePath: false,
    transform: transformRoute(prefix),
    transformObject: finishDocument,
  };
}
