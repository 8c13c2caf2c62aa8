import { toE164 } from '../../domain/phone.js';
import type { ComplianceProvider } from '../../integrations/compliance/compliance-provider.js';
import { type CarrierCreator, carrierInput } from '../carriers/index.js';
import type { CarrierEnrollment } from './voice-tool-handlers.js';

/**
 * Makes a carrier of an unknown caller the way POST /carriers does: created (named as the census
 * registry knows it, else after its number) and checked inline within the compliance budget; a
 * BLOCKED verdict then keeps the load from it like any other blocked carrier.
 */
export function carrierEnrollment(
  carriers: CarrierCreator,
  registry: ComplianceProvider,
  inlineBudgetMs: number,
): CarrierEnrollment {
  return async (scope, ident) => {
    const found = await registry
      .lookup(
        { mc_number: ident.mc_number, dot_number: ident.dot_number },
        AbortSignal.timeout(inlineBudgetMs),
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
