import Fastify from 'fastify';
import { findUserById, listMemberships, membershipsForAuth } from '../src/modules/auth/auth-repository.js';
import { AuthService } from '../src/modules/auth/auth-service.js';
import { benchDatabase, listen, listenApp, measure, optionsFromEnv, printTable } from './lib/harness.js';

/**
 * GET /api/v1/auth/me with a bearer token, against a bare Fastify route running the same three
 * queries on the same database (no token check, hooks or response validation).
 */
export async function run() {
  const db = await benchDatabase();
  const { app, url } = await listenApp(db.database);
  const auth = new AuthService(db.database.db, app.tokens);
  const org = await auth.createOrganization('Bench Brokerage');
  const { user } = await auth.createUser({
    organizationId: org.id,
    email: 'bench@example.com',
    password: 'bench-password',
    role: 'OWNER',
  });
  const { token } = await app.tokens.issue(user.id);

  const bare = Fastify();
  bare.get('/me', async () => {
    const rows = await membershipsForAuth(db.database.db, user.id);
    const found = await findUserById(db.database.db, user.id);
    const memberships = await listMemberships(db.database.db, user.id);
    return { rows, found, memberships };
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
      ],
      optionsFromEnv(),
    );
    printTable('auth', rows, 'bare Fastify, same 3 queries');
  } finally {
    await app.close();
    await bare.close();
    await db.close();
  }
}
