import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { objectOf } from '../../src/lib/json-object.js';
import { type Worker, WorkerRunner } from '../../src/workers/worker.js';
import { waitFor } from '../helpers/wait.js';

/** A logger whose lines the test reads. */
function capturingLog() {
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  return { log, lines };
}

describe('WorkerRunner', () => {
  it('runs each worker round after round, never two at once, and waits for the round in flight on stop', async () => {
    const { log } = capturingLog();
    let active = 0;
    let most = 0;
    let rounds = 0;
    let release: (() => void) | undefined;
    const worker: Worker = {
      name: 'slow',
      intervalMs: 1,
      async drain() {
        active++;
        most = Math.max(most, active);
        rounds++;
        // The third round stays open until the test lets it go.
        if (rounds === 3) await new Promise<void>((r) => (release = r));
        else await new Promise((r) => setImmediate(r));
        active--;
        return 1;
      },
    };
    const runner = new WorkerRunner([worker], log);
    runner.start();
    expect(runner.names()).toEqual(['slow']);
    await waitFor(
      async () => rounds,
      (n) => n === 3,
    );
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false); // the third round is still running
    defined(release, 'release')();
    await stopping;
    expect(most).toBe(1);
    expect(runner.names()).toEqual([]);
    // No round starts after stop.
    await new Promise((r) => setTimeout(r, 20));
    expect(rounds).toBe(3);
  });

  it('logs a failed round, whether it throws at once or rejects, and goes on with the next', async () => {
    const { log, lines } = capturingLog();
    let rounds = 0;
    const worker: Worker = {
      name: 'flaky',
      intervalMs: 1,
      drain() {
        rounds++;
        if (rounds === 1) throw new Error('thrown before any await');
        if (rounds === 2) return Promise.reject(new Error('rejected'));
        return Promise.resolve(0);
      },
    };
    const runner = new WorkerRunner([worker], log);
    runner.start();
    await waitFor(
      async () => rounds,
      (n) => n >= 3,
    );
    await runner.stop();
    const failed = lines.filter((l) => l.msg === 'worker round failed');
    expect(failed.map((l) => [l.worker, objectOf(l.err)?.message])).toEqual([
      ['flaky', 'thrown before any await'],
      ['flaky', 'rejected'],
    ]);
  });

  it('passes an abort signal that stop raises, so a long round can end early', async () => {
    const { log } = capturingLog();
    let seen: AbortSignal | undefined;
    const worker: Worker = {
      name: 'looping',
      intervalMs: 1,
      async drain(signal) {
        seen = signal;
        let n = 0;
        while (!signal?.aborted) {
          n++;
          await new Promise((r) => setImmediate(r));
        }
        return n;
      },
    };
    const runner = new WorkerRunner([worker], log);
    runner.start();
    await waitFor(
      async () => seen,
      (s) => s !== undefined,
    );
    expect(defined(seen, 'seen').aborted).toBe(false);
    await runner.stop();
    expect(defined(seen, 'seen').aborted).toBe(true);
  });
});
