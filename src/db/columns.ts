import { timestamp } from 'drizzle-orm/pg-core';

/** A timestamptz with millisecond precision: what the API renders, nothing finer to lose. */
export const tstz = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export const timestamps = {
  created_at: tstz('created_at').notNull().defaultNow(),
  updated_at: tstz('updated_at').notNull().defaultNow(),
};
