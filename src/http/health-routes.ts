import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { serviceUnavailable } from '../domain/errors.js';
import { errorResponses } from './schemas.js';

const status = z.object({ status: z.literal('ok') });

/** Probes for load balancers and orchestrators: no credentials, no rate limit. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
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
      if (app.deps.embedded?.state() === 'restarting') {
        throw serviceUnavailable('The embedded PostgreSQL stopped and is being restarted');
      }
      try {
        await app.deps.database.pool.query('SELECT 1');
      } catch {
        throw serviceUnavailable('The database is not reachable');
      }
      return { status: 'ok' as const };
    },
  );
};
