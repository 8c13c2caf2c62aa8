import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { serviceUnavailable } from '../domain/errors.js';
import type { Clock } from '../lib/clock.js';
import { errorResponses } from './schemas.js';

const status = z.object({ status: z.literal('ok') });
const readiness = z.object({
  status: z.enum(['ok', 'degraded']).meta({
    description:
      '`degraded`: the service answers, but a notification channel is not heard (changes made on other ' +
      'instances reach this one late: stream events on the next heartbeat, revoked API keys within seconds)',
  }),
  notifications: z
    .array(z.object({ channel: z.string(), listening: z.boolean() }))
    .meta({ description: 'Each channel this instance LISTENs on, and whether it hears it now' }),
  clock: z
    .object({
      kind: z.enum(['real', 'simulated', 'manual']).meta({
        description:
          '`simulated`: the whole product runs on a simulated clock (every time in the API is simulated time)',
      }),
      speed: z.number().meta({ description: 'Simulated seconds per real second (1 on the real clock)' }),
      now: z.iso.datetime().meta({ description: 'The product clock now' }),
    })
    .meta({ description: 'The clock the product runs on' }),
});

export interface HealthOptions {
  /** Whether the database is being restarted (the supervised embedded cluster), when there is one to watch. */
  restarting: () => boolean;
  /** One round trip to the database; rejects when it does not answer. */
  ping: () => Promise<unknown>;
  /** The product clock, reported by readiness. */
  clock: Clock;
  /** The notification listeners, reported by readiness. */
  listeners: () => readonly { channel: string; listening: boolean }[];
}

/**
 * Probes for load balancers and orchestrators: no credentials, no rate limit. Liveness says the
 * process answers; readiness also asks the database.
 */
export const healthRoutes: FastifyPluginAsyncZod<HealthOptions> = async (
  app,
  { restarting, ping, clock, listeners },
) => {
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
        summary: 'The database answers; the notification channels heard, and the clock the product runs on',
        response: { 200: readiness, ...errorResponses(503) },
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
      const notifications = listeners().map((l) => ({ channel: l.channel, listening: l.listening }));
      return {
        status: notifications.every((n) => n.listening) ? ('ok' as const) : ('degraded' as const),
        notifications,
        clock: { kind: clock.kind, speed: clock.speed, now: clock.now().toISOString() },
      };
    },
  );
};
