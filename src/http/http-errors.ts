import { AppError } from '../domain/errors.js';

/** Errors only the HTTP layer raises: rate limits and the catch-all for unexpected failures. */
export const rateLimitExceeded = (retryAfterSeconds: number) =>
  new AppError(
    429,
    'rate_limit_exceeded',
    `Rate limit exceeded: retry in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`,
    null,
    { headers: { 'retry-after': String(retryAfterSeconds) } },
  );

export const internalError = () =>
  new AppError(500, 'internal_error', 'An unexpected error occurred; it has been logged');
