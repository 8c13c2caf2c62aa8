import type { SQL, SQLWrapper } from 'drizzle-orm';

/**
 * The contact guard's refusal as SQL over a carrier row and a load row (NULL: the carrier may be
 * offered the load). The guard belongs to the outreaches module, which this module does not import:
 * a read that applies it is handed it by its caller.
 */
export type RefusalSql = (
  organizationId: string | SQL,
  rows: { carrier: SQLWrapper; load: SQLWrapper },
) => SQL;
