import { defined } from '../lib/defined.js';
/** One entry of a 422 `detail` list: where (`loc`), what (`msg`, `type`), and optionally the value at fault. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/**
 * The one error type a handler, service or hook throws. The error handler renders it as
 * `{error: {code, message, param}}` (plus `detail` for validation errors) with its status.
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly options: { detail?: ValidationIssue[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;

/** Renders a `loc` path (without its source part) as `carriers[12].carrier.phone`. */
export function pathToParam(path: readonly (string | number)[]): string | null {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out === '' ? null : out;
}

export const unauthenticated = (message = 'Missing or invalid credentials') =>
  new AppError(401, 'not_authenticated', message);

export const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'Invalid email or password');

export const forbidden = (
  message = 'You do not have permission to perform this action',
  param: string | null = null,
) => new AppError(403, 'insufficient_permissions', message, param);

export const notFound = (resource: string, id?: string, param: string | null = null) =>
  new AppError(
    404,
    'not_found',
    id === undefined ? `${resource} not found` : `${resource} '${id}' not found`,
    param,
  );

export const conflict = (message: string, param: string | null = null) =>
  new AppError(409, 'already_exists', message, param);

/** A path as a `loc`: zod's issue paths may hold symbols, which no JSON body has; one is named by its text. */
export const locPath = (path: readonly PropertyKey[]): (string | number)[] =>
  path.map((key) => (typeof key === 'symbol' ? String(key) : key));

/** A 422 for one field, with the matching `detail` entry. `source` is body, query, path or header. */
export function validationFailed(
  source: 'body' | 'query' | 'path' | 'header',
  at: readonly PropertyKey[],
  msg: string,
  type = 'value_error',
  input?: unknown,
): AppError {
  const path = locPath(at);
  const param = pathToParam(path);
  const issue: ValidationIssue = { loc: [source, ...path], msg, type };
  if (input !== undefined) issue.input = input;
  return new AppError(422, 'validation_error', param ? `${param}: ${msg}` : msg, param, { detail: [issue] });
}

/** The inverse of pathToParam: `loads[3].stops[0].type` -> `['loads', 3, 'stops', 0, 'type']`. */
export const paramToPath = (param: string): (string | number)[] =>
  [...param.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) =>
    m[2] !== undefined ? Number(m[2]) : defined(m[1], 'm[1]'),
  );

/**
 * A 422 with its own code. A `validation_error` gets the `detail` entry every validation error
 * carries, at `param` in `source` (the body unless said otherwise).
 */
export const unprocessable = (
  code: string,
  message: string,
  param: string | null = null,
  source: 'body' | 'query' | 'path' | 'header' = 'body',
) =>
  new AppError(
    422,
    code,
    message,
    param,
    code === 'validation_error'
      ? {
          detail: [
            { loc: [source, ...(param ? paramToPath(param) : [])], msg: message, type: 'value_error' },
          ],
        }
      : {},
  );

export const stateConflict = (code: string, message: string, param: string | null = null) =>
  new AppError(409, code, message, param);

/** A 503 says when to try again: a second, about as long as a restart or a switch-over takes to show. */
export const serviceUnavailable = (message = 'The service is temporarily unavailable; retry shortly') =>
  new AppError(503, 'service_unavailable', message, null, { headers: { 'retry-after': '1' } });
