import type pg from 'pg';
import { type Clock, ManualClock, realClock, SimulatedClock } from '../lib/clock.js';

/**
 * The product clock on the database's side. Every product time in SQL is `envoy_now()` (column
 * defaults, triggers, due times), never `now()`, which stays the machine's time for what must run
 * on it (leases, credentials, retries). envoy_now() has one of three bodies:
 * - real: `SELECT now()`, inlined by the planner, so it costs nothing over now();
 * - simulated: the simulation's line, `anchor + (now() - anchor_wall) * speed`, constants written
 *   into the body when a server starts, so it is inlined too;
 * - manual: the time in the `envoy_clock` row, which the owner of the clock moves (tests, the
 *   outcomes benchmark).
 * The `envoy_clock` row says which one runs, where the line is anchored, and when a server last
 * said it was alive: a simulation no server runs stands still, and a server refuses to run in
 * another mode than a live one's (a simulation cannot take over a database a real server uses).
 */

/** A server tells the database it is alive this often (wall time). */
const HEARTBEAT_MS = 5_000;
/** A server not heard of for this long is gone (wall time). */
const ALIVE_MS = 30_000;
/** Every change of the clock's mode or anchor takes this lock, so concurrent starts agree. */
const CLOCK_LOCK_ID = 727_274_002;

export type ClockMode = 'real' | 'simulated' | 'manual';

interface ClockRow {
  mode: ClockMode;
  anchor_at: Date;
  anchor_wall: Date;
  speed: number;
  last_seen_wall: Date;
  wall: Date;
}

/** A clock in use by this process, and how to stop telling the database about it. */
export interface ProductClock {
  clock: Clock;
  /** Stops the heartbeat (after a last one), at shutdown. */
  stop(): Promise<void>;
}

export class ClockModeError extends Error {}

const iso = (d: Date) => d.toISOString();
const bodyOf = (mode: ClockMode, anchorAt: Date, anchorWall: Date, speed: number) =>
  mode === 'real'
    ? 'SELECT now()'
    : mode === 'manual'
      ? 'SELECT anchor_at FROM envoy_clock'
      : `SELECT '${iso(anchorAt)}'::timestamptz + (now() - '${iso(anchorWall)}'::timestamptz) * ${Number(speed)}::float8`;

/** Where the clock of `row` stands at its wall time, or null for the real clock. */
function standing(row: ClockRow): Date | null {
  if (row.mode === 'real') return null;
  if (row.mode === 'manual') return row.anchor_at;
  // A simulation no server runs stopped when its last server did.
  const until = isAlive(row) ? row.wall : row.last_seen_wall;
  return new Date(row.anchor_at.getTime() + (until.getTime() - row.anchor_wall.getTime()) * row.speed);
}

const isAlive = (row: ClockRow) => row.wall.getTime() - row.last_seen_wall.getTime() < ALIVE_MS;

async function inClockLock<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [CLOCK_LOCK_ID]);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

async function readRow(client: pg.ClientBase): Promise<ClockRow | null> {
  const r = await client.query<ClockRow>(
    'SELECT mode, anchor_at, anchor_wall, speed, last_seen_wall, now() AS wall FROM envoy_clock',
  );
  return r.rows[0] ?? null;
}

async function writeRow(
  client: pg.ClientBase,
  mode: ClockMode,
  anchorAt: Date,
  anchorWall: Date,
  speed: number,
  previous: ClockMode | null,
) {
  await client.query(
    `INSERT INTO envoy_clock (mode, anchor_at, anchor_wall, speed, last_seen_wall)
     VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (singleton) DO UPDATE SET mode = $1, anchor_at = $2, anchor_wall = $3, speed = $4,
       last_seen_wall = now()`,
    [mode, anchorAt, anchorWall, speed],
  );
  if (mode === 'real' && previous === null) return;
  await client.query(
    `CREATE OR REPLACE FUNCTION envoy_now() RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE
     AS $body$${bodyOf(mode, anchorAt, anchorWall, speed)}$body$`,
  );
}

