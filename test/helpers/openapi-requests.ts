/**
 * Requests drawn from the served OpenAPI document, the way an outside contract tester draws them:
 * json-schema-faker generates path parameters, query strings, headers and JSON bodies from the
 * operation's JSON Schemas (seeded, so a run is repeatable), and Ajv (draft 2020-12, with the
 * standard formats) judges what the document says of a request: valid, or breaking which rule.
 * `mutate` breaks exactly one rule of a valid request, checked by Ajv.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { generateSync } from 'json-schema-faker';
import { defined } from '../../src/lib/defined.js';
import { isJsonObject, type JsonObject, objectOf, objectsOf } from '../../src/lib/json-object.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON schema nodes are read loosely on purpose.
export type Schema = Record<string, any>;

export interface DocOperation {
  method: (typeof METHODS)[number];
  path: string;
  id: string;
  /** Every status the document lists for it. */
  statuses: Set<string>;
  params: Schema[];
  /** The JSON body's schema, or null when the operation takes none (or only another media type). */
  body: Schema | null;
  bodyRequired: boolean;
  /** Another media type than JSON is the only body it documents (text/csv). */
  otherMedia: string | null;
  streams: boolean;
}

export interface DrawnRequest {
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  hasBody: boolean;
}

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'] as const;

export function operationsOf(doc: Schema): DocOperation[] {
  const out: DocOperation[] = [];
  for (const [path, item] of Object.entries(objectOf(doc.paths) ?? {})) {
    for (const method of METHODS) {
      const op = objectOf(objectOf(item)?.[method.toLowerCase()]);
      if (!op) continue;
      const params = objectsOf(op.parameters).filter((p) => !p.$ref);
      const requestBody = objectOf(op.requestBody);
      const content = objectOf(requestBody?.content) ?? {};
      const json = objectOf(content['application/json']);
      const responses = objectOf(op.responses) ?? {};
      const ok = objectOf(objectOf(responses['200'])?.content) ?? {};
      out.push({
        method,
        path,
        id: String(op.operationId),
        statuses: new Set(Object.keys(responses)),
        params,
        body: json ? (objectOf(json.schema) ?? null) : null,
        bodyRequired: !!requestBody?.required,
        otherMedia: json ? null : (Object.keys(content)[0] ?? null),
        streams: 'text/event-stream' in ok,
      });
    }
  }
  return out;
}

/** The document's judge: Ajv over its components, with the formats the document uses. */
export class Judge {
  private readonly ajv: Ajv2020;
  private readonly coercing: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Schema) {
    // Text as the query string and headers carry it: a number or boolean is read from its text,
    // a single value is a list of one.
    const make = (coerceTypes: false | 'array') => {
      const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes, validateFormats: true });
      addFormats.default(ajv);
      // OpenAPI's numeric formats say a width, which the bounds already state.
      for (const f of ['int32', 'int64', 'float', 'double']) ajv.addFormat(f, true);
      ajv.addSchema({ $id: 'doc', components: doc.components });
      return ajv;
    };
    this.ajv = make(false);
    this.coercing = make('array');
  }

  /** Whether `value` is valid against `schema` (read as text, as the query and headers are, when `asText`). */
  valid(schema: Schema, value: unknown, asText = false): boolean {
    const key = `${asText ? 't' : 'j'}${JSON.stringify(schema)}`;
    let fn = this.cache.get(key);
    if (!fn) {
      fn = (asText ? this.coercing : this.ajv).compile(relocate(schema));
      this.cache.set(key, fn);
    }
    // Coercion rewrites the value in place: judge a copy.
    return fn(asText ? structuredClone(value) : value);
  }

  /** A value of `schema`, drawn with `seed`. */
  draw(schema: Schema, seed: number, optionals = 0.5): unknown {
    return generateSync(
      { ...schema, components: this.doc.components },
      { seed, optionalsProbability: optionals, maxDefaultItems: 3, maxItems: 4, maxDepth: 12 },
    );
  }
}

/** `#/components/...` references point into the `doc` schema Ajv holds. */
function relocate(schema: Schema): Schema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
}

