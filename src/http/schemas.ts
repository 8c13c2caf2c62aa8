import { z } from 'zod';
import { type IdKind, idPattern, idPrefixes } from '../domain/ids.js';
import { E164_PATTERN, PHONE_PATTERN, patternToE164 } from '../domain/phone.js';
import { documentAs } from './openapi.js';

/**
 * Building blocks for request and response schemas. Every input is bounded, and strings refuse the
 * NUL character PostgreSQL cannot store, so such input is a 422 naming the field, never a 500.
 * Every rule on an input is one the OpenAPI document can state (a length, a `pattern`, a format),
 * so a request valid by the document is never refused for its shape: lengths count characters
 * (Unicode code points) as JSON Schema does, and patterns spell out their character classes so
 * every regex dialect reads them alike.
 */

/** No NUL character anywhere. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the character refused.
export const NO_NUL = /^[^\u0000]*$/;

/**
 * Whitespace as JavaScript's `trim()` knows it, spelled out: a regex engine of another language
 * gives `\s` another meaning.
 */
const SPACE = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;

/** Some character that is not whitespace: what `s.trim() !== ''` means, as a pattern. */
export const NOT_BLANK = new RegExp(`[^${SPACE}]`);

/**
 * No NUL and some character that is not whitespace, as one pattern (the document's, for generators
 * that read one pattern better than two). Linear: the leading run matches whitespace only.
 */
export const NON_BLANK_TEXT = new RegExp(`^[${SPACE}]*[^\\u0000${SPACE}][^\\u0000]*$`);

/** The length of `s` in Unicode code points, as JSON Schema's `maxLength` counts. */
function codePoints(s: string, atMost: number): number {
  if (s.length <= atMost) return s.length;
  let n = 0;
  for (const _ of s) if (++n > atMost) return n;
  return n;
}

/** A string of at most `max` characters (code points). */
const bounded = (max: number) =>
  z
    .string()
    .superRefine((s, ctx) => {
      if (codePoints(s, max) > max) {
        ctx.addIssue({
          code: 'too_big',
          origin: 'string',
          maximum: max,
          inclusive: true,
          input: s,
          message: `Too big: expected string to have <=${max} characters`,
          // The checks after this one (NUL, blank) would scan the whole string: a 16 MiB CSV cell
          // took tens of milliseconds of the event loop to be refused twice.
          continue: false,
        });
      }
    })
    .meta({ maxLength: max });

export const text = (max = 255) =>
  bounded(max).regex(NO_NUL, { message: 'Must not contain the NUL character' });

export const nonEmptyText = (max = 255) =>
  bounded(max)
    .refine((s) => NO_NUL.test(s), { message: 'Must not contain the NUL character' })
    .refine((s) => NOT_BLANK.test(s), { message: 'Must not be blank' })
    .meta({ pattern: NON_BLANK_TEXT.source });

export const INT32_MAX = 2_147_483_647;
export const int32 = () =>
  z
    .number()
    .int()
    .min(-INT32_MAX - 1)
    .max(INT32_MAX);

/**
 * A number as the query string carries it, in JSON's number syntax: no blank, no sign `+`, no
 * hexadecimal, no `Infinity` (which a plain conversion would all read as numbers).
 */
const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

const queryNumeric = (number: z.ZodNumber, fallback?: number) =>
  documentAs(
    z.string().max(40).regex(NUMBER_TEXT, { message: 'Must be a number' }).transform(Number).pipe(number),
    (toJson) => ({ ...toJson(number), ...(fallback === undefined ? {} : { default: fallback }) }),
  );

/** A query-string integer between `min` and `max`. */
export const queryInt = (min: number, max: number) => queryNumeric(z.number().int().min(min).max(max));

/** A query-string integer between `min` and `max`, `fallback` when absent. */
export const queryIntOr = (min: number, max: number, fallback: number) =>
  queryNumeric(z.number().int().min(min).max(max), fallback).default(fallback);

/** A query-string number between `min` and `max`. */
export const queryNumber = (min: number, max: number) => queryNumeric(z.number().min(min).max(max));

/** A query-string boolean: only true/false/1/0 (z.coerce.boolean would read "false" as true). */
export const queryBool = () =>
  documentAs(
    z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
    () => ({
      anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1], minimum: 0, maximum: 1 }],
      description: '`true` or `false` (also `1` or `0`).',
    }),
  );

/**
 * zod's own pattern for a format, with `\d` spelled `[0-9]`: the same digits in JavaScript, but
 * in other languages' regex engines `\d` matches digits of every script.
 */
function asciiPattern(schema: z.ZodType): string {
  // Called only with zod's string formats (date, datetime), whose JSON Schema has a pattern.
  const { pattern } = z.toJSONSchema(schema);
  if (typeof pattern !== 'string') throw new Error('asciiPattern: the schema has no pattern');
  return pattern.replaceAll('\\d', '[0-9]');
}
const DATE_PATTERN = asciiPattern(z.iso.date());
const DATE_TIME_PATTERN = asciiPattern(z.iso.datetime({ offset: true }));

/** An ISO 8601 datetime on input (offset accepted), a Date inside the service. */
export const dateTimeInput = () =>
  z.iso
    .datetime({ offset: true })
    .max(64)
    .meta({ pattern: DATE_TIME_PATTERN })
    .transform((s) => new Date(s));

/** Output datetimes: Date objects serialise as ISO 8601 UTC with `Z` and milliseconds. */
export const dateTime = () => z.date();

/**
 * An output string that only ever holds one of `values`, because every way in validates it: shown
 * as that enum in OpenAPI, serialised as a plain string.
 */
export const storedEnum = (values: readonly string[]) => z.string().meta({ enum: [...values] });

