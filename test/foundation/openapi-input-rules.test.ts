/**
 * Each input rule the server enforces, one request on either side of it: the served OpenAPI
 * document (judged by Ajv) and the server agree on which is accepted and which refused.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { createOrg, createUser } from '../helpers/factories.js';
import {
  type DocOperation,
  type DrawnRequest,
  Judge,
  operationsOf,
  type Schema,
  urlOf,
  validRequest,
} from '../helpers/openapi-requests.js';

const t = await buildTestApp({ env: { WORKERS_ENABLED: 'false' } });
afterAll(() => t.close());

const orgId = await createOrg(t);
const owner = await createUser(t, orgId, 'OWNER');
const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<Schema>();
const judge = new Judge(doc);
const operations = operationsOf(doc);
const op = (id: string) => {
  const found = operations.find((o) => o.id === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};

const carrier = (
  await t.app.inject({
    method: 'POST',
    url: '/api/v1/carriers',
    headers: owner.headers,
    payload: { name: 'Rules Freight', mc_number: '880001' },
  })
).json<{ id: string }>();

type Part = Partial<DrawnRequest>;
const request = (part: Part): DrawnRequest => ({
  pathParams: {},
  query: {},
  headers: {},
  body: undefined,
  hasBody: part.body !== undefined,
  ...part,
});

async function send(operation: DocOperation, r: DrawnRequest) {
  const headers: Record<string, string> = { ...owner.headers };
  for (const [k, v] of Object.entries(r.headers)) headers[k] = String(v);
  return t.app.inject({
    method: operation.method,
    url: urlOf(operation, r),
    headers,
    // Handed to inject as drawn: it sends an object as JSON, and the document's JSON bodies are objects.
    ...(r.hasBody ? { payload: r.body as object } : {}),
  });
}

const carrierPath = { carrier_id: '' };
const CASES: { rule: string; op: string; accepted: Part; refused: Part; param: string }[] = [
  {
    rule: 'a name is not blank',
    op: 'createCarrier',
    accepted: { body: { name: ' Blank Edge Freight', mc_number: '880002' } },
    refused: { body: { name: ' \u00a0\t', mc_number: '880003' } },
    param: 'name',
  },
  {
    rule: 'no NUL character in text',
    op: 'createCarrier',
    accepted: { body: { name: 'Nul Edge Freight', mc_number: '880004' } },
    refused: { body: { name: 'Nul\u0000Freight', mc_number: '880005' } },
    param: 'name',
  },
  {
    rule: 'lengths count characters, not UTF-16 units',
    op: 'createCarrier',
    accepted: { body: { name: '🚚'.repeat(200), mc_number: '880006' } },
    refused: { body: { name: '🚚'.repeat(201), mc_number: '880007' } },
    param: 'name',
  },
  {
    rule: 'a phone number of the documented pattern',
    op: 'createCarrier',
    accepted: { body: { name: 'Phone Freight', mc_number: '880008', phone: '+1 (415) 555-2671' } },
    refused: { body: { name: 'Phone Freight', mc_number: '880009', phone: '+1 (015) 555-2671' } },
    param: 'phone',
  },
  {
    rule: 'an e-mail address of the documented pattern',
    op: 'createCarrier',
    accepted: { body: { name: 'Mail Freight', mc_number: '880010', email: 'Dispatch@Mail.Example' } },
    refused: { body: { name: 'Mail Freight', mc_number: '880011', email: 'dispatch@localhost' } },
    param: 'email',
  },
  {
    rule: 'a registry number has a non-zero digit',
    op: 'createCarrier',
    accepted: { body: { name: 'MC Freight', mc_number: 'MC-0880012' } },
    refused: { body: { name: 'MC Freight', mc_number: 'MC-000' } },
    param: 'mc_number',
  },
  {
    rule: 'a calendar date that exists',
    op: 'listLoads',
    accepted: { query: { pickup_date_from: '2024-02-29' } },
    refused: { query: { pickup_date_from: '1979-69-69' } },
    param: 'pickup_date_from',
  },
  {
    rule: 'a leap day only in a leap year',
    op: 'listCalls',
    accepted: { query: { start_date: '2000-02-29' } },
    refused: { query: { start_date: '1900-02-29' } },
    param: 'start_date',
  },
  {
    rule: 'channel_order repeats no channel',
    op: 'updateAgentSettings',
    accepted: { body: { channel_order: ['email', 'call'] } },
    refused: { body: { channel_order: ['call', 'call'] } },
    param: 'channel_order',
  },
  {
    rule: 'reason_note is required, not blank, when reason is other',
    op: 'disableCarrier',
    accepted: { pathParams: carrierPath, body: { reason: 'other', reason_note: 'Paperwork lapsed' } },
    refused: { pathParams: carrierPath, body: { reason: 'other', reason_note: '  ' } },
    param: 'reason_note',
  },
  {
    rule: 'a webhook header name is a token and not reserved',
    op: 'createWebhookEndpoint',
    accepted: { body: { url: 'https://example.com/h', event_types: ['*'], headers: { 'X-Team': 'a' } } },
    refused: { body: { url: 'https://example.com/h', event_types: ['*'], headers: { 'Content-Type': 'a' } } },
    param: 'headers.Content-Type',
  },
  {
    rule: 'a webhook URL of the documented pattern',
    op: 'createWebhookEndpoint',
    accepted: { body: { url: 'http://localhost:9/hook', event_types: ['*'] } },
    refused: { body: { url: 'https://1.2.3/hook', event_types: ['*'] } },
    param: 'url',
  },
  {
    rule: "a saved view's filters are the list's parameters",
    op: 'createLoadView',
    accepted: { body: { name: 'Open', filters: { status: 'Unassigned', posted_rate_min: 100 } } },
    refused: { body: { name: 'Open', filters: { colour: 'red' } } },
    param: 'filters.colour',
  },
  {
    rule: 'a list value of an enum is never empty',
    op: 'listLoads',
    accepted: { query: { status: ['Unassigned', 'Dispatched'] } },
    refused: { query: { status: ['Unassigned', ''] } },
    param: 'status',
  },
  {
    rule: 'a number in the query string is written as one',
    op: 'listLoads',
    accepted: { query: { posted_rate_min: '-100', distance_max: '1.5e3' } },
    refused: { query: { posted_rate_min: '' } },
    param: 'posted_rate_min',
  },
  {
    rule: 'a boolean in the query string is true, false, 1 or 0',
    op: 'listLoads',
    accepted: { query: { is_posted: '1', order_desc: 'false' } },
    refused: { query: { is_posted: 'yes' } },
    param: 'is_posted',
  },
  {
    rule: 'the Idempotency-Key is printable ASCII',
    op: 'createCarrier',
    accepted: {
      headers: { 'idempotency-key': 'rules-key-1' },
      body: { name: 'Key Freight', mc_number: '880013' },
    },
    refused: {
      headers: { 'idempotency-key': 'r\u00e9gle' },
      body: { name: 'Key Freight', mc_number: '880014' },
    },
    param: 'idempotency-key',
  },
];

describe('the document states every input rule the server enforces', () => {
  it.each(CASES.map((c) => [c.rule, c] as const))('%s', async (_rule, c) => {
    const operation = op(c.op);
    const fill = (part: Part) => {
      const r = request(part);
      if (r.pathParams.carrier_id === '') r.pathParams = { carrier_id: carrier.id };
      return r;
    };
    const accepted = fill(c.accepted);
    const refused = fill(c.refused);
    expect(validRequest(judge, operation, accepted), 'the document accepts it').toBe(true);
    expect(validRequest(judge, operation, refused), 'the document refuses it').toBe(false);

    const ok = await send(operation, accepted);
    expect(ok.statusCode, ok.body).toBeLessThan(300);
    const no = await send(operation, refused);
    expect(no.statusCode, no.body).toBe(422);
    expect(no.json().error.param).toBe(c.param);
  });

  it('lists 400 and 431 on every operation, 414 where a path parameter is, 413 and 415 where a body is read', () => {
    for (const o of operations) {
      expect([...o.statuses], o.id).toEqual(expect.arrayContaining(['400', '431']));
      if (o.params.some((p) => p.in === 'path')) expect([...o.statuses], o.id).toContain('414');
      if (o.body || o.otherMedia || ['POST', 'PUT', 'PATCH', 'DELETE'].includes(o.method))
        expect([...o.statuses], o.id).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('answers the statuses it lists: a bad percent-encoding 400, an over-long id 414', async () => {
    const getLoad = op('getLoad');
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/loads/%ff', headers: owner.headers });
    expect(bad.statusCode).toBe(400);
    const long = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads/${'a'.repeat(101)}`,
      headers: owner.headers,
    });
    expect(long.statusCode).toBe(414);
    expect([...getLoad.statuses]).toEqual(expect.arrayContaining(['400', '414']));
  });
});
