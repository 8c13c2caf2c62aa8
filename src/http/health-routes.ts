import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { serviceUnavailable } from '../domain/errors.js';
import { errorResponses } from './schemas.js';

const status = z.object({ status: z.literal('ok') });

export interface HealthOptions {
  /** Whether the database is being restarted (the supervised embedded cluster), when there is one to watch. */
  restarting: () => boolean;
  /** One round trip to the database; rejects when it does not answer. */
  ping: () => Promise<unknown>;
}

/**
 * Probes for load balancers and orchestrators: no credentials, no rate limit. Liveness says the
 * process answers; readiness also asks the database.
 */
export const healthRoutes: FastifyPluginAsyncZod<HealthOptions> = async (app, { restarting, ping }) => {
  app.get(
    '/healthz',
    {
      config: { rateLimit: false, unknownQuery: 'ignore' },
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'The process is up',
        response: { 200: status },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { rateLimit: false, unknownQuery: 'ignore' },
      schema: {
        operationId: 'getReadiness',
        tags: ['health'],
        summary: 'The database answers',
        response: { 200: status, ...errorResponses(503) },
      },
    },
    async () => {
      if (restarting()) {
        throw serviceUnavailable('The embedded PostgreSQL stopped and is being restarted');
      }
      try {
        await ping();
      } catch {
        throw serviceUnavailable('The database is not reachable');
      }
      return { status: 'ok' as const };
    },
  );
};
