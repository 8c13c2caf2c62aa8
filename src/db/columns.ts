import { sql } from 'drizzle-orm';
import { timestamp } from 'drizzle-orm/pg-core';

/** A timestamptz with millisecond precision: what the API renders, nothing finer to lose. */
export const tstz = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * The product's time in SQL: the machine's, or the simulation's when one runs (db/product-clock.ts).
 * Every time of the freight world (a load, an offer, a contact, an event) is written and compared
 * with it; `now()` stays the machine's time, for leases, credentials and retries.
 */
export const productNow = sql`envoy_now()`;

/** Created and updated times of a record of the freight world, on the product clock. */
export const timestamps = {
  created_at: tstz('created_at').notNull().default(productNow),
  updated_at: tstz('updated_at').notNull().default(productNow),
};

/** Created and updated times of an identity or a credential, on the machine's clock. */
export const wallTimestamps = {
  created_at: tstz('created_at').notNull().defaultNow(),
  updated_at: tstz('updated_at').notNull().defaultNow(),
};
