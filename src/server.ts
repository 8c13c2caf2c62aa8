import path from 'node:path';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, loadEnvFile } from './config.js';
import { createDatabase, type Database } from './db/client.js';
import {
  EMBEDDED_DATABASE,
  type EmbeddedDatabase,
  ensureDatabase,
  startEmbeddedPostgres,
} from './db/embedded.js';
import { migrateDatabase, pendingMigrations } from './db/migrate.js';
import { ClockModeError, startProductClock } from './db/product-clock.js';
import { loggerOptions, prettyLogs } from './logger.js';
import { buildServices } from './services.js';
import { describeStartup } from './startup.js';

/**
 * Applies pending migrations (the default), or with MIGRATE_ON_START=false only checks that none
 * is pending: false when one is, after logging which.
 */
async function migrateOrCheck(migrate: boolean, database: Database, logger: Logger): Promise<boolean> {
  if (migrate) {
    await migrateDatabase(database);
    return true;
  }
  const pending = await pendingMigrations(database.pool);
  if (pending.length === 0) return true;
  logger.error({ pending }, 'migrations are pending and MIGRATE_ON_START=false: run `npm run migrate` first');
  return false;
}

/**
 * Behind a transaction-mode pooler the statement timeout is not sent at connection: it must come
 * from the role (docs/operations.md, "Scaling out"). Says so when the server has none.
 */
async function warnIfUncapped(database: Database, logger: Logger) {
  const { rows } = await database.pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
  if (rows[0]?.statement_timeout === '0') {
    logger.warn(
      "DB_POOLER=transaction and the database role has no statement_timeout: statements run uncapped; set it on the role (ALTER ROLE ... SET statement_timeout = '30s')",
    );
  }
}

/**
 * The product clock this server runs on (the machine's, or a simulation's); exits when the
 * database runs another mode on a live server.
 */
async function clockOrExit(
  config: ReturnType<typeof loadConfig>,
  database: Database,
  embedded: EmbeddedDatabase | undefined,
  logger: Logger,
) {
  try {
    const started = await startProductClock(database.pool, config.simulation.speed, {
      start: config.simulation.start,
    });
    if (started.simulatedUntil) {
      logger.warn(
        { simulatedUntil: started.simulatedUntil.toISOString() },
        'this database ran a simulated clock ahead of the real one: times it recorded then are simulated',
      );
    }
    return started;
  } catch (err) {
    if (!(err instanceof ClockModeError)) throw err;
    logger.error(err.message);
    await database.close();
    await embedded?.stop();
    process.exit(1);
  }
}

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    loadEnvFile();
    config = loadConfig(process.env, (m) => console.warn(m));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = pino(loggerOptions(config.logLevel, { pretty: prettyLogs(config.env) }));

  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    logger.info(
      { dataDir: config.dataDir, port: config.embeddedPgPort },
      'DATABASE_URL not set: starting embedded PostgreSQL',
    );
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(config.dataDir, 'pg'),
      port: config.embeddedPgPort,
      persistent: true,
      ownSignals: true,
      supervise: true,
      onLog: (line) => logger.debug({ postgres: line }),
      onSupervisorEvent: (event) => {
        if (event.kind === 'exited') {
          logger.error(
            { code: event.code, signal: event.signal },
            'embedded PostgreSQL stopped unexpectedly: restarting it; requests get 503 meanwhile',
          );
        } else if (event.kind === 'restart_failed') {
          logger.warn(
            { attempt: event.attempt, reason: event.message, retryInMs: event.retryInMs },
            'embedded PostgreSQL did not start yet; trying again',
          );
        } else {
          logger.info({ attempt: event.attempt, downMs: event.downMs }, 'embedded PostgreSQL is back');
        }
      },
    });
    databaseUrl = await ensureDatabase(embedded.url, EMBEDDED_DATABASE);
  }

  const database = createDatabase(databaseUrl, config.db, logger);
  if (!(await migrateOrCheck(config.migrateOnStart, database, logger))) {
    await database.close();
    await embedded?.stop();
    process.exit(1);
  }
  if (config.db.pooler === 'transaction') await warnIfUncapped(database, logger);
  const productClock = await clockOrExit(config, database, embedded, logger);
  const { clock } = productClock;
  const services = buildServices({ config, database, log: logger, clock });
  const app = await buildApp({ config, database, embedded, services }, { logger });

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
      await productClock.stop();
      await database.close();
      await embedded?.stop();
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  // `on`, not `once`: a second signal (a process group signalled, then a wrapper relaying it)
  // must not fall through to the default action and cut the drain short.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    await app.listen({ host: config.host, port: config.port });
    const inUse = embedded
      ? { embedded: { dataDir: path.join(config.dataDir, 'pg'), port: config.embeddedPgPort } }
      : { url: databaseUrl };
    const { facts, message } = describeStartup(config, inUse, app.workers.names(), clock);
    logger.info({ startup: facts }, message);
  } catch (err) {
    logger.error({ err }, 'could not listen');
    await database.close();
    await embedded?.stop();
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
