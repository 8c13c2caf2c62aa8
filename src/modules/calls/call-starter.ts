// What other modules need to start a call, without depending on the whole calls service.

import type { OrgScope } from '../../domain/scope.js';
import type { CallRow } from './call-queries.js';
import type { CreateCallInput } from './calls-schemas.js';

/** What a caller inside the service knows beyond the request: the carrier the call is for, ELP details. */
export interface CallContext {
  driver_name?: string | null;
  /** The carrier the call is for, when the number may not be on file (a driver's phone). */
  carrier_id?: string | null;
  mc_number?: string | null;
  /**
   * Outreaches the agent queued: the call carries them instead of opening a new one. The first is
   * about the call's load; more are other loads of its lanes offered on the same call.
   */
  outreach_ids?: readonly string[];
}

/** Starts a call (CallsService.create); given to other modules by the composition root. */
export interface CallStarter {
  create(scope: OrgScope, input: CreateCallInput, context?: CallContext): Promise<CallRow>;
}
