/**
 * An OpenAPI-driven fuzz run: every operation of the served document gets malformed path
 * parameters, query strings, bodies and content types, with a valid credential of a fitting role,
 * and must answer below 500, with the API's error body on every 4xx. fast-check draws a new seed
 * each run (set FUZZ_SEED to replay one; a failure prints its seed and the shrunk request).
 * What the document promises of each request (its statuses listed, a valid request accepted, a
 * request breaking one rule refused) is checked by openapi-contract.test.ts, with requests drawn
 * from the document itself.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { memberAt, objectOf, objectsOf } from '../../src/lib/json-object.js';
import { buildTestApp, fileDatabaseUrl } from '../helpers/app.js';
import { registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createOrg, createUser } from '../helpers/factories.js';
import { portOf } from '../helpers/listening.js';
import { loadPayload } from '../helpers/load-factories.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON schema nodes are read loosely on purpose.
type Schema = Record<string, any>;

const registry = registryFile([]);
const t = await buildTestApp({ env: { WORKERS_ENABLED: 'false', COMPLIANCE_REGISTRY_FILE: registry } });
afterAll(() => t.close());

// Answers Vapi's REST calls: POST /call gives a fresh call id; anything else (control URLs) 200.
let vapiCalls = 0;
const vapi = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    if (req.method === 'POST' && req.url === '/call') {
      vapiCalls += 1;
      res.statusCode = 201;
      res.end(
        JSON.stringify({
          id: `vapi-fuzz-${vapiCalls}`,
          status: 'queued',
          monitor: { controlUrl: `${vapiBase}/control` },
        }),
      );
      return;
    }
    res.end('{}');
  });
});
await new Promise<void>((done) => vapi.listen(0, '127.0.0.1', done));
const vapiBase = `http://127.0.0.1:${portOf(vapi)}`;
afterAll(() => new Promise<void>((done) => vapi.close(() => done())));

// The platform callbacks (e-mail, WhatsApp, voice) answer only when their provider is configured:
// a second instance on the same database has them, and the fuzzer signs its requests as they do.
const SECRETS = {
  email: 'fuzz-inbound-secret-0001',
  vapi: 'fuzz-vapi-webhook-secret-0001',
  whatsappApp: 'fuzz-whatsapp-app-secret',
  whatsappVerify: 'fuzz-verify-token',
};
const channels = await buildTestApp({
  databaseUrl: await fileDatabaseUrl(),
  env: {
    WORKERS_ENABLED: 'false',
    COMPLIANCE_REGISTRY_FILE: registry,
    EMAIL_INBOUND_SECRET: SECRETS.email,
    VOICE_PROVIDER: 'vapi',
    VAPI_API_KEY: 'fuzz-vapi-key',
    VAPI_PHONE_NUMBER_ID: 'fuzz-phone-number',
    VAPI_WEBHOOK_SECRET: SECRETS.vapi,
    VAPI_SERVER_CREDENTIAL_ID: 'cred_fuzz',
    PUBLIC_BASE_URL: 'https://envoy.example',
    VAPI_BASE_URL: vapiBase,
    WHATSAPP_PROVIDER: 'cloud_api',
    // Nothing listens there: a reply the agent sends fails at once.
    WHATSAPP_API_BASE_URL: 'http://127.0.0.1:9',
    WHATSAPP_ACCESS_TOKEN: 'fuzz-access-token',
    WHATSAPP_PHONE_NUMBER_ID: 'fuzz-phone-number',
    WHATSAPP_APP_SECRET: SECRETS.whatsappApp,
    WHATSAPP_VERIFY_TOKEN: SECRETS.whatsappVerify,
  },
});
afterAll(() => channels.close());

// ---------------------------------------------------------------------------------------------
// One organization with one resource of each kind, so fuzzed requests also reach past the lookups.

const orgId = await createOrg(t);
const owner = await createUser(t, orgId, 'OWNER');
const apiKey = await createApiKey(t, owner.headers);
// The target of /api-keys/{id} operations: never the key that authenticates (regenerating that
// one with expire_old_in_seconds 0 would lock the run out).
const spareKey = await createApiKey(t, owner.headers);
// Logging out ends the session of the token it is sent with: a user of its own, so the owner's
// session outlives the run; a session of theirs gives refresh a real token to start from.
const leaving = await createUser(t, orgId, 'MEMBER');
const spareSession = await t.app.inject({
  method: 'POST',
  url: '/api/v1/auth/login',
  payload: { email: leaving.email, password: leaving.password },
});
expect(spareSession.statusCode, spareSession.body).toBe(200);

async function post(url: string, payload: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: owner.headers, payload });
  expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
}
const loadId = z
  .string()
  .parse((await post('/loads', loadPayload({ customer_rate: 2000, margin: 200 }))).load_id);
const carrier = await post('/carriers', {
  name: 'Fuzz Freight',
  mc_number: '777001',
  email: 'd@fuzz.example',
});
const preference = await post(`/carriers/${carrier.id}/lane-preferences`, {
  origin: { state: 'IL' },
  destination: { state: 'TX' },
});
const offer = await post('/offers', { load_id: loadId, carrier_id: carrier.id, offer_amount: 1500 });
const endpoint = await post('/webhooks/endpoints', { url: 'https://example.com/hook', event_types: ['*'] });
const view = await post('/load-views', { name: 'Fuzz view', filters: { status: 'Unassigned' } });
// A call placed through Vapi (the stand-in), so voice callbacks reach a real call.
const placed = await channels.app.inject({
  method: 'POST',
  url: '/api/v1/calls',
  headers: owner.headers,
  payload: { phone_number: '+14155552671', load_id: loadId, call_type: 'LOAD_BOOKING' },
});
expect(placed.statusCode, placed.body).toBe(201);
const callId = placed.json<{ id: string }>().id;
const vapiCall = {
  id: `vapi-fuzz-${vapiCalls}`,
  assistantOverrides: { metadata: { envoy_call_id: callId } },
};

/** Known ids by path or body parameter name. */
const KNOWN: Record<string, unknown[]> = {
  load_id: [loadId],
  carrier_id: [carrier.id],
  preference_id: [preference.id],
  offer_id: [offer.id],
  endpoint_id: [endpoint.id],
  view_id: [view.id],
  call_id: [callId],
  id: [spareKey.id],
  tms_status: ['open', 'Fuzz Status'],
  name: ['get_load_details', 'submit_offer'],
  url: ['https://example.com/hook', 'http://localhost:9/x'],
  email: ['rep@fuzz.example'],
  phone_number: ['+14155552671'],
  phone: ['+14155552671'],
  state: ['TX', 'IL'],
  mc_number: ['777001'],
  load_number: ['LN-FUZZ-1'],
  event_types: [['*'], ['ping']],
  // Query parameters whose values are enums behind a list schema.
  status: ['Unassigned', 'Dispatched', 'pending', 'ACTIVE'],
  equipment_type: ['VAN', 'REEFER'],
  tab: ['all', 'active_offers', 'all_calls'],
  order_by: ['created_at', 'posted_rate', 'name'],
  compliance_status: ['PASSED', 'BLOCKED'],
  modality: ['call', 'email'],
  call_type: ['LOAD_BOOKING', 'ELP'],
};

