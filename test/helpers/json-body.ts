import type { z } from 'zod';

/**
 * A response's JSON body, checked against `schema` (the app's own response schema, or the part of
 * the body a test reads). A body of another shape fails the test here, with the body in the message,
 * instead of reaching an assertion typed as something it is not.
 */
export function bodyOf<T>(res: { statusCode: number; body: string }, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(JSON.parse(res.body));
  if (parsed.success) return parsed.data;
  throw new Error(
    `the ${res.statusCode} body is not of the expected shape: ${parsed.error.message}\n${res.body}`,
  );
}
