import createClient from 'openapi-fetch';
import type { components, paths } from './envoy-api';
import { ApiError, apiErrorOf, networkError } from './errors';
import { session } from './session';

export type Schemas = components['schemas'];

/** Adds the session's bearer token and the active organization to a request. */
function authorized(request: Request): Request {
  const token = session.token;
  if (token) request.headers.set('authorization', `Bearer ${token}`);
  if (session.organizationId) request.headers.set('x-organization-id', session.organizationId);
  return request;
}

/** Sends a request with the session's credentials; aborted with the session's requests at sign-out. */
async function send(request: Request): Promise<Response> {
  try {
    return await fetch(authorized(request), { signal: AbortSignal.any([request.signal, session.signal]) });
  } catch {
    throw networkError();
  }
}

/**
 * Every call goes through here: with the access token, and on a 401 once more after a refresh by
 * cookie (an access token expires after 15 minutes; the session lives on).
 */
async function sessionFetch(input: Request): Promise<Response> {
  const retry = input.clone();
  const response = await send(input);
  const isAuthCall = new URL(input.url).pathname.startsWith('/api/v1/auth/');
  if (response.status !== 401 || isAuthCall || !session.token) return response;
  if (!(await session.refresh())) return response;
  return send(retry);
}

/** The API client, typed from the server's own OpenAPI document (generated at build time). */
export const api = createClient<paths>({ baseUrl: window.location.origin, fetch: sessionFetch });

/** The answer's data, or its error thrown as an ApiError (the API's code, message and param). */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw apiErrorOf(response, error);
  return data as T;
}

export { ApiError };