/**
 * Known-good bodies, mutated node by node: they reach past validation where bodies drawn from the
 * schema rarely do (two stops, a real carrier), and describe the platform callbacks, which the
 * document does not.
 */
const BODY_TEMPLATES: Record<string, unknown[]> = {
  login: [{ email: owner.email, password: owner.password }],
  refreshSession: [{ refresh_token: spareSession.json().refresh_token }],
  logout: [{ refresh_token: spareSession.json().refresh_token }],
  upsertLoad: [loadPayload({ load_number: 'LN-FUZZ-1', customer_rate: 2100, margin: 150 }), loadPayload()],
  upsertLoadsBatch: [
    { loads: [loadPayload(), loadPayload({ load_number: 'LN-FUZZ-1', tms_status: 'covered' })] },
  ],
  createCarrier: [
    {
      name: 'Fuzz Carrier',
      mc_number: '777002',
      dot_number: '3300002',
      phone: '+14155552671',
      email: 'x@fuzz.example',
    },
  ],
  batchCarriers: [
    {
      carriers: [
        {
          carrier: { name: 'Batch Fuzz', mc_number: '777003' },
          lanes: [{ origin: { state: 'TX' }, destination: { state: 'GA' } }],
        },
      ],
    },
  ],
  updateCarrier: [{ name: 'Renamed', equipment_types: ['VAN'], on_time_pickup_pct: 97.5 }],
  createLanePreference: [
    { origin: { city: 'Dallas', state: 'TX' }, destination: { state: 'GA' }, routing_guide_tier: 2 },
  ],
  createOffer: [{ load_id: loadId, carrier_id: carrier.id, offer_amount: 1700, notes: 'fuzz' }],
  updateOffer: [{ status: 'accepted' }, { status: 'pending' }],
  createWebhookEndpoint: [
    { url: 'https://example.com/hook', event_types: ['load.created'], headers: { 'X-A': 'b' } },
  ],
  createLoadView: [
    { name: 'View', filters: { status: ['Unassigned'], search: 'dallas' }, visibility: 'organization' },
  ],
  createOutreach: [{ carrier_id: carrier.id, load_id: loadId, modality: 'email' }],
  createCall: [{ phone_number: '+14155552671', load_id: loadId, call_type: 'LOAD_BOOKING' }],
  disableCarrierForLoad: [{ load_id: loadId }],
  inboundEmail: [
    {
      RecordType: 'Inbound',
      From: 'dispatch@carrier.example',
      FromFull: { Email: 'dispatch@carrier.example', Name: 'Dispatch' },
      To: 'reply+conv_1@envoy.example',
      Subject: 'Re: Load LN-1',
      TextBody: 'We can do it for $1800',
      MessageID: 'msg-1',
      Headers: [{ Name: 'In-Reply-To', Value: '<abc@envoy.example>' }],
    },
    { RecordType: 'Bounce', MessageID: 'msg-1', Email: 'dispatch@carrier.example', Type: 'HardBounce' },
  ],
  emailDeliveryEvents: [
    {
      RecordType: 'Bounce',
      MessageID: 'msg-1',
      Type: 'HardBounce',
      TypeCode: 1,
      Email: 'dispatch@carrier.example',
      BouncedAt: '2026-01-01T00:00:00Z',
      Metadata: { outreach_id: 'otr_00000000-0000-7000-8000-000000000000' },
    },
    { RecordType: 'SpamComplaint', MessageID: 'msg-1', Email: 'dispatch@carrier.example' },
    { RecordType: 'SubscriptionChange', Recipient: 'dispatch@carrier.example', SuppressSending: true },
  ],
  whatsappEvents: [
    {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                contacts: [{ wa_id: '14155552671', profile: { name: 'Driver' } }],
                messages: [
                  {
                    from: '14155552671',
                    id: 'wamid.1',
                    timestamp: '1767225600',
                    type: 'text',
                    text: { body: '1800' },
                  },
                ],
                statuses: [
                  {
                    id: 'wamid.2',
                    status: 'failed',
                    timestamp: '1767225600',
                    recipient_id: '14155552671',
                    errors: [{ code: 131026, title: 'Message undeliverable' }],
                  },
                ],
              },
            },
          ],
        },
      ],
    },
  ],
  voiceEvents: [
    {
      message: {
        type: 'status-update',
        status: 'in-progress',
        call: vapiCall,
        timestamp: '2026-01-01T00:00:05.000Z',
      },
    },
    {
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        call: vapiCall,
        startedAt: '2026-01-01T00:00:05.000Z',
        endedAt: '2026-01-01T00:01:05.000Z',
        recordingUrl: 'https://recordings.example/1.wav',
        artifact: {
          messages: [
            { role: 'bot', message: 'Hello', time: 1767225600000, secondsFromStart: 0.5 },
            {
              role: 'user',
              message: 'Hi',
              time: 1767225601000,
              toolCalls: [{ id: 'x', function: { name: 'n' } }],
            },
          ],
        },
      },
    },
  ],
  voiceTools: [
    {
      message: {
        type: 'tool-calls',
        call: vapiCall,
        toolCallList: [
          {
            id: 'tc1',
            type: 'function',
            function: { name: 'submit_offer', arguments: { offer_amount: 1800 } },
          },
          { id: 'tc2', type: 'function', function: { name: 'get_load_details', arguments: {} } },
        ],
      },
    },
  ],
};

