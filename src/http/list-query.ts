// Query parameters the resource lists share: a created_at range and documented sort fields. The
// SQL they become is in db/list-sql.ts.

import { z } from 'zod';
import { dateTimeInput, queryBool } from './schemas.js';

/**
 * `created_after` inclusive, `created_before` exclusive: back-to-back ranges neither overlap nor
 * leave a gap. Combine with `checkCreatedRange` on the finished query schema.
 */
export const createdRangeShape = {
  created_after: dateTimeInput()
    .optional()
    .meta({ description: 'Created at or after this instant (ISO 8601 datetime with offset; inclusive).' }),
  created_before: dateTimeInput()
    .optional()
    .meta({ description: 'Created before this instant (ISO 8601 datetime with offset; exclusive).' }),
};

/** `order_by`, one of the documented `fields` (anything else is a 422), and `order_desc`. */
export function sortShape<const F extends readonly [string, ...string[]]>(
  fields: F,
  byDefault: F[number],
  note = '',
) {
  return {
    order_by: z
      .enum(fields)
      .optional()
      .meta({ description: `Default ${byDefault}. One of: ${fields.join(', ')}.${note ? ` ${note}` : ''}` }),
    order_desc: queryBool()
      .optional()
      .meta({ description: 'Default true. Nulls sort after every value both ways; ties break on id.' }),
  };
}

/**
 * A reversed range (`created_after` later than `created_before`) is a 422 naming `created_after`,
 * not an empty page a client would take for "nothing happened". Applied last: zod refuses to
 * omit or pick fields of a refined object.
 */
export function checkCreatedRange<T extends z.ZodObject>(schema: T): T {
  return schema.superRefine((value, ctx) => {
    const q = value;
    if (q.created_after && q.created_before && q.created_after > q.created_before) {
      ctx.addIssue({
        code: 'custom',
        path: ['created_after'],
        message: 'Must not be later than created_before',
      });
    }
  });
}

/** A stats answer's counts per value of one dimension: every one of `keys` present, 0 when none. */
export const countsBy = <const K extends readonly [string, ...string[]]>(keys: K, description: string) =>
  z.record(z.enum(keys), z.number().int()).meta({ description });
