/**
 * Passes over the finished OpenAPI document. @fastify/swagger and fastify-type-provider-zod build
 * it from the route declarations; these passes add what every operation shares (the organization
 * header, the response headers the server sends, the error responses any request can meet), give
 * every request body a named component, and keep one component per shape.
 */

import { defined } from '../lib/defined.js';
import { isJsonObject as isJson, type JsonObject, objectOf, objectsOf } from '../lib/json-object.js';

type Json = JsonObject;
type Schema = Json;

/** The schemas of the document's components, which finalizeDocument makes sure are there. */
const schemasOf = (doc: Json): Json =>
  defined(objectOf(objectOf(doc.components)?.schemas), 'OpenAPI document components.schemas');

const SCHEMAS = '#/components/schemas/';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** What a route's declaration says about it, carried from the per-route transform to these passes. */
export interface OperationTraits {
  /** Needs no credentials (login, health probes, the platforms' signed webhooks). */
  readonly public: boolean;
  /** Counted by the rate limiter, so every response carries the X-RateLimit-* headers. */
  readonly rateLimited: boolean;
  /** Accepts Idempotency-Key, so a response may be a replay. */
  readonly idempotent: boolean;
  /** Validates a body, path, query or header, so a request can be refused with 422. */
  readonly validates: boolean;
}

export const TRAITS_KEY = 'x-envoy-traits';

/** Headers the server sends, each described once and referenced from the responses that carry it. */
export const RESPONSE_HEADERS = {
  'X-Request-ID': {
    description:
      'The request id: the X-Request-ID you sent (up to 128 of A-Z a-z 0-9 _ . : -), else a generated UUID. ' +
      'Every log line of the request carries it.',
    schema: { type: 'string', maxLength: 128 },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the current one-minute window for this category and credential.',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX },
  },
  'X-RateLimit-Reset': {
    description: 'Unix time, in seconds, at which the current window resets.',
    schema: { type: 'integer', format: 'int64', minimum: 0, maximum: 253_402_300_799 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 86_400 },
  },
  'Idempotent-Replayed': {
    description:
      'Present (`true`) when this is the stored response of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
} as const;

type HeaderName = keyof typeof RESPONSE_HEADERS;

export const ORGANIZATION_PARAMETER = {
  name: 'X-Organization-ID',
  in: 'header',
  required: false,
  description:
    'The organization to act in. A bearer token acts in the named organization (403 if the user is not a ' +
    "member), else in the user's oldest membership; an API key acts only in its own organization (naming " +
    'another gives 403). Operations that need no credentials accept and ignore it.',
  schema: { type: 'string', maxLength: 100 },
};

const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'Malformed request (`bad_request`): not valid HTTP, a path that is not valid percent-encoded UTF-8, or a Content-Length that does not match the body; or an id of another kind where an id is taken (`invalid_id_format`, `param` naming the field)',
  401: 'Missing or invalid credentials (`not_authenticated`)',
  403: 'The credential or role may not do this, or X-Organization-ID names an organization you cannot act in (`insufficient_permissions`)',
  404: 'Not found, or owned by another organization (`not_found`)',
  409: 'Conflict: `idempotency_key_in_progress` while an earlier request with this Idempotency-Key runs, `idempotency_key_unreadable` when its stored response was sealed under another encryption key',
  413: 'Request body too large (`payload_too_large`)',
  414: 'A path parameter longer than 100 characters (`uri_too_long`)',
  415: 'Unsupported content type (`unsupported_media_type`)',
  422: 'Validation failed (`validation_error`, with `detail`)',
  431: 'The request line and headers are larger than the server accepts (`request_header_fields_too_large`)',
  429: 'Rate limit exceeded (`rate_limit_exceeded`); see `Retry-After`',
  500: 'Unexpected error (`internal_error`); the log has the detail under the request id',
};

/** Runs every pass, in order, on a document built by @fastify/swagger. Returns the same object. */
export function finalizeDocument(doc: Json): Json {
  const components = objectOf(doc.components) ?? {};
  doc.components = components;
  components.schemas ??= {};
  components.headers = { ...objectOf(components.headers), ...RESPONSE_HEADERS };
  components.parameters = {
    ...objectOf(components.parameters),
    OrganizationId: ORGANIZATION_PARAMETER,
  };

  for (const [path, method, operation] of operations(doc)) {
    // The per-route transform (openapi.ts) writes this member, always as OperationTraits.
    const traits = (operation[TRAITS_KEY] as OperationTraits | undefined) ?? {
      public: true,
      rateLimited: false,
      idempotent: false,
      validates: false,
    };
    delete operation[TRAITS_KEY];
    // The health probes sit outside the API and read no organization.
    if (!HEALTH_PATHS.has(path)) addOrganizationParameter(operation);
    addCommonResponses(operation, traits, method);
    addResponseHeaders(operation, traits);
    unwrapOptionalBody(operation);
  }
  const emitted = new Set(Object.keys(schemasOf(doc)));
  // The unused half of each input/output pair goes first, so a request schema may take its name.
  pruneUnreferenced(doc);
  nameRequestBodies(doc);
  hoistTitledSchemas(doc);
  mergeInputCopies(doc);
  pruneUnreferenced(doc);
  renameLoneInputCopies(doc, emitted);
  walkSchemas(doc, addIntegerFormat);
  return doc;
}

