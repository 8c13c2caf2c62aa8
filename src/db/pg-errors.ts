import { AppError, conflict, serviceUnavailable } from '../domain/errors.js';
import { isJsonObject, type JsonObject } from '../lib/json-object.js';

interface PgLikeError {
  code?: string;
  constraint?: string;
  column?: string;
}

/** A unique constraint whose violation is a client-facing conflict on the field it names. */
export interface UniqueConstraint {
  readonly constraint: string;
  readonly param: string;
  readonly message: string;
}

/**
 * Unique constraints whose violation is a client-facing conflict, mapped to the field it names.
 * Each module declares its own list; the composition root registers them all (buildServices), so
 * the 409 names the right `param`.
 */
const uniqueConstraintParams = new Map<string, { param: string; message: string }>();

export function registerUniqueConstraints(list: readonly UniqueConstraint[]): void {
  for (const { constraint, param, message } of list)
    uniqueConstraintParams.set(constraint, { param, message });
}

/** The SQLSTATE of `err`, or of the driver error drizzle wraps in it (its `cause`). */
function pgErrorOf(err: unknown): PgLikeError | null {
  for (let e = err; isJsonObject(e); e = e.cause) {
    const fields = pgFieldsOf(e);
    if (fields.code) return fields;
  }
  return null;
}

/** The members of a driver error this file reads, each kept only when it is a string. */
function pgFieldsOf(e: JsonObject): PgLikeError & { message?: string } {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    code: text(e.code),
    constraint: text(e.constraint),
    column: text(e.column),
    message: text(e.message),
  };
}

/** Whether `err` violates this unique constraint (or index): a caller that expects it handles it. */
export function violatesUnique(err: unknown, constraint: string): boolean {
  const e = pgErrorOf(err);
  return e?.code === '23505' && e.constraint === constraint;
}

/** Whether `err` is a deadlock or a serialization failure: the transaction may simply be run again. */
export function collided(err: unknown): boolean {
  const code = pgErrorOf(err)?.code;
  return code === '40P01' || code === '40001';
}

/** Runs `work` (a whole transaction) again when it lost a deadlock or a serialization race, twice at most. */
export async function runAgainOnCollision<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= 3 || !collided(err)) throw err;
    }
  }
}

/** Whether `err` violates a foreign key: the row it names does not exist. */
export function violatesForeignKey(err: unknown): boolean {
  return pgErrorOf(err)?.code === '23503';
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
]);

/**
 * The one place where PostgreSQL's SQLSTATE codes become client errors. Anything not listed stays
 * an internal error: the caller rethrows the original and the error handler hides it.
 */
export function translatePgError(err: unknown): AppError | null {
  if (!isJsonObject(err)) return null;
  const e = pgFieldsOf(err);
  // drizzle wraps driver errors in a DrizzleQueryError whose `cause` is pg's error.
  if (!e.code && isJsonObject(err.cause)) {
    const translated = translatePgError(err.cause);
    if (translated) return translated;
  }
  const code = e.code;
  if (!code) {
    // pg throws plain Errors when the pool cannot connect in time, and when a query is sent on a
    // client whose connection has already died (the rollback after a failed statement, say).
    if (
      typeof e.message === 'string' &&
      /timeout exceeded when trying to connect|Connection terminated|is not queryable/i.test(e.message)
    ) {
      return serviceUnavailable();
    }
    return null;
  }
  if (CONNECTION_CODES.has(code) || code.startsWith('08')) return serviceUnavailable();
  switch (code) {
    case '23505': {
      const known = e.constraint ? uniqueConstraintParams.get(e.constraint) : undefined;
      return known
        ? conflict(known.message, known.param)
        : conflict('The resource conflicts with an existing one');
    }
    case '23503':
      return new AppError(422, 'validation_error', 'A referenced resource does not exist');
    case '22001':
      return new AppError(422, 'validation_error', 'A value is longer than allowed');
    case '22003':
      return new AppError(422, 'validation_error', 'A number is outside the allowed range');
    case '22021':
    case '22P05':
      return new AppError(422, 'validation_error', 'A value contains a character that is not allowed');
    case '22007':
    case '22008':
      return new AppError(422, 'validation_error', 'A date or time value is out of range');
    case '22P02':
      return new AppError(422, 'validation_error', 'A value has an invalid format');
    // The server turned read-only (a primary demoted, or a standby behind the address) or a
    // prepared statement is missing on the session a pooler handed out: both pass with a retry.
    case '25006':
      return serviceUnavailable('The database is read-only for the moment (a switch-over); retry shortly');
    case '26000':
    case '42P05':
    case '53300':
      return serviceUnavailable();
    case '57014':
      return serviceUnavailable('The request took too long and was cancelled; retry shortly');
    case '40001':
    case '40P01':
      return serviceUnavailable('The request collided with a concurrent change; retry it');
    default:
      return null;
  }
}
