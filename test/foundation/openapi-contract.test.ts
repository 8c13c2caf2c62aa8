/**
 * The served OpenAPI document against the server, with requests drawn from the document itself
 * (json-schema-faker, judged by Ajv), in the three ways an outside contract tester checks it:
 *   (a) every answer's status is one the document lists for the operation;
 *   (b) a request the document says is valid is never refused for its shape (no 400, no 422);
 *   (c) a request that breaks one rule of the document is refused (4xx).
 * Seeded and repeatable (CONTRACT_SEED=<n> draws another run, CONTRACT_RUNS=<n> more per operation).
 */
import type { InjectOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTestApp } from '../helpers/app.js';
import { createOrg, createUser } from '../helpers/factories.js';
import { bodyOf } from '../helpers/json-body.js';
import {
  type DocOperation,
  type DrawnRequest,
  drawValid,
  Judge,
  mutate,
  operationsOf,
  rng,
  type Schema,
  urlOf,
} from '../helpers/openapi-requests.js';

const t = await buildTestApp({ env: { WORKERS_ENABLED: 'false' } });
afterAll(() => t.close());

const orgId = await createOrg(t);
const owner = await createUser(t, orgId, 'OWNER');
// Signing out ends the session of the token it is sent with: a user of its own.
const leaving = await createUser(t, orgId, 'MEMBER');

const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<Schema>();
const judge = new Judge(doc);
const operations = operationsOf(doc);

const SEED = Number(process.env.CONTRACT_SEED ?? 20_260_101);
const RUNS = Math.max(1, Number(process.env.CONTRACT_RUNS ?? 1) || 1);
const VALID_PER_OPERATION = 3 * RUNS;
const BROKEN_PER_VALID = 1;

interface Answer {
  statusCode: number;
  body: string;
}

async function send(op: DocOperation, r: DrawnRequest): Promise<Answer> {
  const headers: Record<string, string> = {
    ...(op.id === 'logout' ? leaving.headers : owner.headers),
  };
  for (const [name, value] of Object.entries(r.headers))
    if (value !== undefined) headers[name] = String(value);
  const request: InjectOptions = { method: op.method, url: urlOf(op, r), headers };
  if (op.body && r.hasBody) {
    headers['content-type'] = 'application/json';
    request.payload = JSON.stringify(r.body);
  } else if (op.otherMedia) {
    headers['content-type'] = op.otherMedia;
    request.payload = '';
  }
  if (!op.streams) return t.app.inject(request);
  const res = await t.app.inject({ ...request, payloadAsStream: true });
  const stream = res.stream();
  if (res.statusCode === 200) {
    stream.destroy();
    return { statusCode: 200, body: '' };
  }
  let body = '';
  for await (const chunk of stream) body += String(chunk);
  return { statusCode: res.statusCode, body };
}

const describeRequest = (op: DocOperation, r: DrawnRequest, res: Answer) =>
  `${op.method} ${urlOf(op, r).slice(0, 200)} headers=${JSON.stringify(r.headers).slice(0, 200)} ` +
  `body=${r.hasBody ? JSON.stringify(r.body).slice(0, 600) : '(none)'} -> ${res.statusCode} ${res.body.slice(0, 400)}`;

/**
 * The refusals of a valid request that are not about its shape, and so cannot be in a schema: a
 * reference to a record that does not exist, a rule on stored data (a load new to the API needs
 * its stops, an Idempotency-Key is used for one request), a time that must be in the future, and the comparisons of two fields or of list
 * items (a range's ends, a period's length, a schedule's steps). docs/api-contract.md lists them.
 */
const NOT_SHAPE = [
  /^[A-Z][a-z]+( [a-z]+)* '.*' does not exist$/,
  /^A referenced resource does not exist$/,
  /^A new load needs at least two stops$/,
  /: Must not be later than /,
  /^`from` must be before `to`$/,
  /^Must be in the future/,
  /^Idempotency-Key '.*' was already used with a different request$/,
  /^The period may span at most \d+ days$/,
  /^Must not repeat a min_hours_to_pickup$/,
  /^max_concession_pct must not fall as pickup nears/,
];

function refusedForShape(res: Answer): boolean {
  if (res.statusCode === 400) return true;
  if (res.statusCode !== 422) return false;
  const body = bodyOf(
    res,
    z.object({
      error: z.object({ message: z.string() }),
      detail: z.array(z.object({ msg: z.string() })).optional(),
    }),
  );
  const messages = body.detail?.map((d) => d.msg) ?? [body.error.message];
  return !messages.every(
    (m) => NOT_SHAPE.some((re) => re.test(m)) || NOT_SHAPE.some((re) => re.test(body.error.message)),
  );
}

function refused(res: Answer): boolean {
  if (res.statusCode >= 400 && res.statusCode < 500) return true;
  return (
    res.statusCode === 207 && bodyOf(res, z.object({ success: z.boolean().optional() })).success === false
  );
}

/** (a) The status is one the document lists for this operation. */
function checkListed(op: DocOperation, r: DrawnRequest, res: Answer) {
  expect(op.statuses.has(String(res.statusCode)), `undocumented status: ${describeRequest(op, r, res)}`).toBe(
    true,
  );
}

describe('the OpenAPI document holds for requests drawn from it', () => {
  it('reads every operation, and draws requests for nearly all of them', () => {
    expect(operations.length).toBeGreaterThan(70);
  });

  it.each(operations.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    const random = rng(SEED + op.id.length * 7919 + op.path.length);
    let drawn = 0;
    let broken = 0;
    for (let i = 0; i < VALID_PER_OPERATION; i++) {
      const valid = drawValid(judge, op, SEED + i * 104_729 + op.path.length);
      if (!valid) continue;
      drawn += 1;
      const res = await send(op, valid);
      checkListed(op, valid, res);
      // (b) A valid request is not refused for its shape.
      expect(refusedForShape(res), `a valid request refused: ${describeRequest(op, valid, res)}`).toBe(false);
      for (let j = 0; j < BROKEN_PER_VALID; j++) {
        const broke = mutate(judge, op, valid, random);
        if (!broke) break;
        broken += 1;
        const answer = await send(op, broke.request);
        checkListed(op, broke.request, answer);
        // (c) A request that breaks a rule of the document is refused: a 4xx, or in a batch (207)
        // the items that break it.
        expect(
          refused(answer),
          `a request breaking the document (${broke.what}) was not refused: ${describeRequest(op, broke.request, answer)}`,
        ).toBe(true);
      }
    }
    expect(drawn, 'no valid request could be drawn').toBeGreaterThan(0);
    if (op.body || op.params.some((p) => p.in !== 'path')) expect(broken).toBeGreaterThan(0);
  });
});