const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

function* operations(doc: Json): Generator<[string, string, Json]> {
  for (const [path, item] of Object.entries(objectOf(doc.paths) ?? {})) {
    for (const method of METHODS) {
      const op = objectOf(objectOf(item)?.[method]);
      if (op) yield [path, method, op];
    }
  }
}

function addOrganizationParameter(operation: Json) {
  const parameters = objectsOf(operation.parameters).filter(
    (p) => String(p.name).toLowerCase() !== 'x-organization-id',
  );
  parameters.push({ $ref: '#/components/parameters/OrganizationId' });
  operation.parameters = parameters;
}

function errorResponse(status: string): Json {
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    content: { 'application/json': { schema: { $ref: `${SCHEMAS}Error` } } },
  };
}

/** The error responses any request of this kind can meet, whatever the route declared. */
function addCommonResponses(operation: Json, traits: OperationTraits, method: string) {
  const responses = objectOf(operation.responses) ?? {};
  const add = (status: string) => {
    if (!responses[status]) responses[status] = errorResponse(status);
  };
  if (!traits.public) {
    add('401');
    add('403');
  }
  // Any request may be malformed HTTP (400) or carry headers larger than the server reads (431).
  add('400');
  add('431');
  // A path parameter over the router's limit.
  if (objectsOf(operation.parameters).some((p) => p.in === 'path')) add('414');
  // Fastify reads a DELETE's body too when one is sent.
  const readsBody = method === 'post' || method === 'put' || method === 'patch' || method === 'delete';
  // A body that is not JSON is a 422 too, whatever the route's schema.
  if (traits.validates || readsBody) add('422');
  if (operation.requestBody || readsBody) {
    add('413');
    add('415');
  }
  // A retry while the first request with the same Idempotency-Key runs: 409 idempotency_key_in_progress.
  if (traits.idempotent) {
    add('409');
    const conflict = defined(objectOf(responses['409']), 'the 409 response');
    if (!String(conflict.description).includes('idempotency_key_in_progress')) {
      conflict.description = `${conflict.description}; or \`idempotency_key_in_progress\` while an earlier request with this Idempotency-Key runs, \`idempotency_key_unreadable\` when its stored response was sealed under another encryption key`;
    }
  }
  if (traits.rateLimited) add('429');
  add('500');
  // Keep the statuses in numeric order so the document reads top to bottom.
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the work goes on in the background',
  204: 'Done; no body',
};

function addResponseHeaders(operation: Json, traits: OperationTraits) {
  for (const [status, response] of Object.entries(objectOf(operation.responses) ?? {})) {
    const r = objectOf(response);
    if (!r) continue;
    // @fastify/swagger's placeholder for a response declared without a description.
    if (r.description === 'Default Response') r.description = SUCCESS_DESCRIPTIONS[status] ?? 'Response';
    const names: HeaderName[] = ['X-Request-ID'];
    if (traits.rateLimited) names.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
    if (status === '429') names.push('Retry-After');
    // 5xx and 429 outcomes are never stored, so never replayed.
    if (traits.idempotent && status !== '429' && !status.startsWith('5')) names.push('Idempotent-Replayed');
    const headers = { ...objectOf(r.headers) };
    for (const name of names) headers[name] = { $ref: `#/components/headers/${name}` };
    r.headers = headers;
  }
}

/** A body that may be left out is documented as optional, not as "null or the object". */
function unwrapOptionalBody(operation: Json) {
  const body = objectOf(operation.requestBody);
  const media = objectOf(objectOf(body?.content)?.['application/json']);
  const schema = objectOf(media?.schema);
  if (!body || !media || !schema || !Array.isArray(schema.anyOf)) return;
  const anyOf = objectsOf(schema.anyOf);
  const rest = anyOf.filter((s) => s.type !== 'null');
  if (rest.length !== 1 || rest.length === anyOf.length) return;
  const { anyOf: _, ...annotations } = schema;
  media.schema = { ...rest[0], ...annotations };
  body.required = false;
}

const pascal = (s: string) =>
  s.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

/**
 * Every inline request body becomes a named component: its `title` (a zod `.meta({ title })`), else
 * the operation id in PascalCase with `Request` (createApiKey: CreateApiKeyRequest). Bodies in a
 * non-JSON media type (text/csv) stay inline.
 */
