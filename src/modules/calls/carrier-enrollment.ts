import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { toE164 } from '../../http/phone.js';
import { complianceProviderFrom } from '../../integrations/compliance/index.js';
import { carrierInput } from '../carriers/carriers-schemas.js';
import { CarriersService } from '../carriers/carriers-service.js';
import { ComplianceService } from '../carriers/compliance-service.js';
import { StopContactRequests } from '../carriers/stop-contact.js';
import { queuedOutreaches } from '../outreaches/outreaches-repository.js';
import type { CarrierEnrollment } from './voice-tools.js';

/**
 * Makes a carrier of an unknown caller the way POST /carriers does: created (named as the census
 * registry knows it, else after its number) and checked inline within the compliance budget; a
 * BLOCKED verdict then keeps the load from it like any other blocked carrier.
 */
export function carrierEnrollment(db: Db, config: Config['compliance']): CarrierEnrollment {
  const registry = complianceProviderFrom(config);
  const carriers = new CarriersService(
    db,
    new ComplianceService(db, registry, config.minAuthorityDays),
    { inlineBudgetMs: config.inlineBudgetMs },
    new StopContactRequests(db, queuedOutreaches),
  );
  return async (scope, ident) => {
    const found = await registry
      .lookup(
        { mc_number: ident.mc_number, dot_number: ident.dot_number },
        AbortSignal.timeout(config.inlineBudgetMs),
      )
      .catch(() => null);
    const legalName = found?.status === 'found' ? found.record.legal_name : null;
    const phone = ident.phone ? toE164(ident.phone) : null;
    const input = carrierInput.parse({
      name: legalName ?? (ident.mc_number ? `MC ${ident.mc_number}` : `DOT ${ident.dot_number}`),
      mc_number: ident.mc_number,
      dot_number: ident.dot_number,
      ...(phone ? { phone } : {}),
    });
    const { carrier } = await carriers.createOne(scope, input);
    return { id: carrier.id };
  };
}
