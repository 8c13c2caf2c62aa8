import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { faultSetup } from './fault-setup.js';

/**
 * PostgreSQL backends terminated under write load, as a failover or an operator's
 * pg_terminate_backend would: every keyed request keeps its one outcome, and every acknowledged
 * write is there afterwards.
 */

const KEYED = 40;
const UNKEYED = 40;
const CONCURRENCY = 6;
/**
 * How often a backend is terminated (PG_FAULTS_KILL_EVERY_MS to try harsher). Far below the time a
 * request takes (25 ms), the last requests never finish: once the others are done, theirs is the
 * only backend left, and it is terminated before any attempt can commit.
 */
const KILL_EVERY_MS = Number(process.env.PG_FAULTS_KILL_EVERY_MS ?? 200);
/**
 * A key is held only while its request runs: a key whose attempt failed is free again, so each
 * keyed request succeeds within this many attempts (a 409 while a terminated backend is still
 * exiting is retried like a 5xx).
 */
const ATTEMPTS_PER_KEY = 100;

interface Answer {
  status: number;
  body: string;
}

describe('terminated PostgreSQL backends during writes', () => {
  const setup = faultSetup();

  it('keeps every keyed outcome once and loses no acknowledged write', async () => {
    const { t, admin, headers } = setup;
    let killing = true;
    let terminated = 0;
    const killer = (async () => {
      while (killing) {
        const { rows } = await admin.query(
          `SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'envoy' AND pid <> pg_backend_pid()
            ORDER BY random() LIMIT 1`,
        );
        terminated += rows.filter((r) => r.gone).length;
        await new Promise((r) => setTimeout(r, KILL_EVERY_MS * (0.5 + Math.random())));
      }
    })();

    const run = process.hrtime.bigint().toString(36);
    const bodyOf = (n: number) => ({
      name: `Fault ${run} ${n}`,
      contacts: [
        { contact_type: 'DISPATCHER', name: `Dispatch ${n}`, email: `dispatch-${n}-${run}@example.com` },
      ],
    });
    const post = async (n: number, key?: string): Promise<Answer> => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/carriers',
        headers: key ? { ...headers, 'idempotency-key': key } : headers,
        payload: bodyOf(n),
      });
      return { status: res.statusCode, body: res.body };
    };

    const counts = {
      keyedFirstSuccessCreated: 0,
      keyed5xxBeforeSuccess: 0,
      keyed409: 0,
      unkeyedAcknowledged: 0,
      /** Acknowledged with the 202 receipt: committed, read-back cut off. */
      unkeyedReceipts: 0,
      unkeyed503: 0,
      unkeyed503Committed: 0,
    };
    const firstSuccess = new Map<number, Answer>();
    const acknowledged = new Set<number>();
    const unkeyed503 = new Set<number>();

    const trail = new Map<number, string[]>();
    const keyedOne = async (n: number) => {
      for (let attempt = 0; attempt < ATTEMPTS_PER_KEY; attempt++) {
        const answer = await post(n, `fault-${run}-${n}`);
        trail.set(n, [...(trail.get(n) ?? []), `${answer.status} ${answer.body.slice(0, 80)}`]);
        if (answer.status === 409) counts.keyed409 += 1;
        if (answer.status >= 500 || answer.status === 409) {
          if (answer.status >= 500) counts.keyed5xxBeforeSuccess += 1;
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        firstSuccess.set(n, answer);
        if (answer.status === 201) counts.keyedFirstSuccessCreated += 1;
        return;
      }
    };
    const unkeyedOne = async (n: number) => {
      const answer = await post(n);
      if (answer.status < 300) acknowledged.add(n);
      if (answer.status === 202) counts.unkeyedReceipts += 1;
      else if (answer.status === 503) unkeyed503.add(n);
    };

    const jobs: (() => Promise<void>)[] = [];
    for (let i = 0; i < Math.max(KEYED, UNKEYED); i++) {
      if (i < KEYED) jobs.push(() => keyedOne(i));
      if (i < UNKEYED) jobs.push(() => unkeyedOne(10_000 + i));
    }
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let job = jobs.shift(); job; job = jobs.shift()) await job();
      }),
    );
    killing = false;
    await killer;

    // Every keyed request: its first success was the creation, and a retry now replays it exactly.
    for (let n = 0; n < KEYED; n++) if (!firstSuccess.has(n)) console.log(n, trail.get(n)?.slice(-3));
    expect(firstSuccess.size).toBe(KEYED);
    for (const [n, first] of firstSuccess) {
      expect(first.status, `request ${n}`).toBe(201);
      const again = await post(n, `fault-${run}-${n}`);
      expect(again, `request ${n}`).toEqual(first);
    }
    // Nothing ran twice: one carrier and one contact per keyed request.
    const { rows } = await t.database.pool.query(
      `SELECT c.name, count(DISTINCT c.id)::int AS carriers, count(cc.id)::int AS contacts
         FROM carriers c LEFT JOIN carrier_contacts cc ON cc.carrier_id = c.id
        WHERE c.name LIKE $1 GROUP BY c.name`,
      [`Fault ${run} %`],
    );
    const counted = z
      .array(z.object({ name: z.string(), carriers: z.number(), contacts: z.number() }))
      .parse(rows);
    const byName = new Map(counted.map(({ name, ...counts }) => [name, counts]));
    for (let n = 0; n < KEYED; n++) {
      expect(byName.get(`Fault ${run} ${n}`), `keyed ${n}`).toEqual(
        expect.objectContaining({ carriers: 1, contacts: 1 }),
      );
    }
    // No acknowledged unkeyed write lost.
    for (const n of acknowledged) expect(byName.has(`Fault ${run} ${n}`), `unkeyed ${n}`).toBe(true);
    counts.unkeyedAcknowledged = acknowledged.size;
    counts.unkeyed503 = unkeyed503.size;
    counts.unkeyed503Committed = [...unkeyed503].filter((n) => byName.has(`Fault ${run} ${n}`)).length;
    expect(terminated).toBeGreaterThan(0);
    console.log(
      JSON.stringify({ terminatedBackends: terminated, keyed: KEYED, unkeyed: UNKEYED, ...counts }),
    );
  }, 120_000);
});