/** The query parameters (or headers) as one object schema, for drawing and judging together. */
export function paramsSchema(op: DocOperation, place: 'query' | 'header' | 'path'): Schema {
  const params = op.params.filter((p) => p.in === place);
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

/** A request the document says is valid, drawn with `seed`; null when none could be drawn. */
export function drawValid(judge: Judge, op: DocOperation, seed: number): DrawnRequest | null {
  for (let attempt = 0; attempt < 5; attempt++) {
    const s = seed * 7 + attempt;
    const request: DrawnRequest = {
      pathParams: objectOf(judge.draw(paramsSchema(op, 'path'), s, 1)) ?? {},
      query: objectOf(judge.draw(paramsSchema(op, 'query'), s + 1)) ?? {},
      headers: objectOf(judge.draw(paramsSchema(op, 'header'), s + 2)) ?? {},
      body: op.body ? judge.draw(op.body, s + 3) : undefined,
      hasBody: !!op.body && (op.bodyRequired || s % 3 !== 0),
    };
    if (validRequest(judge, op, request) && sendable(request)) return request;
  }
  return null;
}

export function validRequest(judge: Judge, op: DocOperation, r: DrawnRequest): boolean {
  return (
    judge.valid(paramsSchema(op, 'path'), r.pathParams, true) &&
    // A path parameter the router cannot see as one segment is another URL, not this operation.
    Object.values(r.pathParams).every((v) => String(v) !== '' && String(v) !== '.' && String(v) !== '..') &&
    judge.valid(paramsSchema(op, 'query'), r.query, true) &&
    judge.valid(paramsSchema(op, 'header'), r.headers, true) &&
    (!op.body || !r.hasBody || judge.valid(op.body, r.body))
  );
}

/** HTTP trims header values and refuses control characters: such a drawn value is another request. */
const sendable = (r: DrawnRequest) =>
  Object.values(r.headers).every((v) => /^[\x20-\x7e]*$/.test(String(v)) && String(v).trim() === String(v));

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values that break a common rule: a wrong type, a blank or over-long string, an impossible date. */
const JSON_BREAKERS: unknown[] = [
  null,
  true,
  12345,
  -1,
  1.5,
  2_147_483_648,
  '',
  ' ',
  '\t\n',
  'not-a-valid-value',
  'x'.repeat(5001),
  '1979-69-69',
  '2026-02-30',
  '+1 (555) 0',
  'Kęy',
  'a\u0000b',
  {},
  [],
];

const TEXT_BREAKERS = [
  '',
  ' ',
  'not-a-valid-value',
  'x'.repeat(5001),
  '-1',
  '1.5',
  'abc',
  '1979-69-69',
  '99999999999',
];

/** What a header can carry at all (Latin-1 at most), breaking a rule. */
const HEADER_BREAKERS = ['', 'k'.repeat(256), 'K\u00e9y', 'a\u00ffb', '0'];

type Place = 'body' | 'query' | 'header';

export interface Mutation {
  request: DrawnRequest;
  /** Where and how: `body /loads/0/stops delete`. */
  what: string;
}

/**
 * `valid` with one rule broken: a value swapped for one that breaks a rule, a required member
 * left out, or a unique list given a duplicate; Ajv confirms the document now refuses the request.
 * Null when no single change found by `random` breaks it.
 */
export function mutate(
  judge: Judge,
  op: DocOperation,
  valid: DrawnRequest,
  random: () => number,
): Mutation | null {
  const places: Place[] = [];
  if (op.body && valid.hasBody) places.push('body', 'body', 'body');
  if (Object.keys(paramsSchema(op, 'query').properties).length) places.push('query');
  if (Object.keys(paramsSchema(op, 'header').properties).length) places.push('header');
  for (let attempt = 0; attempt < 40 && places.length; attempt++) {
    const place = defined(
      places[Math.floor(random() * places.length)],
      'places[Math.floor(random() * places.length)]',
    );
    const copy = structuredClone(valid);
    const what = place === 'body' ? breakJson(copy, random) : breakText(op, copy, place, random);
    if (what && !validRequest(judge, op, copy)) return { request: copy, what: `${place} ${what}` };
  }
  return null;
}

function breakJson(r: DrawnRequest, random: () => number): string | null {
  /** Where a value of the body sits: the body itself, a member of an object, or an item of an array. */
  type Place =
    | { in: 'body' }
    | { in: 'object'; parent: JsonObject; key: string }
    | { in: 'array'; parent: unknown[]; key: number };
  const nodes: { at: Place; value: unknown }[] = [];
  const walk = (value: unknown, at: Place) => {
    nodes.push({ at, value });
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, { in: 'array', parent: value, key: i });
    } else if (isJsonObject(value))
      for (const [k, v] of Object.entries(value)) walk(v, { in: 'object', parent: value, key: k });
  };
  walk(r.body, { in: 'body' });
  const node = defined(
    nodes[Math.floor(random() * nodes.length)],
    'nodes[Math.floor(random() * nodes.length)]',
  );
  const { at } = node;
  const where = at.in === 'body' ? '(root)' : `${at.key}`;
  const kind = random();
  if (at.in === 'object' && kind < 0.2) {
    delete at.parent[at.key];
    return `${where} left out`;
  }
  if (Array.isArray(node.value) && node.value.length > 0 && kind < 0.35) {
    node.value.push(structuredClone(node.value[0]));
    return `${where} given a duplicate`;
  }
  const breaker = structuredClone(JSON_BREAKERS[Math.floor(random() * JSON_BREAKERS.length)]);
  if (at.in === 'body') r.body = breaker;
  else if (at.in === 'object') at.parent[at.key] = breaker;
  else at.parent[at.key] = breaker;
  return `${where} = ${JSON.stringify(breaker).slice(0, 40)}`;
}

function breakText(
  op: DocOperation,
  r: DrawnRequest,
  place: 'query' | 'header',
  random: () => number,
): string | null {
  const names = Object.keys(paramsSchema(op, place).properties);
  const name = defined(
    names[Math.floor(random() * names.length)],
    'names[Math.floor(random() * names.length)]',
  );
  const target = place === 'query' ? r.query : r.headers;
  const breakers = place === 'header' ? HEADER_BREAKERS : TEXT_BREAKERS;
  target[name] = defined(
    breakers[Math.floor(random() * breakers.length)],
    'breakers[Math.floor(random() * breakers.length)]',
  );
  return `${name} = ${JSON.stringify(target[name]).slice(0, 40)}`;
}

/** The URL of a drawn request: path parameters filled in, the query serialised as a client would. */
export function urlOf(op: DocOperation, r: DrawnRequest): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(String(r.pathParams[name] ?? 'x')),
  );
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(r.query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      pairs.push(
        `${encodeURIComponent(name)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`,
      );
    }
  }
  return pairs.length ? `${path}?${pairs.join('&')}` : path;
}
