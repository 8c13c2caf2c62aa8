import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { forbidden, notFound, unauthenticated } from '../../domain/errors.js';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { documentAs } from '../../http/openapi.js';
import { keepRawJsonBody } from '../../http/raw-json-body.js';
import { errorResponses, queryBool, queryIntOr, storedEnum } from '../../http/schemas.js';
import { verifyChallenge, verifyWhatsAppSignature } from '../../integrations/whatsapp/cloud-api-webhook.js';
import { defined } from '../../lib/defined.js';
import { objectOf } from '../../lib/json-object.js';
import { offerReviewSchema, offerSchema, offersById } from '../offers/index.js';
import { findOutreach, outreachIdParams } from '../outreaches/index.js';
import { outreachMessages } from './agent-repository.js';
import type { AgentService } from './agent-service.js';
import {
  agentSettingsPatch,
  agentSettingsSchema,
  readAgentSettings,
  updateAgentSettings,
} from './agent-settings.js';
import { AGENT_CHANNELS } from './agent-tables.js';
import { openReviewItems } from './review-items.js';

const tags = ['agent'];

const agentMessageSchema = z
  .object({
    id: z.string(),
    outreach_id: z.string().nullable(),
    channel: storedEnum(AGENT_CHANNELS),
    direction: z.enum(['outbound', 'inbound']),
    intent: z.string().nullable(),
    body: z.string(),
    created_at: z.date(),
  })
  .meta({ id: 'AgentMessage' });

const inboundResultSchema = z.object({
  status: z.enum(['ignored', 'recorded', 'replied', 'restriction_notice']),
  outreach_id: z.string().nullable(),
  offer_id: z.string().nullable(),
  reason: z.string().nullable(),
});

const reviewListItemSchema = offerReviewSchema
  .extend({ offer: offerSchema })
  .meta({ id: 'AgentReviewListItem' });

type App = Parameters<FastifyPluginAsyncZod>[0];

/** What the agent's routes are handed: its service, the database and the channels' settings. */
export interface AgentRoutesOptions {
  agent: AgentService;
  db: Db;
  channelSettings: Config['channels'];
}

export const agentRoutes: FastifyPluginAsyncZod<AgentRoutesOptions> = async (
  app,
  { agent, db, channelSettings },
) => {
  settingsRoutes(app, db);
  messageRoutes(app, db);
  reviewRoutes(app, db);
  await app.register(async (hooks) => emailWebhooks(hooks, agent, channelSettings.email));
  await app.register(async (hooks) => channelWebhooks(hooks, agent, channelSettings));
};

