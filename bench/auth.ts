import Fastify from 'fastify';
import { z } from 'zod';
import { systemScope } from '../src/domain/scope.js';
import { defined } from '../src/lib/defined.js';
import { findUserById, listMemberships, membershipsForAuth } from '../src/modules/auth/auth-repository.js';
import { contactsOf, findCarrier } from '../src/modules/carriers/carriers-repository.js';
import { benchDatabase, listen, listenApp, measure, optionsFromEnv, printTable } from './lib/harness.js';
import { measuredFigures, recordResults } from './lib/results.js';

/**
 * GET /api/v1/auth/me with a bearer token, and GET /api/v1/carriers/{id} with an API key, each
 * against a bare Fastify route running the same queries on the same database (no credential check,
 * hooks or response validation). The app checks a key with one indexed lookup, then trusts it for
 * 10 s from memory, so per request it runs the carrier and contacts queries, as the bare route does.
 */
export async function run() {
  const db = await benchDatabase();
  const { app, url, services } = await listenApp(db.database);
  const auth = services.auth;
  const org = await auth.createOrganization('Bench Brokerage');
  const { user } = await auth.createUser({
    organizationId: org.id,
    email: 'bench@example.com',
    password: 'bench-password',
    role: 'OWNER',
  });
  const { access_token: token } = await services.sessions.open(user.id);
  const { sessionId } = defined(await services.tokens.verify(token), '(await services.tokens.verify(token))');
  const scope = systemScope(org.id);
  const key = await services.apiKeys.create(scope, { name: 'bench' });
  const created = await fetch(`${url}/api/v1/carriers`, {
    method: 'POST',
    headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Bench Carrier',
      mc_number: '123456',
      phone: '+14155552671',
      contacts: [{ contact_type: 'DISPATCHER', name: 'Dee', phone: '+14155552672' }],
    }),
  });
  const carrier = z.object({ id: z.string() }).parse(await created.json());

  const bare = Fastify();
  bare.get('/me', async () => {
    const rows = await membershipsForAuth(db.database.db, user.id, sessionId, new Date());
    const found = await findUserById(db.database.db, user.id);
    const memberships = await listMemberships(db.database.db, user.id);
    return { rows, found, memberships };
  });
  bare.get('/carrier', async () => {
    const row = await findCarrier(db.database.db, scope, carrier.id);
    const contacts = await contactsOf(db.database.db, scope, [carrier.id]);
    return { row, contacts: contacts.get(carrier.id) };
  });
  const bareUrl = await listen(bare);
  try {
    const rows = await measure(
      [
        { name: 'bare Fastify, same 3 queries', url: `${bareUrl}/me` },
        {
          name: 'GET /api/v1/auth/me (bearer)',
          url: `${url}/api/v1/auth/me`,
          headers: { authorization: `Bearer ${token}` },
        },
        { name: 'bare Fastify, carrier + contacts', url: `${bareUrl}/carrier` },
        {
          name: 'GET /api/v1/carriers/{id} (API key)',
          url: `${url}/api/v1/carriers/${carrier.id}`,
          headers: { 'x-api-key': key.key },
        },
      ],
      optionsFromEnv(),
    );
    printTable('auth: bearer', rows.slice(0, 2), 'bare Fastify, same 3 queries');
    printTable('auth: API key', rows.slice(2), 'bare Fastify, carrier + contacts');
    await recordResults('auth', measuredFigures(rows));
  } finally {
    await app.close();
    await bare.close();
    await db.close();
  }
}
