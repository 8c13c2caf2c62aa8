import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DbOrTx } from '../../db/client.js';
import { AppError, notFound } from '../../domain/errors.js';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { errorResponses } from '../../http/schemas.js';
import { defined } from '../../lib/defined.js';
import { complianceChecksOf } from './carriers-repository.js';
import { carrierIdParams } from './carriers-schemas.js';
import type { ComplianceService } from './compliance-service.js';
import { vettingPolicyPatch, vettingPolicySchema } from './vetting-policy.js';
import { complianceCheckSchema } from './vetting-schemas.js';

/** How long a check asked for by a user may take (the provider's call included). */
const CHECK_NOW_TIMEOUT_MS = 15_000;

const tags = ['carriers'];

/**
 * The organization's vetting policy (which fraud signals block, which send to review, strict mode),
 * and a carrier's compliance check run at once.
 */
export const vettingPolicyRoutes: FastifyPluginAsyncZod<{
  compliance: ComplianceService;
  db: DbOrTx;
}> = async (app, { compliance, db }) => {
  app.post(
    '/carriers/:carrier_id/compliance-checks',
    {
      config: { access: access.apiKeyOrBearer('OWNER', 'ADMIN') },
      schema: {
        operationId: 'runComplianceCheck',
        tags,
        summary: 'Check the carrier now against the compliance provider, the fraud signals and the policy',
        description:
          'Runs the same check as the background worker, at once, and answers the stored check. ' +
          'A change of status, risk level or signals is announced (`carrier.compliance_changed`) and audited. ' +
          'A provider that gives no answer in time leaves the carrier as it was: 502 `compliance_check_timeout`.',
        params: carrierIdParams,
        response: { 201: complianceCheckSchema, ...errorResponses(401, 403, 404, 429, 502) },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const { carrier_id } = request.params;
      let verdict: Awaited<ReturnType<ComplianceService['check']>>;
      try {
        verdict = await compliance.check(
          scope.organizationId,
          carrier_id,
          AbortSignal.timeout(CHECK_NOW_TIMEOUT_MS),
        );
      } catch (err) {
        if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
          throw new AppError(
            502,
            'compliance_check_timeout',
            'The compliance provider did not answer in time; the carrier is unchanged, try again shortly',
          );
        }
        throw err;
      }
      if (!verdict) throw notFound('Carrier', carrier_id, 'carrier_id');
      const [check] = await complianceChecksOf(db, scope, carrier_id, 1);
      return reply.code(201).send(defined(check, 'the check just stored'));
    },
  );

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
