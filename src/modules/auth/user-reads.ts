// The user lookups other modules use.

import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { users } from './auth-tables.js';

export async function findUserById(db: DbOrTx, id: string) {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row ?? null;
}
