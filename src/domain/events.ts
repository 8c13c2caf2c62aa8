import type { z } from 'zod';

/**
 * The webhook event types of the spec, in catalogue order (GET /webhooks/event-types and the
 * OpenAPI enum list them in this order). An emitter names one of these or does not compile.
 */
export const EVENT_TYPE_NAMES = [
  'load.created',
  'load.updated',
  'load.status_changed',
  'load.booked',
  'load.unbooked',
  'carrier.created',
  'carrier.updated',
  'carrier.disabled',
  'carrier.enabled',
  'carrier.compliance_changed',
  'lane_preference.restricted',
  'lane_preference.unrestricted',
  'offer.created',
  'offer.status_changed',
  'offer.review_requested',
  'offer.review_escalated',
  'call.created',
  'call.status_changed',
  'outreach.created',
  'outreach.status_changed',
  'elp_test.completed',
  'elp_test.scored',
  'ping',
] as const;

export type EventType = (typeof EVENT_TYPE_NAMES)[number];

/** An event type as the module that emits it declares it: what it means and the shape of `data`. */
export interface EventDefinition {
  readonly description: string;
  readonly data: z.ZodType;
}

/** The definitions of some event types, keyed by type. */
export type EventDefinitions<T extends EventType> = { readonly [K in T]: EventDefinition };