/** A JSON value of the template's shape, each node kept, swapped for a hostile value or (in an object) left out. */
function mutated(template: unknown): fc.Arbitrary<unknown> {
  if (Array.isArray(template)) return swap(fc.tuple(...template.map((v) => mutated(v))));
  if (template === null || typeof template !== 'object') return swap(fc.constant(template));
  const entries = Object.entries(template).map(([k, v]) =>
    fc
      .oneof({ weight: 12, arbitrary: mutated(v) }, { weight: 1, arbitrary: fc.constant(DROPPED) })
      .map((x) => [k, x] as const),
  );
  return swap(fc.tuple(...entries).map((kv) => Object.fromEntries(kv.filter(([, x]) => x !== DROPPED))));
}
const DROPPED = Symbol('dropped');
const swap = (keep: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 12, arbitrary: keep }, { weight: 1, arbitrary: hostileValue });

// ---------------------------------------------------------------------------------------------
// The served document.

const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<Schema>();

const OPERATION_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The members of `value` that are schemas (objects), with their names. */
const schemaMembers = (value: unknown): [string, Schema][] =>
  Object.entries(objectOf(value) ?? {}).flatMap(([k, v]): [string, Schema][] => {
    const schema = objectOf(v);
    return schema ? [[k, schema]] : [];
  });

