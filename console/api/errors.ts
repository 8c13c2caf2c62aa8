/** An API answer that was not a success, or a request that never got one (`status` 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The request field the API named at fault (`amount`, `page_size`, ...), if any. */
    readonly param: string | null = null,
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The connection failed: no answer at all. */
  get offline() {
    return this.status === 0;
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; param?: unknown };
}

/** Reads the API's error body `{error: {code, message, param}}` into an ApiError. */
export function apiErrorOf(response: Response, body: unknown): ApiError {
  const e = (body && typeof body === 'object' ? (body as ErrorBody).error : undefined) ?? {};
  return new ApiError(
    response.status,
    typeof e.code === 'string' ? e.code : `http_${response.status}`,
    typeof e.message === 'string' ? e.message : `The server answered ${response.status}`,
    typeof e.param === 'string' ? e.param : null,
    response.headers.get('x-request-id'),
  );
}

export const networkError = () =>
  new ApiError(0, 'network_error', 'The server cannot be reached: check the connection; retrying');

/** The message of an error for the field `param`, when the API named that field. */
export function errorFor(error: unknown, param: string): string | null {
  return error instanceof ApiError && error.param === param ? error.message : null;
}