function nameRequestBodies(doc: Json) {
  const schemas = schemasOf(doc);
  for (const [path, method, operation] of operations(doc)) {
    const media = objectOf(objectOf(objectOf(operation.requestBody)?.content)?.['application/json']);
    const schema = objectOf(media?.schema);
    if (!media || !schema || schema.$ref) continue;
    const name =
      typeof schema.title === 'string'
        ? schema.title
        : operation.operationId
          ? `${pascal(String(operation.operationId))}Request`
          : `${pascal(`${method} ${path}`)}Request`;
    media.schema = { $ref: place(schemas, name, schema) };
  }
}

/** Puts `schema` under `name` (reusing an identical one) and returns the reference to it. */
function place(schemas: Json, name: string, schema: Schema): string {
  const existing = schemas[name];
  if (existing && !sameJson(existing, schema)) {
    throw new Error(`OpenAPI: two different schemas are both named '${name}'`);
  }
  schemas[name] = schema;
  return `${SCHEMAS}${name}`;
}

const TITLE = /^[A-Z][A-Za-z0-9]*$/;

/** A schema nested anywhere with a PascalCase `title` becomes the component of that name. */
function hoistTitledSchemas(doc: Json) {
  const schemas = schemasOf(doc);
  const visit = (node: unknown, atComponentRoot: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, false));
    if (!isJson(node)) return node;
    const obj = node;
    for (const [k, v] of Object.entries(obj)) obj[k] = visit(v, false);
    if (!atComponentRoot && typeof obj.title === 'string' && TITLE.test(obj.title) && isSchema(obj)) {
      return { $ref: place(schemas, obj.title, obj) };
    }
    return obj;
  };
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = visit(schema, true);
  doc.paths = visit(doc.paths, false);
}

const isSchema = (o: Json) =>
  'type' in o || 'properties' in o || 'anyOf' in o || 'oneOf' in o || 'allOf' in o || 'enum' in o;

/**
 * fastify-type-provider-zod emits every registered schema twice, `X` for responses and `XInput`
 * for requests. An input copy identical to its output schema is folded into it.
 */
function mergeInputCopies(doc: Json) {
  const schemas = schemasOf(doc);
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const base = name.endsWith('Input') ? name.slice(0, -'Input'.length) : null;
    if (base && schemas[base] && sameJson(schemas[name], schemas[base])) renames.set(name, base);
  }
  if (renames.size === 0) return;
  rewriteRefs(doc, renames);
  for (const name of renames.keys()) delete schemas[name];
}

/** Drops components nothing refers to (the unused half of each input/output pair, mostly). */
function pruneUnreferenced(doc: Json) {
  const schemas = schemasOf(doc);
  const reachable = new Set<string>();
  const pending: unknown[] = [
    doc.paths,
    objectOf(doc.components)?.parameters,
    objectOf(doc.components)?.headers,
  ];
  while (pending.length) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...node);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMAS)) {
          const name = v.slice(SCHEMAS.length);
          if (!reachable.has(name)) {
            reachable.add(name);
            pending.push(schemas[name]);
          }
        } else pending.push(v);
      }
    }
  }
  for (const name of Object.keys(schemas)) if (!reachable.has(name)) delete schemas[name];
}

/** An input copy (emitted as a pair with its twin) whose output twin is unused takes the plain name. */
function renameLoneInputCopies(doc: Json, emitted: Set<string>) {
  const schemas = schemasOf(doc);
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const base = name.endsWith('Input') ? name.slice(0, -'Input'.length) : null;
    if (base && emitted.has(base) && emitted.has(name) && !schemas[base]) renames.set(name, base);
  }
  if (renames.size === 0) return;
  rewriteRefs(doc, renames);
  for (const [from, to] of renames) {
    schemas[to] = schemas[from];
    delete schemas[from];
  }
}

function rewriteRefs(node: unknown, renames: Map<string, string>) {
  if (Array.isArray(node)) {
    for (const n of node) rewriteRefs(n, renames);
    return;
  }
  if (!isJson(node)) return;
  const obj = node;
  for (const [k, v] of Object.entries(obj)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMAS)) {
      const to = renames.get(v.slice(SCHEMAS.length));
      if (to) obj[k] = `${SCHEMAS}${to}`;
    } else rewriteRefs(v, renames);
  }
}

/** Calls `fn` on every object of the document that looks like a schema. */
function walkSchemas(node: unknown, fn: (schema: Schema) => void) {
  if (Array.isArray(node)) {
    for (const n of node) walkSchemas(n, fn);
    return;
  }
  if (!isJson(node)) return;
  const obj = node;
  if (isSchema(obj)) fn(obj);
  for (const v of Object.values(obj)) walkSchemas(v, fn);
}

/** Integers name their width: int32 when their bounds fit in it, int64 otherwise. */
function addIntegerFormat(schema: Schema) {
  if (schema.type !== 'integer' || schema.format) return;
  const min = typeof schema.minimum === 'number' ? schema.minimum : Number.NEGATIVE_INFINITY;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Number.POSITIVE_INFINITY;
  schema.format = min >= INT32_MIN && max <= INT32_MAX ? 'int32' : 'int64';
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isJson(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
