import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { errorResponses } from '../../http/schemas.js';
import type { ComplianceService } from './compliance-service.js';
import { vettingPolicyPatch, vettingPolicySchema } from './vetting-policy.js';

const tags = ['carriers'];

/** The organization's vetting policy: which fraud signals block, which send to review, strict mode. */
export const vettingPolicyRoutes: FastifyPluginAsyncZod<{ compliance: ComplianceService }> = async (
  app,
  { compliance },
) => {
  app.get(
    '/compliance-policy',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getCompliancePolicy',
        tags,
        summary: "The organization's carrier vetting policy",
        response: { 200: vettingPolicySchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => compliance.policy(scopeOf(request).organizationId),
  );
  app.patch(
    '/compliance-policy',
    {
      config: { access: access.apiKeyOrBearer('OWNER', 'ADMIN') },
      schema: {
        operationId: 'updateCompliancePolicy',
        tags,
        summary: 'Change the carrier vetting policy (only the fields sent)',
        description:
          "API keys, or bearer OWNERs and ADMINs. Applies from each carrier's next compliance check.",
        body: vettingPolicyPatch,
        response: { 200: vettingPolicySchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => compliance.updatePolicy(scopeOf(request).organizationId, request.body),
  );
};
