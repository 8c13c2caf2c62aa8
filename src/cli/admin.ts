import { parseArgs } from 'node:util';
import pino from 'pino';
import { z } from 'zod';
import { ConfigError, loadConfig, loadEnvFile } from '../config.js';
import { violatesForeignKey } from '../db/pg-errors.js';
import { AppError } from '../domain/errors.js';
import { ROLES, systemScope } from '../domain/scope.js';
import { emailInput, nonEmptyText, phoneInput, text } from '../http/schemas.js';
import { defined } from '../lib/defined.js';
import { errorMessage } from '../lib/error-text.js';
import { buildServices } from '../services.js';
import { openCommandDatabase } from './database.js';
import { seedDemo } from './seed-demo.js';

/** Raised for a usage mistake: exit code 2. */
class UsageError extends Error {}

/** Each command's usage: what it takes, what it prints on stdout (one JSON object). */
const COMMANDS = {
  'create-org': ['create-org --name NAME', 'Creates an organization. Prints {"organization_id"}.'],
  'create-user': [
    'create-user --org ORG_ID --email E --password P --role OWNER|ADMIN|MEMBER [--phone +1...] [--name N]',
    'Creates a user with a role in the organization (an existing user is added to it). The password has ' +
      'at least 8 characters; the phone is the number POST /calls/{id}/join transfers to. Prints {"user_id","created"}.',
  ],
  'create-api-key': [
    'create-api-key --org ORG_ID --name NAME',
    'Creates an API key of the organization. Prints {"id","key"}; the key is shown only here.',
  ],
  migrate: [
    'migrate',
    'Applies pending migrations (serialised with any starting server) and exits: run it before a rollout ' +
      'whose servers start with MIGRATE_ON_START=false. Prints {"applied"}, the migrations it applied.',
  ],
  'seed-demo': [
    'seed-demo',
    'Creates a demo organization: an owner, an API key, 200 loads, 100 carriers, offers, calls, outreaches ' +
      'and ELP tests. Reports each step on stderr; prints {"organization_id","owner","api_key","counts"}.',
  ],
} as const;

const commandHelp = (name: keyof typeof COMMANDS) => {
  const [usage, about] = COMMANDS[name];
  return `usage: npm run admin -- ${usage}\n\n  ${about}`;
};

const USAGE = `usage: npm run admin -- <command> [--flags]

${Object.values(COMMANDS)
  .map(([usage, about]) => `  ${usage}\n      ${about}`)
  .join('\n')}

  help [command]    this text, or one command's

The database is DATABASE_URL, else the embedded one of a running \`npm start\`, else the embedded one
under DATA_DIR (started for the command). Exit codes: 0 done, 1 failed, 2 usage mistake.`;

/** `help`, `--help`, `-h`, `help <command>` and `<command> --help`: the usage text, or null. */
function helpFor(argv: string[]): string | null {
  const isHelp = (a: string | undefined) => a === 'help' || a === '--help' || a === '-h';
  const [first, second] = argv;
  if (isHelp(first))
    // `second in COMMANDS` was checked on this line.
    return second && second in COMMANDS ? commandHelp(second as keyof typeof COMMANDS) : USAGE;
  if (first && first in COMMANDS && argv.slice(1).some((a) => a === '--help' || a === '-h')) {
    // `first in COMMANDS` was checked on the line above.
    return commandHelp(first as keyof typeof COMMANDS);
  }
  return null;
}

const schemas = {
  'create-org': z.object({ name: nonEmptyText(200) }),
  'create-user': z.object({
    org: text(100),
    email: emailInput(),
    password: z.string().min(8, 'must be at least 8 characters').max(1024),
    role: z.enum(ROLES),
    phone: phoneInput().optional(),
    name: text(200).optional(),
  }),
  'create-api-key': z.object({ org: text(100), name: nonEmptyText(100) }),
  migrate: z.object({}),
  'seed-demo': z.object({}),
} as const;

type Command = keyof typeof schemas;

function parse(argv: string[]) {
  const [command, ...rest] = argv;
  if (!command || !(command in schemas))
    throw new UsageError(command ? `unknown command '${command}'` : 'no command');
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: rest,
      strict: true,
      options: {
        name: { type: 'string' },
        org: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        role: { type: 'string' },
        phone: { type: 'string' },
      },
    }).values;
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
  // Checked above: `command in schemas`, so it is one of the commands.
  const parsed = schemas[command as Command].safeParse(values);
  if (!parsed.success) {
    const issue = defined(parsed.error.issues[0], 'parsed.error.issues[0]');
    throw new UsageError(
      `--${issue.path.join('.')}: ${issue.message === 'Invalid input: expected string, received undefined' ? 'required' : issue.message}`,
    );
  }
  // As above: `command` is one of the commands.
  return { command: command as Command, flags: parsed.data };
}

async function main() {
  const help = helpFor(process.argv.slice(2));
  if (help) {
    console.log(help);
    return;
  }
  let parsedArgs: ReturnType<typeof parse>;
  try {
    parsedArgs = parse(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(JSON.stringify({ error: err.message }));
      console.error(USAGE);
      process.exit(2);
    }
    throw err;
  }
  loadEnvFile();
  const config = loadConfig(process.env, () => {});
  const { database, applied, close } = await openCommandDatabase(config);
  const services = buildServices({ config, database, log: pino({ level: 'silent' }) });
  try {
    const { auth } = services;
    const { command, flags } = parsedArgs;
    let out: Record<string, unknown>;
    switch (command) {
      case 'create-org': {
        // parse() validated `flags` with this command's schema.
        const f = flags as z.infer<(typeof schemas)['create-org']>;
        const org = await auth.createOrganization(f.name);
        out = { organization_id: org.id };
        break;
      }
      case 'create-user': {
        // parse() validated `flags` with this command's schema.
        const f = flags as z.infer<(typeof schemas)['create-user']>;
        const { user, created } = await auth.createUser({
          organizationId: f.org,
          email: f.email,
          password: f.password,
          role: f.role,
          phone: f.phone ?? null,
          name: f.name ?? null,
        });
        out = { user_id: user.id, created };
        break;
      }
      case 'create-api-key': {
        // parse() validated `flags` with this command's schema.
        const f = flags as z.infer<(typeof schemas)['create-api-key']>;
        const key = await services.apiKeys.create(systemScope(f.org), { name: f.name });
        out = { id: key.id, key: key.key };
        break;
      }
      case 'migrate': {
        out = { applied };
        break;
      }
      case 'seed-demo': {
        const started = Date.now();
        const progress = (step: string) =>
          console.error(`seed-demo: ${step} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
        out = { ...(await seedDemo(database, process.env, progress)) };
        break;
      }
    }
    console.log(JSON.stringify(out));
  } finally {
    await services.close();
    await close();
  }
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(JSON.stringify({ error: err.message }));
    process.exit(2);
  }
  if (err instanceof AppError) {
    console.error(JSON.stringify({ error: err.message, code: err.code }));
    process.exit(1);
  }
  if (violatesForeignKey(err)) {
    console.error(JSON.stringify({ error: 'The organization does not exist', code: 'not_found' }));
    process.exit(1);
  }
  console.error(JSON.stringify({ error: errorMessage(err) }));
  process.exit(1);
});
