import { and, or, type SQL, sql } from 'drizzle-orm';

/**
 * drizzle's `and()` and `or()` answer `undefined` when given no condition. These answer a
 * condition always: every one of `conditions` (`true` when there is none), or any one of them
 * (`false` when there is none).
 */
export const allOf = (...conditions: (SQL | undefined)[]): SQL => and(...conditions) ?? sql`true`;
export const anyOf = (...conditions: (SQL | undefined)[]): SQL => or(...conditions) ?? sql`false`;
