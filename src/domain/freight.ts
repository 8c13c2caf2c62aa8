import { z } from 'zod';

/** Shared enumerations of the spec (Resources: Shared enumerations). */
export const EQUIPMENT_TYPES = [
  'VAN',
  'REEFER',
  'FLATBED',
  'STEPDECK',
  'RGN',
  'CONESTOGA',
  'BOX_TRUCK',
  'CONTAINER',
  'INTERMODAL',
  'POWER_ONLY',
  'TANKER',
  'LOWBOY',
  'HOTSHOT',
  'AUTO_CARRIER',
  'DRY_BULK',
  'DRY_TEAM',
  'REEFER_TEAM',
  'LTL',
  'OTHER',
  'VAN/REEFER',
] as const;
export const equipmentType = z.enum(EQUIPMENT_TYPES);

export const CONTACT_TYPES = ['CARRIER', 'DISPATCHER', 'DRIVER', 'TENDERING', 'QUOTING', 'OTHER'] as const;
export const contactType = z.enum(CONTACT_TYPES);

export const AUDIT_REASONS = [
  'pause_on_lane',
  'carrier_pause',
  'service_quality',
  'rate_disagreement',
  'compliance',
  'fraud_safety',
  'no_longer_active',
  'other',
] as const;
export const auditReason = z.enum(AUDIT_REASONS);

export const LOAD_MODES = ['FTL', 'PTL', 'LTL', 'DED', 'RAIL', 'PASS'] as const;

/**
 * Load statuses in which a load is still looking for a carrier: the agent works loads in these
 * (handed to it, with no accepted offer), and a carrier's offer on any channel is recorded only on
 * a load in one of these or with no status at all; on any other the carrier hears it is covered.
 */
export const OPEN_LOAD_STATUSES = ['Created', 'Unassigned', 'Quotes Received'] as const;

/** Load statuses in which no offer can be accepted, by a rep or automatically (docs/decisions/0018-tms-owns-load-status.md). */
export const UNBOOKABLE_LOAD_STATUSES = ['Cancelled', 'Delivered'] as const;

/** Whether a carrier's offer on a load in this status is taken (no status: still open). */
export const takesCarrierOffers = (status: string | null): boolean =>
  status === null || OPEN_LOAD_STATUSES.some((open) => open === status);

/** Whether an offer on a load in this status may be accepted (no status: yes). */
export const isBookable = (status: string | null): boolean =>
  status === null || !UNBOOKABLE_LOAD_STATUSES.some((closed) => closed === status);

/**
 * Who booked the load on an accepted offer: `agent` when the agent accepted it on arrival (the
 * organization auto-accepts at or under the posted rate), `user` for a PATCH by a rep or an API client.
 */
export const BOOKED_BY = ['agent', 'user'] as const;
