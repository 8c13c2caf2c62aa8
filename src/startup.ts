import { existsSync } from 'node:fs';
import type { Config } from './config.js';
import type { Clock } from './lib/clock.js';
import { defined } from './lib/defined.js';

export type DatabaseInUse = { embedded: { dataDir: string; port: number } } | { url: string };

/** `host:port/database` of a URL, never its user or password. */
function where(url: string): string {
  try {
    const u = new URL(url);
    const db = u.pathname.replace(/^\//, '');
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${db ? `/${db}` : ''}`;
  } catch {
    return 'an unparseable URL';
  }
}

/**
 * What this instance runs on, for the one log line after it starts listening: the database, the
 * provider behind each outside service, and the background workers. No credential appears in it.
 */
export function describeStartup(
  config: Config,
  database: DatabaseInUse,
  workers: readonly string[],
  clock: Clock,
) {
  const { channels } = config;
  const simulated = (what: string) => `simulated (${config.simulation.profile} ${what})`;
  const facts = {
    clock:
      clock.kind === 'simulated'
        ? `simulated at ${clock.speed}x, now ${clock.now().toISOString()}`
        : 'real (the machine’s)',
    database:
      'embedded' in database
        ? `embedded PostgreSQL in ${database.embedded.dataDir} (port ${database.embedded.port})`
        : `PostgreSQL at ${where(database.url)}`,
    voice:
      config.voice.provider === 'vapi'
        ? `vapi (${where(defined(config.voice.vapi, 'config.voice.vapi').baseUrl)})`
        : simulated('carriers'),
    email:
      channels.email.transport === 'smtp' && channels.email.smtpUrl
        ? `smtp (${where(channels.email.smtpUrl)})`
        : simulated('carriers'),
    whatsapp:
      channels.whatsapp.provider === 'cloud_api'
        ? `cloud_api (${where(channels.whatsapp.baseUrl)})`
        : simulated('carriers'),
    compliance:
      config.compliance.provider === 'fmcsa'
        ? `fmcsa (${where(config.compliance.fmcsa.baseUrl)})`
        : `registry (${config.compliance.registryFile}${existsSync(config.compliance.registryFile) ? '' : ': no snapshot, every check answers no_data'})`,
    // How a carrier gets vetted here, and what strict mode (each organization's default) then does.
    vetting:
      config.compliance.provider === 'fmcsa'
        ? 'carriers pass vetting on their FMCSA record'
        : existsSync(config.compliance.registryFile)
          ? 'carriers pass vetting on their record in the registry snapshot'
          : 'no carrier can pass vetting (no registry snapshot, no FMCSA key): under strict mode, on by default, every quote is held for a rep; give a snapshot or an FMCSA key, or switch strict mode off (PATCH /api/v1/compliance-policy with strict_mode false)',
    chat_model: channels.llm ? `${channels.llm.model} (${where(channels.llm.baseUrl)})` : 'off',
    rate_limits: config.redisUrl ? `Redis at ${where(config.redisUrl)}` : 'counted in process',
    workers: workers.length ? workers.join(', ') : 'none (WORKERS_ENABLED=false)',
  };
  const message =
    `Envoy ready: clock ${facts.clock}; database ${facts.database}; voice ${facts.voice}, e-mail ${facts.email}, ` +
    `WhatsApp ${facts.whatsapp}, compliance ${facts.compliance} (${facts.vetting}), chat model ${facts.chat_model}; ` +
    `rate limits ${facts.rate_limits}; workers ${facts.workers}`;
  return { facts, message };
}
