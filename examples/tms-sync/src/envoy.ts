import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../generated/envoy-api.js';

/** The shapes the example uses, straight from the generated types of the OpenAPI document. */
export type LoadInput = components['schemas']['LoadInput'];
export type Load = components['schemas']['Load'];
export type LoadStatus = NonNullable<Load['load_status']>;
export type Offer = components['schemas']['Offer'];
export type BookedOffer = components['schemas']['BookedOffer'];
export type ApiError = components['schemas']['Error'];

export type EnvoyClient = ReturnType<typeof createEnvoyClient>;

/**
 * A typed client for one organization's API key. `baseUrl` is the server (for example
 * `https://api.envoy.example`, or `http://localhost:3000` in development); every path carries
 * `/api/v1` itself.
 */
export function createEnvoyClient(baseUrl: string, apiKey: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });
  client.use(retryAfterRateLimit());
  return client;
}

/**
 * Waits out a 429 as the server asks (`Retry-After`, in seconds) and sends the request again, up
 * to three times. Every response also says how many requests are left (`X-RateLimit-Remaining`).
 */
function retryAfterRateLimit(): Middleware {
  return {
    async onResponse({ request, response }) {
      let answer = response;
      for (let attempt = 0; answer.status === 429 && attempt < 3; attempt++) {
        const seconds = Number(answer.headers.get('Retry-After') ?? '1');
        console.error(`rate limited on ${request.method} ${request.url}: retrying in ${seconds}s`);
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        answer = await fetch(request.clone());
      }
      return answer;
    },
  };
}

/** One line for a failed call: the error code the API documents, its message and the request id. */
export function describeFailure(response: Response, error: ApiError | undefined): string {
  const requestId = response.headers.get('X-Request-ID') ?? 'no request id';
  if (!error) return `HTTP ${response.status} (${requestId})`;
  const param = error.error.param ? ` [${error.error.param}]` : '';
  return `HTTP ${response.status} ${error.error.code}${param}: ${error.error.message} (${requestId})`;
}