interface Operation {
  method: (typeof OPERATION_METHODS)[number];
  path: string;
  id: string;
  pathParams: string[];
  query: [string, Schema][];
  body: Schema | null;
  /** Accepts an API key (else the OWNER's bearer token is the fitting credential). */
  apiKey: boolean;
  isPublic: boolean;
  /** A platform callback (tag `integrations`): signed by the platform, served by `channels`. */
  callback: boolean;
  /** Answers a `text/event-stream` that stays open: read its status and headers, then hang up. */
  streams: boolean;
}

const operations: Operation[] = schemaMembers(doc.paths).flatMap(([path, ops]) =>
  schemaMembers(ops).flatMap(([key, op]): Operation[] => {
    // A path item's other members (summary, parameters, ...) are not operations.
    const method = OPERATION_METHODS.find((m) => m === key.toUpperCase());
    if (!method) return [];
    const params = objectsOf(op.parameters);
    const security = objectsOf(op.security);
    return [
      {
        method,
        path,
        id: typeof op.operationId === 'string' ? op.operationId : `${key} ${path}`,
        pathParams: params.filter((p) => p.in === 'path').map((p) => String(p.name)),
        query: params
          .filter((p) => p.in === 'query')
          .map((p): [string, Schema] => [String(p.name), objectOf(p.schema) ?? {}]),
        body: objectOf(memberAt(op, 'requestBody', 'content', 'application/json', 'schema')) ?? null,
        apiKey: security.some((s) => 'apiKey' in s),
        isPublic: security.length === 0,
        callback: Array.isArray(op.tags) && op.tags.includes('integrations'),
        streams: !!memberAt(op, 'responses', '200', 'content', 'text/event-stream'),
      },
    ];
  }),
);

const resolve = (s: Schema | undefined): Schema => {
  let node = s ?? {};
  while (typeof node.$ref === 'string') {
    node = doc.components.schemas[node.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return node;
};

// ---------------------------------------------------------------------------------------------
// Arbitraries.

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800x',
  '\uffff\ufffe',
  '\u202eevil',
  '\u2028\u2029',
  'e\u0301\u0301\u0301',
  '🚚🚛🚚',
  '%00',
  '%ff',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '{{load_number}}',
  '$' + '{process.env}',
  'null',
  'NaN',
  '1e309',
  '-0',
  '0x10',
  '__proto__',
  'constructor',
  'load_00000000-0000-7000-8000-000000000000',
  'car_not-a-uuid',
];

/** Nested arrays or objects `depth` levels deep (beyond 64 the body is refused as too deep). */
const nested = (depth: number, objects: boolean): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = objects ? { a: v } : [v];
  return v;
};

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 101, max: 12_000 }).map((n) => 'x'.repeat(n)) },
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      0,
      -1,
      1.5,
      -2_147_483_649,
      2_147_483_648,
      Number.MAX_SAFE_INTEGER,
      1e308,
      5e-324,
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(true, false, null, {}, [], [null], { '': '' }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 2, max: 80 }), fc.boolean()).map(([d, o]) => nested(d, o)),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

const MAX_DEPTH = 8;

/** Values shaped like the schema (mutated at any node when `mutate`). */
function valueFor(
  s0: Schema | undefined,
  name: string | null,
  depth: number,
  mutate: boolean,
): fc.Arbitrary<unknown> {
  const shaped = shapedFor(s0, name, depth, mutate);
  return mutate ? fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue }) : shaped;
}

function shapedFor(
  s0: Schema | undefined,
  name: string | null,
  depth: number,
  mutate: boolean,
): fc.Arbitrary<unknown> {
  const s = resolve(s0);
  if (depth > MAX_DEPTH) return fc.constant(null);
  const known = name ? KNOWN[name] : undefined;
  const base = baseFor(s, name, depth, mutate);
  return known
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: base })
    : base;
}

