import type pg from 'pg';

/**
 * Does what PostgreSQL's autovacuum would, for servers that run with it off (this machine's does):
 * every `naptimeMs` it reads pg_stat_user_tables and, per table, runs VACUUM when dead tuples or
 * inserts since the last vacuum pass autovacuum's thresholds and ANALYZE when the rows changed
 * since the last analyze do. Thresholds and the vacuum's cost throttling are PostgreSQL
 * 15's defaults (autovacuum_vacuum_threshold 50 + scale 0.2, insert 1000 + 0.2, analyze 50 + 0.1;
 * autovacuum_vacuum_cost_delay 2 ms, cost limit 200). The naptime is shorter than autovacuum's
 * default 60 s, so statistics never lag more than a few seconds behind a growing table.
 *
 * On a server where autovacuum is on, it does nothing.
 */
export class AutovacuumStandIn {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private enabled = true;
  readonly log: { at: number; table: string; action: string; ms: number }[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly naptimeMs = 5_000,
  ) {}

  async start(): Promise<void> {
    const { rows } = await this.pool.query<{ setting: string }>(
      `SELECT setting FROM pg_settings WHERE name = 'autovacuum'`,
    );
    this.enabled = rows[0]?.setting !== 'on';
    if (!this.enabled) return;
    const tick = () => {
      this.running = this.pass().finally(() => {
        if (this.timer) this.timer = setTimeout(tick, this.naptimeMs);
      });
    };
    this.timer = setTimeout(tick, this.naptimeMs);
  }

  /** Whether this stand-in acts (autovacuum is off on the server). */
  get active() {
    return this.enabled;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass over the tables, as one autovacuum worker visit would. */
  async pass(): Promise<void> {
    if (!this.enabled) return;
    const client = await this.pool.connect();
    try {
      await client.query(`SET vacuum_cost_delay = '2ms'`);
      await client.query('SET vacuum_cost_limit = 200');
      await client.query('SET statement_timeout = 0');
      const { rows } = await client.query<{ table: string; vacuum: boolean; analyze: boolean }>(
        `SELECT s.relname AS table,
                s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
                  OR s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) AS vacuum,
                s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) AS analyze
         FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
         WHERE s.schemaname = 'public'
         ORDER BY s.relname`,
      );
      for (const r of rows) {
        if (!r.vacuum && !r.analyze) continue;
        const action = r.vacuum && r.analyze ? 'VACUUM ANALYZE' : r.vacuum ? 'VACUUM' : 'ANALYZE';
        const started = Date.now();
        await client.query(`${action} "${r.table}"`);
        this.log.push({ at: started, table: r.table, action, ms: Date.now() - started });
      }
    } finally {
      client.release();
    }
  }
}