function heartbeat(pool: pg.Pool): ProductClock['stop'] {
  const beat = () => pool.query('UPDATE envoy_clock SET last_seen_wall = now()').catch(() => {});
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await beat();
  };
}

/** What a server starting found on the database, for its log. */
export interface ClockStart extends ProductClock {
  /** Set when the database ran a simulation ahead of the real clock (real mode only). */
  simulatedUntil: Date | null;
}

/**
 * The clock a server runs on: the machine's (`speed` null), or a simulation `speed` times faster.
 * A simulation continues from where its database's last one stood (never before the machine's
 * time); several instances of one simulation share its line. Refuses (ClockModeError) to start in
 * another mode than a server still alive on the database.
 */
export async function startProductClock(
  pool: pg.Pool,
  speed: number | null,
  /**
   * `takeOver`: start even when a server in another mode seems alive (a test's database).
   * `start`: where a simulation starts when the database has none standing later.
   */
  options: { takeOver?: boolean; start?: Date | null } = {},
): Promise<ClockStart> {
  const mode: ClockMode = speed === null ? 'real' : 'simulated';
  const started = await inClockLock(pool, async (client) => {
    const row = await readRow(client);
    if (row && isAlive(row) && row.mode !== mode && row.mode !== 'manual' && !options.takeOver) {
      throw new ClockModeError(
        row.mode === 'simulated'
          ? `this database runs a simulated clock at ${row.speed}x (a server was alive ${Math.round((row.wall.getTime() - row.last_seen_wall.getTime()) / 1000)} s ago): start with SIMULATION_SPEED=${row.speed}, or stop that server first`
          : 'a server on the real clock was alive on this database in the last 30 s: a simulation cannot run on its data; use a database of its own',
      );
    }
    const stood = row ? standing(row) : null;
    if (speed === null) {
      await writeRow(
        client,
        'real',
        new Date(0),
        new Date(0),
        1,
        row && row.mode !== 'real' ? row.mode : null,
      );
      return {
        clock: realClock,
        simulatedUntil: stood && row && stood > row.wall ? stood : null,
      };
    }
    const s = speed;
    if (row?.mode === 'simulated' && isAlive(row) && row.speed === s) {
      return {
        clock: new SimulatedClock(row.anchor_at.getTime(), row.anchor_wall.getTime(), s),
        simulatedUntil: null,
      };
    }
    const wall = row?.wall ?? new Date();
    const from = options.start ?? wall;
    const at = stood && stood > from ? stood : from;
    await writeRow(client, 'simulated', at, wall, s, row?.mode ?? 'real');
    return { clock: new SimulatedClock(at.getTime(), wall.getTime(), s), simulatedUntil: null };
  });
  return { ...started, stop: heartbeat(pool) };
}

/**
 * The clock a command-line tool runs on: whatever its database runs. A simulation no server runs
 * is taken up where it stood, and kept alive while the tool works, so a server started after it
 * continues from the tool's time.
 */
export async function joinProductClock(pool: pg.Pool): Promise<ProductClock> {
  const row = await inClockLock(pool, readRow);
  if (!row || row.mode === 'real') return { clock: realClock, stop: async () => {} };
  if (row.mode === 'manual') return { clock: new ManualClock(row.anchor_at), stop: async () => {} };
  if (isAlive(row)) {
    return {
      clock: new SimulatedClock(row.anchor_at.getTime(), row.anchor_wall.getTime(), row.speed),
      stop: heartbeat(pool),
    };
  }
  return startProductClock(pool, row.speed);
}

/**
 * A manual clock on this database, starting at `start`: envoy_now() reads the time it is moved to.
 * For tests and the outcomes benchmark, each on a database of its own.
 */
export async function manualProductClock(pool: pg.Pool, start: Date): Promise<ManualClock> {
  await inClockLock(pool, async (client) => {
    const row = await readRow(client);
    await writeRow(client, 'manual', start, start, 0, row?.mode ?? 'real');
  });
  return new ManualClock(start, async (at) => {
    await pool.query('UPDATE envoy_clock SET anchor_at = $1', [at]);
  });
}