function baseFor(s: Schema, name: string | null, depth: number, mutate: boolean): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alternatives = objectsOf(s.anyOf ?? s.oneOf);
  if (alternatives.length) return fc.oneof(...alternatives.map((a) => valueFor(a, name, depth, mutate)));
  if (Array.isArray(s.allOf)) {
    return valueFor(Object.assign({}, ...s.allOf.map(resolve)), name, depth, mutate);
  }
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => baseFor({ ...s, type }, name, depth, mutate)));
  switch (types[0]) {
    case 'object': {
      const props = schemaMembers(s.properties);
      const keys = props.map(([k]) => k);
      if (keys.length === 0) {
        return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      }
      const listed: unknown[] = Array.isArray(s.required) ? s.required : [];
      const required = listed.filter((k): k is string => typeof k === 'string' && keys.includes(k));
      const shape = Object.fromEntries(props.map(([k, p]) => [k, valueFor(p, k, depth + 1, mutate)]));
      // A mutated object may also lose a required field.
      return fc.record(shape, { requiredKeys: mutate ? [] : required });
    }
    case 'array': {
      const max = Math.min(s.maxItems ?? 3, 3);
      const min = Math.min(s.minItems ?? 0, max);
      return fc.array(valueFor(s.items, name, depth + 1, mutate), { minLength: min, maxLength: max });
    }
    case 'string': {
      if (s.format === 'date-time') {
        return fc
          .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      if (s.format === 'date') {
        return fc
          .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      }
      const max = Math.min(s.maxLength ?? 30, 30);
      return fc.string({ minLength: Math.min(s.minLength ?? 0, max), maxLength: max });
    }
    case 'integer':
      return fc.integer({
        min: Math.max(s.minimum ?? -1000, -2_147_483_648),
        max: Math.min(s.maximum ?? 100_000, 2_147_483_647),
      });
    case 'number':
      return fc.double({
        min: s.minimum ?? -1e6,
        max: s.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** The value in one draw out of `n`, else null. */
const oneIn = <T>(n: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 1, arbitrary: arb }, { weight: n - 1, arbitrary: fc.constant(null) });

/** Percent-encodes for a URL; a lone surrogate (which no URL can carry) becomes U+FFFD. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'));
  }
}

interface Body {
  contentType: string;
  payload: string;
}

const json = (value: unknown): Body => ({
  contentType: 'application/json',
  payload: JSON.stringify(value) ?? '',
});

const CSV_FIELDS = ['name', 'mc_number', 'dot_number', 'phone', 'email', 'equipment_types', 'is_active'];
const csvText = fc
  .array(
    fc.array(fc.oneof(hostileString, fc.string({ maxLength: 12 }), fc.constantFrom('"', '""', '\n', ',')), {
      maxLength: 8,
    }),
    { maxLength: 5 },
  )
  .map((rows) => [CSV_FIELDS.join(','), ...rows.map((r) => r.join(','))].join('\n'));

function bodyFor(op: Operation): fc.Arbitrary<Body | null> {
  const templates = BODY_TEMPLATES[op.id];
  const clean: fc.Arbitrary<unknown>[] = [];
  const dirty: fc.Arbitrary<unknown>[] = [];
  if (op.body) {
    clean.push(shapedFor(op.body, null, 0, false));
    dirty.push(shapedFor(op.body, null, 0, true));
  }
  if (templates) {
    clean.push(fc.constantFrom(...templates));
    dirty.push(...templates.map((tpl) => mutated(tpl)));
  }
  const shapes = clean.length ? [fc.oneof(...clean), fc.oneof(...dirty)] : [];
  return fc.oneof(
    ...(shapes.length
      ? [
          { weight: 3, arbitrary: defined(shapes[0], 'shapes[0]').map(json) },
          { weight: 6, arbitrary: defined(shapes[1], 'shapes[1]').map(json) },
        ]
      : []),
    { weight: shapes.length ? 1 : 3, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(json) },
    { weight: 1, arbitrary: hostileValue.map(json) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '',
          '{',
          'nul',
          '{"a":1,}',
          '[1,2',
          '\u0000',
          '{"__proto__":{"x":1}}',
          '{"a":"\\ud800"}',
          '"\\u0000"',
        )
        .map((payload) => ({ contentType: 'application/json', payload })),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        contentType: fc.constantFrom(
          'text/plain',
          'application/xml',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
          'text/csv',
        ),
        payload: fc.oneof(fc.string({ maxLength: 60 }), csvText),
      }),
    },
  );
}

/** A path parameter: the known id mostly, else hostile text, raw bad encodings or over-long ids. */
function pathParamFor(name: string): fc.Arbitrary<string> {
  const known = (KNOWN[name] ?? []).map(String);
  return fc.oneof(
    ...(known.length ? [{ weight: 4, arbitrary: fc.constantFrom(...known).map(encodeURIComponent) }] : []),
    { weight: 2, arbitrary: hostileString.map((s) => enc(s.slice(0, 150)) || 'x') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%ff', '%E0%A4%A', '%', '%00', '..', '.', '%2F', '%252F', '%C0%AF'),
    },
    { weight: 1, arbitrary: fc.integer({ min: 95, max: 300 }).map((n) => 'a'.repeat(n)) },
    { weight: 1, arbitrary: fc.uuid().map((u) => `${name.replace(/_id$/, '')}_${u}`) },
  );
}

const queryValue = (v: unknown): string[] =>
  Array.isArray(v) ? v.flatMap(queryValue) : [typeof v === 'string' ? v : (JSON.stringify(v) ?? '')];

function queryFor(op: Operation): fc.Arbitrary<string> {
  // Clean: a few documented parameters with values of their shape. Dirty: any of them, hostile
  // values, repeats, unknown parameters and raw bad encodings.
  const param = (dirty: boolean) =>
    op.query.map(([name, schema]) =>
      oneIn(
        dirty ? 3 : Math.max(2, Math.ceil(op.query.length / 2)),
        dirty
          ? fc.oneof(
              { weight: 3, arbitrary: shapedFor(schema, name, 0, false) },
              { weight: 2, arbitrary: hostileValue },
              { weight: 1, arbitrary: fc.array(fc.string({ maxLength: 8 }), { minLength: 2, maxLength: 3 }) },
            )
          : shapedFor(schema, name, 0, false),
      ).map((v) => (v === null ? [] : queryValue(v).map((s) => `${enc(name)}=${enc(s)}`))),
    );
  const extra = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), hostileString, { maxKeys: 2 });
  const raw = oneIn(3, fc.constantFrom('%ff', 'a=%', 'page[x]=1', '&&=&', 'a=%E0%A4%A'));
  const clean = fc.tuple(...param(false)).map((parts) => parts.flat());
  const dirty = fc
    .tuple(fc.tuple(...param(true)), extra, raw)
    .map(([parts, more, tail]) => [
      ...parts.flat(),
      ...Object.entries(more).map(([k, v]) => `${enc(k)}=${enc(v.slice(0, 300))}`),
      ...(tail ? [tail] : []),
    ]);
  return fc.oneof(clean, dirty).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

interface FuzzRequest {
  url: string;
  body: Body | null;
  headers: Record<string, string>;
}

const hmacHex = (secret: string, payload: string) =>
  createHmac('sha256', secret).update(payload).digest('hex');

/** What the platform sends with a callback: a valid signature or token mostly, sometimes a wrong one. */
function signCallback(
  op: Operation,
  url: string,
  payload: string,
  valid: boolean,
): { url: string; headers: Record<string, string> } {
  const forge = (s: string) => (valid ? s : `${s}x`);
  if (op.path.startsWith('/api/v1/integrations/email/')) {
    return valid && url.length % 2 === 0
      ? {
          url,
          headers: { authorization: `Basic ${Buffer.from(`postmark:${SECRETS.email}`).toString('base64')}` },
        }
      : { url: `${url}${url.includes('?') ? '&' : '?'}token=${forge(SECRETS.email)}`, headers: {} };
  }
  if (op.id === 'whatsappVerify') {
    // Meta's own parameters replace any the fuzzer drew under the same names, mostly.
    const base = valid ? url.replace(/hub(\.|%2E)[^&]*&?/gi, '').replace(/[?&]$/, '') : url;
    const join = base.includes('?') ? '&' : '?';
    return {
      url: `${base}${join}hub.mode=subscribe&hub.challenge=42&hub.verify_token=${forge(SECRETS.whatsappVerify)}`,
      headers: {},
    };
  }
  if (op.id === 'whatsappEvents') {
    return {
      url,
      headers: { 'x-hub-signature-256': forge(`sha256=${hmacHex(SECRETS.whatsappApp, payload)}`) },
    };
  }
  if (op.id.startsWith('voice')) {
    // Vapi's HMAC credential: the signature of `{timestamp}.{body}`, with the time it was made.
    const timestamp = String(Math.floor(Date.now() / 1000));
    return {
      url,
      headers: {
        'x-timestamp': timestamp,
        'x-signature': forge(hmacHex(SECRETS.vapi, `${timestamp}.${payload}`)),
      },
    };
  }
  return { url, headers: {} };
}

function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const credentials = op.isPublic
    ? fc.constant<Record<string, string>>({})
    : op.id === 'logout'
      ? fc.constant(leaving.headers)
      : op.apiKey
        ? fc.constantFrom(apiKey.headers, owner.headers)
        : fc.constant(owner.headers);
  const extraHeaders = fc.record({
    'idempotency-key': oneIn(
      3,
      fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constant('k'.repeat(300))),
    ),
    'x-organization-id': oneIn(8, fc.oneof(fc.constant(orgId), fc.string({ minLength: 1, maxLength: 40 }))),
  });
  return fc
    .record({
      params: fc.tuple(...op.pathParams.map(pathParamFor)),
      query: queryFor(op),
      body: bodyFor(op),
      credentials,
      extraHeaders,
      forged: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
    })
    .map(({ params, query, body, credentials, extraHeaders, forged }) => {
      let i = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => params[i++] ?? 'x');
      const headers: Record<string, string> = { ...credentials };
      for (const [k, v] of Object.entries(extraHeaders)) if (v !== null) headers[k] = v;
      let url = `${path}${query}`;
      if (op.callback) {
        const signed = signCallback(op, url, body?.payload ?? '', !forged);
        url = signed.url;
        Object.assign(headers, signed.headers);
      }
      return { url, body, headers };
    });
}