/** Read and change the agent's settings. */
function settingsRoutes(app: App, db: Db) {
  app.get(
    '/agent/settings',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getAgentSettings',
        tags,
        summary: "The load-working agent's cadence and opt-ins for the organization",
        response: { 200: agentSettingsSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => readAgentSettings(db, scopeOf(request).organizationId),
  );

  app.patch(
    '/agent/settings',
    {
      config: { access: access.apiKeyOrBearer('OWNER', 'ADMIN') },
      schema: {
        operationId: 'updateAgentSettings',
        tags,
        summary: "Change the agent's settings (only the fields sent)",
        description: 'API keys, or bearer OWNERs and ADMINs. Takes effect at the next wave of each load.',
        body: agentSettingsPatch,
        response: { 200: agentSettingsSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => updateAgentSettings(db, scopeOf(request).organizationId, request.body),
  );
}

/** Offers within max_buy_rate waiting for a rep's decision. */
function reviewRoutes(app: App, db: Db) {
  app.get(
    '/agent/reviews',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listAgentReviews',
        tags,
        summary:
          "Offers within max_buy_rate waiting for a rep's decision: escalated ones first, then oldest first",
        description:
          'Each raised offer.review_requested when the agent found it; escalated ones also raised offer.review_escalated ' +
          'after review_escalation_minutes. An item leaves the list when its offer is accepted, rejected or countered ' +
          '(POST /offers/{id}/counter), or the load is no longer worked. Each item carries its `offer`, with the carrier ' +
          '(and its compliance status and risk level) nested.',
        querystring: z.object({
          escalated: queryBool()
            .optional()
            .meta({ description: 'true: only escalated items; false: only those not escalated yet.' }),
          limit: queryIntOr(1, 500, 100).meta({ description: 'Most items returned.' }),
        }),
        response: {
          200: z.object({ data: z.array(reviewListItemSchema) }),
          ...errorResponses(401, 403, 422, 429),
        },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const items = await openReviewItems(db, scope.organizationId, request.query);
      const offers = await offersById(
        db,
        scope,
        items.map((i) => i.offer_id),
      );
      return {
        data: items.flatMap((i) => {
          const offer = offers.get(i.offer_id);
          return offer ? [{ ...i, offer }] : [];
        }),
      };
    },
  );
}

/** The conversation of an outreach. */
function messageRoutes(app: App, db: Db) {
  app.get(
    '/outreaches/:outreach_id/messages',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listOutreachMessages',
        tags: ['outreaches'],
        summary: 'The e-mail or WhatsApp conversation of an outreach, oldest first',
        params: outreachIdParams,
        response: {
          200: z.object({ data: z.array(agentMessageSchema) }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const outreach = await findOutreach(db, scope, request.params.outreach_id);
      if (!outreach) throw notFound('Outreach', request.params.outreach_id, 'outreach_id');
      return { data: await outreachMessages(db, scope, outreach.id) };
    },
  );
}

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The inbound-parse credential: HTTP Basic (any user, the secret as password) or `?token=`. */
function inboundCredential(request: FastifyRequest): string | null {
  const auth = request.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1);
  }
  const token = objectOf(request.query)?.token;
  return typeof token === 'string' ? token : null;
}

const deliveryResultSchema = z.object({
  status: z.enum(['bounce_recorded', 'stop_contact_recorded', 'ignored']),
  record_type: z.string(),
  outreach_id: z.string().nullable(),
  carrier_id: z.string().nullable(),
  reason: z.string().nullable(),
});

/**
 * Where Postmark reaches us: inbound replies, and bounces, spam complaints and subscription
 * changes. The credential is checked before the body is read, so only Postmark can make us read a
 * large one; only the inbound route takes Postmark's largest messages (attachments included).
 */
async function emailWebhooks(
  app: FastifyInstance,
  agent: AgentService,
  email: import('../../config.js').Config['channels']['email'],
) {
  const integration = {
    access: { public: true, apiKey: false, roles: [] },
    rateLimit: false,
    unknownQuery: 'ignore',
  } as const;
  const authenticate = async (request: FastifyRequest) => {
    const given = inboundCredential(request);
    if (!email.inboundSecret || !given || !sameSecret(given, email.inboundSecret)) {
      throw unauthenticated('The inbound e-mail credential is missing or wrong');
    }
  };
  const handle = (request: FastifyRequest) => agent.onPostmarkPayload(request.body);
  const credentialNote =
    'Authenticated with EMAIL_INBOUND_SECRET as the HTTP Basic password (any user name; Postmark sends the ' +
    'user and password written into the webhook URL) or the `token` query parameter; checked before the body is read.';

  app.post(
    '/integrations/email/inbound',
    {
      config: integration,
      bodyLimit: email.inboundMaxBytes,
      onRequest: authenticate,
      schema: {
        operationId: 'inboundEmail',
        tags: ['integrations'],
        summary: 'Postmark inbound webhook: carrier replies (delivery events are accepted here too)',
        description:
          `Postmark's inbound JSON (\`RecordType\` Inbound). Bodies up to EMAIL_INBOUND_MAX_BYTES (64 MiB): ` +
          'Postmark accepts inbound messages with up to 35 MB of attachments, sent base64-encoded. Attachments ' +
          'are dropped after parsing; the reply text is kept. A reply is matched to its outreach by the ' +
          "`reply+<conversation_id>@` address, then the message it answers, then the sender's address. " +
          `${credentialNote}`,
        response: {
          200: z.union([inboundResultSchema, deliveryResultSchema]),
          ...errorResponses(401, 413, 422),
        },
      },
    },
    handle,
  );

  app.post(
    '/integrations/email/events',
    {
      config: integration,
      onRequest: authenticate,
      schema: {
        operationId: 'emailDeliveryEvents',
        tags: ['integrations'],
        summary: 'Postmark bounce, spam-complaint and subscription-change webhooks',
        description:
          '`RecordType` Bounce, SpamComplaint or SubscriptionChange, matched to the outreach by ' +
          '`Metadata.outreach_id` (sent as the `X-PM-Metadata-outreach_id` header), else the message id, else ' +
          'the recipient address and the time (only when a single organization e-mailed it in the 30 days before). ' +
          "A bounce sets the outreach's `delivery_failed_at` (auto-replies and delays do not); a spam complaint " +
          'or an unsubscribe stamps the carrier\'s `stop_contact_requested_at`, as a "stop" reply does. ' +
          `Delivery, Open and Click records are answered 200 and ignored. ${credentialNote}`,
        response: {
          200: z.union([deliveryResultSchema, inboundResultSchema]),
          ...errorResponses(401, 413, 422),
        },
      },
    },
    handle,
  );
}

/** Where the WhatsApp platform reaches us; authenticated before anything is written. */
async function channelWebhooks(
  app: FastifyInstance,
  agent: AgentService,
  channels: import('../../config.js').Config['channels'],
) {
  keepRawJsonBody(app);
  const integration = {
    access: { public: true, apiKey: false, roles: [] },
    rateLimit: false,
    unknownQuery: 'ignore',
  } as const;

  const cloudApi = channels.whatsapp.provider === 'cloud_api' ? channels.whatsapp : null;
  app.get(
    '/integrations/whatsapp/webhook',
    {
      config: integration,
      schema: {
        operationId: 'whatsappVerify',
        tags: ['integrations'],
        summary: 'WhatsApp Cloud API subscription check (hub.challenge)',
        // Anything else in the query is ignored, and a wrong value is a 403 rather than a 422.
        querystring: documentAs(
          z.record(z.string(), z.unknown()),
          z.object({
            'hub.mode': z.literal('subscribe'),
            'hub.verify_token': z.string().max(500),
            'hub.challenge': z.string().min(1).max(200),
          }),
        ),
        response: {
          200: {
            description: 'The challenge, echoed',
            content: { 'text/plain': { schema: z.string().max(200) } },
          },
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      if (!cloudApi) throw notFound('Route', `${request.method} ${request.url.split('?')[0]}`);
      const challenge = verifyChallenge(
        objectOf(request.query) ?? {},
        defined(cloudApi.verifyToken, 'cloudApi.verifyToken'),
      );
      if (challenge === null) throw forbidden('The verify token does not match');
      return reply.type('text/plain').send(challenge);
    },
  );
  app.post(
    '/integrations/whatsapp/webhook',
    {
      config: integration,
      schema: {
        operationId: 'whatsappEvents',
        tags: ['integrations'],
        summary: 'WhatsApp Cloud API webhook: carrier messages and delivery statuses',
        description: 'Signed with `X-Hub-Signature-256` (HMAC-SHA256 of the body with WHATSAPP_APP_SECRET).',
        response: {
          200: z.object({ results: z.array(inboundResultSchema) }),
          ...errorResponses(401, 404, 422),
        },
      },
    },
    async (request) => {
      if (!cloudApi) throw notFound('Route', `${request.method} ${request.url.split('?')[0]}`);
      const signature = request.headers['x-hub-signature-256'];
      if (
        !verifyWhatsAppSignature(
          request.rawBody ?? '',
          typeof signature === 'string' ? signature : undefined,
          defined(cloudApi.appSecret, 'cloudApi.appSecret'),
        )
      ) {
        throw unauthenticated('The WhatsApp signature is missing or wrong');
      }
      return agent.onWhatsAppPayload(request.body);
    },
  );
}
