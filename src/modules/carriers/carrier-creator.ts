// What other modules need to add a carrier, without depending on the whole carriers service.

import type { OrgScope } from '../../domain/scope.js';
import type { Carrier, CarrierInput } from './carriers-schemas.js';

/** Adds or updates one carrier (CarriersService.createOne); given by the composition root. */
export interface CarrierCreator {
  createOne(scope: OrgScope, carrier: CarrierInput): Promise<{ created: boolean; carrier: Carrier }>;
}