// ---------------------------------------------------------------------------------------------
// The contract every answer keeps.

function checkAnswer(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(res.statusCode, res.body.slice(0, 500)).toBeLessThan(500);
  if (res.statusCode < 400) return;
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  expect(res.body).not.toMatch(/FST_/);
  const body = defined(objectOf(JSON.parse(res.body)), 'the error body, an object');
  expect(Object.keys(body).filter((k) => k !== 'error' && k !== 'detail')).toEqual([]);
  const error = objectOf(body.error) ?? {};
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param']);
  expect(error.code).toMatch(/^[a-z][a-z0-9_]*$/);
  expect(typeof error.message === 'string' && error.message.length > 0).toBe(true);
  expect(error.param === null || typeof error.param === 'string').toBe(true);
  if (error.code === 'validation_error') {
    expect(res.statusCode).toBe(422);
    const detail = objectsOf(body.detail);
    expect(detail.length > 0, res.body.slice(0, 300)).toBe(true);
    for (const d of detail) {
      expect(['body', 'query', 'path', 'header']).toContain(Array.isArray(d.loc) ? d.loc[0] : undefined);
      expect(typeof d.msg).toBe('string');
      expect(typeof d.type).toBe('string');
    }
  } else {
    expect(body.detail).toBeUndefined();
  }
}

