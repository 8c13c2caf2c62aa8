import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { unauthenticated } from '../../domain/errors.js';
import type { Principal } from '../../domain/scope.js';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { dateTime, errorResponses, queryList, text } from '../../http/schemas.js';
import { type EventStreamHub, type StreamOwner, TICKET_TTL_SECONDS } from './event-stream.js';

const tags = ['events'];

const ticketSchema = z
  .object({
    ticket: z.string().meta({ description: 'Pass it as `?ticket=` to GET /events/stream, once.' }),
    expires_at: dateTime(),
    stream_url: z.string().meta({
      description: 'The stream path with the ticket, relative to this server, ready for EventSource.',
    }),
  })
  .meta({ id: 'EventStreamTicket' });

const eventId = text(100).meta({ description: 'The `id` of the last event received (`evt_...`).' });

const streamQuery = (eventTypes: readonly [string, ...string[]]) =>
  z.object({
    ticket: text(200).optional().meta({
      description:
        'A one-use ticket from POST /events/stream-tickets, for clients that cannot send headers (EventSource).',
    }),
    last_event_id: eventId
      .optional()
      .meta({ description: 'Resume after this event (as the Last-Event-ID header; the header wins).' }),
    types: queryList(z.enum(eventTypes)).optional().meta({ description: 'Only these event types.' }),
  });

/** Who the stream belongs to, for the cap and for the heartbeat's re-check of the credential. */
function ownerOf(principal: Principal, organizationId: string): StreamOwner {
  if (principal.kind === 'api_key') {
    return { organizationId, kind: 'api_key', apiKeyId: principal.apiKeyId, userId: null, sessionId: null };
  }
  if (principal.kind !== 'bearer') throw unauthenticated();
  return {
    organizationId,
    kind: 'bearer',
    apiKeyId: null,
    userId: principal.userId,
    sessionId: principal.sessionId,
  };
}

/** The live event stream (Server-Sent Events) and the tickets that open it from a browser. */
export const eventStreamRoutes: FastifyPluginAsyncZod<{
  hub: EventStreamHub;
  apiPrefix: string;
  /** The catalogue's type names, for the `types` filter. */
  eventTypes: readonly [string, ...string[]];
}> = async (app, { hub, apiPrefix, eventTypes }) => {
  app.post(
    '/events/stream-tickets',
    {
      config: { access: access.any },
      schema: {
        operationId: 'createEventStreamTicket',
        tags,
        summary: 'A one-use ticket that opens the event stream from a browser',
        description:
          `EventSource cannot send headers, and a long-lived credential must never travel in a URL: ` +
          `this exchanges the caller's credential for a ticket valid for ${TICKET_TTL_SECONDS} seconds ` +
          'and one connection. The stream opened with it belongs to the same organization and credential. ' +
          'Reconnecting needs a new ticket (and `last_event_id` to resume).',
        response: { 201: ticketSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const { ticket, expires_at } = await hub.issueTicket(ownerOf(scope.principal, scope.organizationId));
      return reply.status(201).send({
        ticket,
        expires_at,
        stream_url: `${apiPrefix}/events/stream?ticket=${ticket}`,
      });
    },
  );

  app.get(
    '/events/stream',
    {
      config: { access: { ...access.any, ticket: true } },
      schema: {
        operationId: 'streamEvents',
        tags,
        summary: 'Live events of the organization (Server-Sent Events)',
        description:
          'A `text/event-stream` of the same events and payloads webhooks deliver: each message has ' +
          '`id` (the event id), `event` (its type) and `data` (the JSON envelope `{id, type, created_at, ' +
          'organization_id, data}`). Reconnecting with `Last-Event-ID` (or `last_event_id`) resumes after ' +
          'that event with nothing missed, while it is within the replay window (EVENT_STREAM_REPLAY_SECONDS); ' +
          'past it the stream first sends a `stream.resync` message: reload, then follow. Comment lines ' +
          '(`: keepalive`) arrive every heartbeat. The stream may send `stream.closed` (server shutdown, ' +
          'credential revoked) before it ends. An organization holds at most EVENT_STREAM_MAX_PER_ORGANIZATION ' +
          'streams across all instances; one more is 429 `stream_limit_reached`.',
        querystring: streamQuery(eventTypes),
        headers: z.object({ 'last-event-id': eventId.optional() }),
        response: {
          200: {
            description: 'The stream; it stays open until either side closes it',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses(401, 403, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const lastEventId = request.headers['last-event-id'] ?? request.query.last_event_id ?? null;
      const types = request.query.types?.length ? new Set(request.query.types) : null;
      const body = await hub.open({
        owner: ownerOf(scope.principal, scope.organizationId),
        types,
        lastEventId,
      });
      // A stream that stops before its response finished (the client went away) takes its
      // connection with it: nothing else will ever be sent on it.
      body.on('close', () => {
        if (!reply.raw.writableFinished) reply.raw.destroy();
      });
      return (
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-store, no-transform')
          // Proxies that buffer responses (nginx) would hold the events back.
          .header('x-accel-buffering', 'no')
          // The connection serves this stream only: when the stream ends, so does the connection, and
          // a shutting-down server is not kept waiting for it to idle out.
          .header('connection', 'close')
          // A stream is sent as is: the type provider only knows the documented string body.
          .send(body as unknown as string)
      );
    },
  );
};
