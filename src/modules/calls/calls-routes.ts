import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { mapWritten } from '../../domain/written.js';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import { sendWritten, writeReceiptSchema } from '../../http/write-receipt.js';
import { loadIdParams } from '../loads/index.js';
import {
  callDetailSchema,
  callIdParams,
  callSchema,
  callStatsQuery,
  callStatsSchema,
  createCallBody,
  endCallSchema,
  joinResultSchema,
  listCallsQuery,
  recordingSchema,
  toCall,
} from './calls-schemas.js';
import type { CallsService } from './calls-service.js';
import {
  elpIdParams,
  elpTestDetailSchema,
  elpTestSchema,
  listElpQuery,
  startElpBody,
} from './elp-schemas.js';
import type { ElpService } from './elp-service.js';

type App = Parameters<FastifyPluginAsyncZod>[0];

/** Calls and ELP tests (an ELP test runs as a call). */
export const callsRoutes: FastifyPluginAsyncZod<{
  calls: PerRequest<CallsService>;
  elp: PerRequest<ElpService>;
}> = async (app, { calls, elp }) => {
  callRoutes(app, calls);
  listRoutes(app, calls);
  liveCallRoutes(app, calls);
  elpRoutes(app, elp);
};

/** Start and read calls, and a call's recording. */
function callRoutes(app: App, calls: PerRequest<CallsService>) {
  app.post(
    '/calls',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'createCall',
        tags: ['calls'],
        summary: 'Start an outbound call (created PENDING and handed to the voice platform)',
        description:
          'A number belonging to a carrier that asked not to be contacted gives 409 `stop_contact_requested`. ' +
          'A call about a load to a known carrier opens an outreach (`modality` call). `call_type` ELP also ' +
          'opens an ELP test. The call runs the voice template `template_id` names (it must be visible to the ' +
          'organization and fit `call_type`: LOAD_BOOKING a load_booking template, ELP an elp one; else 422 on ' +
          "`template_id`), else the organization's default for the purpose, else the built-in one; " +
          '`voice_agent_id` runs your own Vapi assistant with the variables in `assistantOverrides.variableValues`. ' +
          'With the simulated platform, `template_variables.simulate_outcome` (completed, voicemail, no_answer, ' +
          'failed) forces the outcome.',
        body: createCallBody,
        response: { 201: callSchema, 202: writeReceiptSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      sendWritten(
        request,
        reply,
        mapWritten(await calls(request).start(scopeOf(request), request.body), toCall),
        {
          object: 'call',
          collection: '/api/v1/calls',
        },
      ),
  );

  app.get(
    '/calls/:call_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getCall',
        tags: ['calls'],
        summary: 'One call, with its transcript',
        params: callIdParams,
        response: { 200: callDetailSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => calls(request).detail(scopeOf(request), request.params.call_id),
  );

  app.get(
    '/calls/:call_id/recording',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getCallRecording',
        tags: ['calls'],
        summary: 'The recording of a call, when the voice platform kept one',
        params: callIdParams,
        response: { 200: recordingSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => calls(request).recording(scopeOf(request), request.params.call_id),
  );
}

/** The call list and its stats. */
function listRoutes(app: App, calls: PerRequest<CallsService>) {
  app.get(
    '/calls',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listCalls',
        tags: ['calls'],
        summary: 'List calls, newest call_time first unless sorted otherwise',
        description:
          'List parameters take repeated parameters or comma-separated values. `start_date`/`end_date` ' +
          'are UTC days of `call_time`, inclusive; `created_after` is inclusive, `created_before` ' +
          'exclusive, and `created_after` later than `created_before` is 422. `order_by` sorts on one of ' +
          'the documented fields (else 422), descending unless `order_desc=false`; calls without ' +
          '`call_start_time` or `call_end_time` sort after the others both ways, and ties break on id, so ' +
          'pages are stable. `total_count` is exact.',
        querystring: listCallsQuery,
        response: { 200: pageOf(callSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => calls(request).list(scopeOf(request), request.query),
  );

  app.get(
    '/loads/:load_id/calls',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listLoadCalls',
        tags: ['loads'],
        summary: 'Every call attached to the load, newest first (a plain list)',
        params: loadIdParams,
        response: { 200: z.array(callSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => calls(request).ofLoad(scopeOf(request), request.params.load_id),
  );

  // A static segment outranks `:call_id` in the router, whatever the order of registration.
  app.get(
    '/calls/stats',
    {
      config: { access: access.any },
      schema: {
        operationId: 'callStats',
        tags: ['calls'],
        summary: 'Counts per status, call type and direction, with the filters of the list',
        description:
          'Every status, call type and direction is present, 0 when no call has it; `none` counts calls ' +
          'without a call type or direction. `total_count` equals GET /calls `total_count` under the same ' +
          'filters.',
        querystring: callStatsQuery,
        response: { 200: callStatsSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => calls(request).stats(scopeOf(request), request.query),
  );
}

/** Join and end a live call. */
function liveCallRoutes(app: App, calls: PerRequest<CallsService>) {
  app.post(
    '/calls/:call_id/join',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'joinCall',
        tags: ['calls'],
        summary: 'Take over a live call by a cold transfer to your own phone',
        description:
          'Only a call AGENT_ASSIGNED or IN_PROGRESS (else 409 `call_not_in_progress`). The call goes to the ' +
          "signed-in user's phone, or for an API key its creator's; none on file gives 422 `caller_phone_missing`.",
        params: callIdParams,
        response: { 200: joinResultSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => calls(request).join(scopeOf(request), request.params.call_id),
  );

  app.post(
    '/calls/:call_id/end',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'endCall',
        tags: ['calls'],
        summary: 'Hang up (an ended call is returned unchanged)',
        params: callIdParams,
        response: { 200: endCallSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => calls(request).end(scopeOf(request), request.params.call_id),
  );
}

/** Start, list and read ELP tests. */
function elpRoutes(app: App, elp: PerRequest<ElpService>) {
  app.post(
    '/elp/tests',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'startElpTest',
        tags: ['elp'],
        summary: 'Start a driver English-proficiency test by phone',
        body: startElpBody,
        response: { 201: elpTestSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await elp(request).start(scopeOf(request), request.body)),
  );

  app.get(
    '/elp/tests',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listElpTests',
        tags: ['elp'],
        summary: 'List ELP tests, newest first',
        querystring: listElpQuery,
        response: { 200: pageOf(elpTestSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => elp(request).list(scopeOf(request), request.query),
  );

  app.get(
    '/elp/tests/:elp_test_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getElpTest',
        tags: ['elp'],
        summary: 'One ELP test, with its scores, its answers and its call',
        params: elpIdParams,
        response: { 200: elpTestDetailSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => elp(request).get(scopeOf(request), request.params.elp_test_id),
  );
}