/** The `params` a wrongly formed id's issue carries, so the error handler answers 400 `invalid_id_format`. */
export const ID_FORMAT_ISSUE = 'invalid_id_format';

/**
 * An identifier of one kind, in a path, a body or a query: `<prefix>_...`. Another kind's id
 * (`car_...` where a `load_` id belongs) or a malformed one is 400 `invalid_id_format` naming the
 * field; a well-formed id that matches nothing is a 404.
 */
export const prefixedId = (kind: IdKind) => {
  const pattern = idPattern(kind);
  const example = `${idPrefixes[kind]}_01920c5e-7f3a-7c4e-9b1d-2f6a8e4c0d15`;
  return z
    .string()
    .max(100)
    .superRefine((s, ctx) => {
      if (!pattern.test(s)) {
        ctx.addIssue({
          code: 'custom',
          input: s,
          params: { [ID_FORMAT_ISSUE]: idPrefixes[kind] },
          message: `Must be a ${idPrefixes[kind]}_ id`,
        });
      }
    })
    .meta({ pattern: pattern.source, example });
};

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Machine-readable code; switch on this.' }),
      message: z.string(),
      param: z.string().nullable().meta({ description: 'The request parameter at fault, if any.' }),
    }),
    detail: z
      .array(
        z.object({
          loc: z.array(z.union([z.string(), z.number()])),
          msg: z.string(),
          type: z.string(),
          input: z.unknown().optional(),
          ctx: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
  })
  .meta({ id: 'Error' });

const errorDescriptions: Record<number, string> = {
  400: 'Bad request (`invalid_id_format`: an id of another kind; `bad_request`: not valid HTTP)',
  401: 'Missing or invalid credentials (`not_authenticated`)',
  403: 'The credential or role may not do this (`insufficient_permissions`)',
  404: 'Not found, or owned by another organization (`not_found`)',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  415: 'Unsupported content type',
  422: 'Validation failed (`validation_error`, with `detail`)',
  429: 'Rate limit exceeded (`rate_limit_exceeded`); see `Retry-After`',
  502: 'A channel or provider behind the service failed; nothing was recorded',
};

/** Response schemas for the error statuses a route can return, for OpenAPI and serialization. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorBody> {
  const out: Record<number, typeof errorBody> = {};
  for (const status of statuses) {
    out[status] = errorBody.describe(errorDescriptions[status] ?? 'Error');
  }
  return out;
}

/**
 * A phone number: a North American one in any common format, or `+` and another country's
 * (PHONE_PATTERN), normalised to E.164.
 */
export const phoneInput = () =>
  z
    .string()
    .max(40)
    .regex(new RegExp(PHONE_PATTERN), { message: 'Not a valid phone number' })
    .transform(patternToE164);

/** An E.164 phone number (`+14155552671`), as given. */
export const e164Input = () =>
  z
    .string()
    .max(16)
    .regex(new RegExp(E164_PATTERN), { message: 'Must be an E.164 phone number, for example +14155552671' });

/**
 * An e-mail address `local@domain.tld`: the local part letters, digits and `_ ' + -` in dot-separated
 * runs, each domain label letters, digits and inner hyphens, the top-level domain two letters or
 * more. Lower-cased.
 */
export const EMAIL_PATTERN =
  /^[A-Za-z0-9_'+-]+(?:\.[A-Za-z0-9_'+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const emailInput = () =>
  z
    .string()
    .max(254)
    .regex(EMAIL_PATTERN, { message: 'Not a valid e-mail address' })
    .transform((e) => e.toLowerCase());

/** A calendar date `YYYY-MM-DD` (`format: date`; 1979-02-30 is refused as the document says). */
export const dateInput = () =>
  z.iso.date({ message: 'Not a valid calendar date' }).max(10).meta({ pattern: DATE_PATTERN });

/**
 * A body that may be left out: Fastify validates a missing body as null, which becomes the
 * schema's defaults. Every field of `schema` must be optional or defaulted.
 */
export function optionalBody<T extends z.ZodObject>(schema: T) {
  return z.union([z.null(), schema]).transform((value) => value ?? schema.parse({}));
}

/**
 * A list in the query string: repeated parameters (`?status=A&status=B`), comma-separated values
 * (`?status=A,B`) or both. Each value is validated by `item`; a bad one is named in the message and
 * the error's `param` is the parameter itself.
 */
export function queryList<T extends z.ZodType>(item: T, max = 50) {
  const list = z
    .union([z.string().max(5000), z.array(z.string().max(5000)).max(max)])
    .transform((raw, ctx) => {
      const out: z.output<T>[] = [];
      for (const part of (Array.isArray(raw) ? raw : [raw]).flatMap((s) => s.split(','))) {
        const value = part.trim();
        // An empty value is no value where the item may be empty text; elsewhere it is refused, as
        // the document's item schema refuses it.
        if (value === '' && item.safeParse('').success) continue;
        const parsed = item.safeParse(value);
        if (!parsed.success) {
          ctx.addIssue({
            code: 'custom',
            message: `'${value}' is not valid: ${parsed.error.issues[0]?.message ?? 'invalid value'}`,
            input: value,
          });
          return z.NEVER;
        }
        out.push(parsed.data);
      }
      if (out.length > max) {
        ctx.addIssue({ code: 'custom', message: `At most ${max} values` });
        return z.NEVER;
      }
      return out;
    });
  // Documented as what a client sends: the parameter repeated, each value one of `item`.
  return documentAs(list, (toJson) => ({
    type: 'array',
    items: toJson(item),
    maxItems: max,
    description: 'Repeat the parameter, or separate values with commas.',
  }));
}
