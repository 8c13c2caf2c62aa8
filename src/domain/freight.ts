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