/**
 * Runs per operation, kept small so the file stays well inside a minute on a busy 2-core machine:
 * reads 20, writes 15, the batch endpoints 8. FUZZ_RUNS=<n> multiplies them for a longer hunt.
 */
function runsFor(op: Operation): number {
  const scale = Number(process.env.FUZZ_RUNS ?? 1) || 1;
  const base = /batch/.test(op.path) ? 8 : op.method === 'GET' ? 20 : 15;
  return Math.ceil(base * scale);
}

/** FUZZ_STATS=1 prints how many answers of each status and code every operation gave. */
const STATS = new Map<string, number>();
afterAll(() => {
  if (process.env.FUZZ_STATS)
    console.log(
      [...STATS]
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
    );
});
/** Requests that once gave a 500, replayed on every run before the random ones. */
function regressionsFor(op: Operation): [FuzzRequest][] {
  const vapiMessage = (message: Record<string, unknown>): [FuzzRequest] => {
    const payload = JSON.stringify({ message: { call: vapiCall, ...message } });
    const signed = signCallback(op, op.path.replace('{name}', 'submit_offer'), payload, true);
    return [{ url: signed.url, headers: signed.headers, body: { contentType: 'application/json', payload } }];
  };
  switch (op.id) {
    case 'voiceEvents':
      return [
        // A transcript time outside the range of a Date; entries that are not objects.
        vapiMessage({
          type: 'end-of-call-report',
          endedReason: 'customer-ended-call',
          artifact: {
            messages: [{ role: 'bot', message: 'x', time: -8_640_000_000_000_001 }, 5, { role: {} }],
          },
        }),
        // An artifact whose messages are not a list; fields of other types than Vapi sends.
        vapiMessage({ type: 'end-of-call-report', endedReason: '', artifact: { messages: '' } }),
        vapiMessage({ type: 'end-of-call-report', endedReason: {}, artifact: 'x', recordingUrl: 7 }),
        vapiMessage({ type: 'status-update', status: ['ended'], endedReason: 5, call: { id: 42 } }),
      ];
    case 'voiceTools':
      // Tool calls that are not objects, or lack an id.
      return [vapiMessage({ type: 'tool-calls', toolCallList: [true, {}, { function: 7 }] })];
    default:
      return [];
  }
}

