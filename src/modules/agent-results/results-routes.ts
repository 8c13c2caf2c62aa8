import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { errorResponses } from '../../http/schemas.js';
import { loadIdParams } from '../loads/index.js';
import { activitySchema, resultsQuery, resultsSchema } from './results-schemas.js';
import type { AgentResultsService } from './results-service.js';

const tags = ['agent'];

/** Whether the client asked for CSV (`Accept: text/csv`) rather than JSON. */
const wantsCsv = (accept: string | undefined) =>
  !!accept && /(^|,)\s*text\/csv\b/i.test(accept) && !/(^|,)\s*application\/json\b/i.test(accept);

export const agentResultsRoutes: FastifyPluginAsyncZod<{ results: AgentResultsService }> = async (
  app,
  { results },
) => {
  app.get(
    '/agent/results',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getAgentResults',
        tags,
        summary: 'What the agent achieved on the loads handed to it: coverage, time, rates, effort',
        description:
          'Every figure is over the loads handed to the agent (assigned to it while open and not booked) in ' +
          '[`from`, `to`), optionally per group, and comes with its numerator and denominator. The figures are ' +
          'kept in the same transactions as the work they count, so they are exact at any moment. ' +
          '`Accept: text/csv` returns the same rows as CSV (nested figures flattened: `contacts_call`, ...). ' +
          '`margin_pct_median` and `margin_count` are null for MEMBERs.',
        querystring: resultsQuery,
        response: {
          200: {
            description: 'The rows (JSON, or CSV when asked for)',
            content: {
              'application/json': { schema: resultsSchema },
              'text/csv': { schema: z.string() },
            },
          },
          ...errorResponses(401, 403, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const answer = await results.results(scopeOf(request), request.query);
      if (!wantsCsv(request.headers.accept))
        return reply.type('application/json; charset=utf-8').send(answer);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="agent-results.csv"')
        .send(results.resultsCsv(answer));
    },
  );

  app.get(
    '/loads/:load_id/agent-activity',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getLoadAgentActivity',
        tags,
        summary: "The agent's work on one load: where it stands, and its timeline",
        description:
          '`status`: `booked`; `not_workable` (with the reason: not assigned, not open, the agent switched ' +
          'off); `offers_pending_review` (offers wait for a rep); `contacting` (contacts sent or about to be); ' +
          '`paused` (the queued contacts wait for quiet hours to end, `paused_until`); `no_eligible_carriers` ' +
          '(no carrier on the lane); `exhausted` (every carrier on the lane contacted or refused); or ' +
          '`waiting_for_wave` (`next_wave_at`). The timeline, oldest first: handed to the agent, each wave, ' +
          'each carrier chosen (channel, tier, why) and skipped (the reason), each contact, each offer with the ' +
          "agent's decision, and the booking.",
        params: loadIdParams,
        response: { 200: activitySchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => results.activity(scopeOf(request), request.params.load_id),
  );
};