/**
 * Sends a request and reads the whole answer; a stream that opened (200 `text/event-stream`) is
 * read no further than its head, and closed.
 */
async function answerOf(op: Operation, request: InjectOptions) {
  const app = (op.callback ? channels : t).app;
  if (!op.streams) return app.inject(request);
  const res = await app.inject({ ...request, payloadAsStream: true });
  const body = res.stream();
  if (res.statusCode === 200) {
    expect(String(res.headers['content-type'])).toMatch(/^text\/event-stream/);
    body.destroy();
    return { statusCode: 200, headers: res.headers, body: '' };
  }
  let text = '';
  for await (const chunk of body) text += String(chunk);
  return { statusCode: res.statusCode, headers: res.headers, body: text };
}

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

describe('OpenAPI-driven fuzzing: no 5xx, the error body on every 4xx', () => {
  it('reads every operation from the served document', () => {
    expect(operations.length).toBeGreaterThan(70);
    for (const id of ['login', 'upsertLoad', 'upsertLoadsBatch', 'batchCarriers', 'createWebhookEndpoint']) {
      expect(operations.map((o) => o.id)).toContain(id);
    }
  });

  it.each(operations.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    await fc.assert(
      fc.asyncProperty(requestFor(op), async (req) => {
        const res = await answerOf(op, {
          method: op.method,
          url: req.url,
          headers: { ...req.headers, ...(req.body ? { 'content-type': req.body.contentType } : {}) },
          ...(req.body ? { payload: req.body.payload } : {}),
        });
        checkAnswer(res);
        const k = `${op.id} ${res.statusCode}${res.statusCode >= 400 ? ` ${JSON.parse(res.body).error.code}` : ''}`;
        STATS.set(k, (STATS.get(k) ?? 0) + 1);
      }),
      { numRuns: runsFor(op), examples: regressionsFor(op), ...(seed === undefined ? {} : { seed }) },
    );
  });

  it('answers 404 for a well-formed id that names nothing, in every path position of every GET', async () => {
    // What an id of each path parameter looks like (docs/decisions/0010-prefixed-time-ordered-ids.md).
    const prefix: Record<string, string> = {
      id: 'key',
      load_id: 'load',
      carrier_id: 'car',
      preference_id: 'lp',
      offer_id: 'ofr',
      endpoint_id: 'ep',
      view_id: 'view',
      call_id: 'call',
      outreach_id: 'otr',
      elp_test_id: 'elp',
      delivery_id: 'dlv',
      message_id: 'evt',
      template_id: 'vt',
      voice_number_id: 'vnum',
      user_id: 'usr',
      invitation_id: 'inv',
      escalation_id: 'esc',
    };
    let checked = 0;
    for (const op of operations.filter((o) => o.method === 'GET' && o.pathParams.length > 0)) {
      for (const [position, missing] of op.pathParams.entries()) {
        let i = 0;
        const url = op.path.replace(/\{[^}]+\}/g, () => {
          const name = defined(op.pathParams[i++], 'op.pathParams[i++]');
          if (i - 1 === position) return `${prefix[name] ?? name}_01a20000-0000-7000-8000-000000000000`;
          return String(KNOWN[name]?.[0] ?? 'x');
        });
        const res = await t.app.inject({ method: 'GET', url, headers: owner.headers });
        expect(res.statusCode, `${op.id} with an unknown ${missing}: ${res.body.slice(0, 200)}`).toBe(404);
        expect(res.json().error.code).toBe('not_found');
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('leaves every record it touched readable: the lists and the seeded resources answer 200', async () => {
    for (const url of [
      `/api/v1/loads/${loadId}`,
      `/api/v1/calls/${callId}`,
      `/api/v1/carriers/${carrier.id}`,
      `/api/v1/offers/${offer.id}`,
      '/api/v1/loads?page_size=100',
      '/api/v1/carriers?page_size=100',
      '/api/v1/offers?page_size=100',
      '/api/v1/calls?page_size=100',
      '/api/v1/outreaches?page_size=100',
      '/api/v1/elp/tests?page_size=100',
      '/api/v1/load-views?page_size=100',
      '/api/v1/webhooks/endpoints?page_size=100',
      '/api/v1/api-keys?page_size=100',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: owner.headers });
      expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    }
    const calls = (
      await t.app.inject({ method: 'GET', url: '/api/v1/calls?page_size=100', headers: owner.headers })
    ).json();
    for (const c of z.array(z.object({ id: z.string() })).parse(calls.data)) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/calls/${c.id}`, headers: owner.headers });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    }
  });
});
