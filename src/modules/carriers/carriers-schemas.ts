import { z } from 'zod';
import {
  AUDIT_REASONS,
  auditReason,
  CONTACT_TYPES,
  contactType,
  EQUIPMENT_TYPES,
  equipmentType,
} from '../../domain/freight.js';
import { documentAs, documentMedia } from '../../http/openapi.js';
import { pageQuery } from '../../http/page-query.js';
import {
  dateTime,
  dateTimeInput,
  emailInput,
  int32,
  NON_BLANK_TEXT,
  NOT_BLANK,
  nonEmptyText,
  optionalBody,
  phoneInput,
  prefixedId,
  queryBool,
  queryInt,
  queryList,
  storedEnum,
  text,
} from '../../http/schemas.js';
import { COMPLIANCE_STATUSES, PREFERENCE_TYPES } from './carriers-tables.js';
import { carrierRiskFields } from './vetting-schemas.js';

/** MC and DOT numbers are kept as digits only, leading zeros stripped: "MC-012345" is "12345". */
export function digitsOnly(value: string): string {
  return value.replace(/\D/g, '').replace(/^0+/, '');
}

/** Any text with a non-zero digit somewhere (`[1-9]`), kept as its digits. */
const registryNumber = (label: string) =>
  text(30)
    .regex(/[1-9]/, { message: `${label} must contain at least one non-zero digit` })
    .transform(digitsOnly);

const pct = () => z.number().min(0).max(100);
const tier = () => z.number().int().min(1).max(4);

export const contactInput = z.object({
  contact_type: contactType,
  name: text(200).nullish(),
  phone: phoneInput().nullish(),
  email: emailInput().nullish(),
  equipment_type: equipmentType.nullish(),
});

/** CarrierCreateRequest of the spec, plus the carrier fields an ingestion may also carry. */
const carrierFields = z.object({
  name: nonEmptyText(200),
  tms_carrier_id: text(100).nullish(),
  mc_number: registryNumber('mc_number').nullish(),
  dot_number: registryNumber('dot_number').nullish(),
  email: emailInput().nullish(),
  phone: phoneInput().nullish(),
  dispatcher_name: text(200).nullish(),
  dispatcher_phone: phoneInput().nullish(),
  dispatcher_email: emailInput().nullish(),
  contacts: z.array(contactInput).max(50).nullish(),
  on_time_delivery_pct: pct().nullish(),
  on_time_pickup_pct: pct().nullish(),
  tracking_compliance_pct: pct().nullish(),
  avg_response_time_min: z.number().min(0).max(1_000_000).nullish(),
  total_loads_hauled: int32().min(0).nullish(),
  is_onboarded: z.boolean().nullish(),
  is_active: z.boolean().nullish().meta({
    description: 'false creates the carrier disabled or disables an existing one; true never re-enables.',
  }),
  tms_status: text(100).nullish(),
  home_state: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Must be a 2-letter state or province code')
    .max(2)
    .transform((s) => s.toUpperCase())
    .nullish()
    .meta({
      description:
        "State or province of the carrier's base (US or Canada). The agent reads the carrier's local time from it for quiet hours.",
    }),
  preferred_channel: z
    .enum(['call', 'email', 'whatsapp'])
    .nullish()
    .meta({
      description:
        "The channel the carrier wants to be reached on. The agent tries it before the organization's channel_order " +
        '(when the organization uses that channel at all and the carrier has an address for it); null: the organization order.',
    }),
  equipment_types: z.array(equipmentType).max(20).nullish(),
  carrier_rep_name: text(200).nullish(),
  carrier_rep_email: emailInput().nullish(),
  routing_guide_tier: tier().nullish(),
  insurance_expiration: dateTimeInput().nullish(),
  w9_on_file: z.boolean().nullish(),
  provider: text(100).nullish(),
});
export const carrierInput = carrierFields.meta({ title: 'CarrierCreateRequest' });
export type CarrierInput = z.output<typeof carrierInput>;

const laneEnd = z.object({
  city: text(100).nullish(),
  state: z
    .string()
    .regex(/^[A-Za-z]{2,3}$/, 'Must be a 2 or 3 letter state or province code')
    .max(3)
    .transform((s) => s.toUpperCase()),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Must be an ISO 3166-1 alpha-2 code')
    .max(2)
    .transform((s) => s.toUpperCase())
    .nullish(),
});

const lanePreferenceFields = z.object({
  origin: laneEnd,
  destination: laneEnd,
  equipment_type: equipmentType.nullish(),
  preference_type: z.enum(PREFERENCE_TYPES).nullish(),
  routing_guide_tier: tier().nullish(),
});
export const lanePreferenceInput = lanePreferenceFields.meta({ title: 'LanePreferenceCreateRequest' });
export type LanePreferenceInput = z.output<typeof lanePreferenceInput>;

export const batchItemInput = z
  .object({ carrier: carrierInput, lanes: z.array(lanePreferenceInput).max(100).nullish() })
  .meta({ title: 'CarrierBatchItem' });

export const MAX_BATCH = 1000;

const MiB = 1024 * 1024;

export const batchBody = documentMedia(
  z.union([
    z.object({
      // Sizes are checked by the service: inside this union a failure would lose its path.
      carriers: z.array(z.unknown()),
    }),
    z.string(),
  ]),
  {
    'application/json': z.object({ carriers: z.array(batchItemInput).min(1).max(MAX_BATCH) }).meta({
      title: 'CarrierBatchRequest',
      description: 'Each item is validated on its own: a bad item fails alone (207), named `carriers[i]...`.',
    }),
    'text/csv': z
      .string()
      .max(16 * MiB)
      .meta({
        description:
          'A header row of CarrierCreateRequest field names, then one carrier per row (at most ' +
          `${MAX_BATCH}); \`equipment_types\` separated by \`;\`, booleans true/false/yes/no/1/0.`,
      }),
  },
);

/** PATCH: every field optional; `is_active` is named so it can be refused with its own code. */
export const carrierPatch = carrierInput
  .omit({ contacts: true, is_active: true })
  .partial()
  .extend({
    name: nonEmptyText(200).optional(),
    // Refused whatever its value (field_not_updatable): the document says it must be absent.
    is_active: documentAs(z.unknown(), () => ({
      not: {},
      description: 'Not accepted here: use POST /carriers/{carrier_id}/disable or /enable.',
    })).optional(),
  })
  .meta({ title: 'CarrierUpdateRequest' });
export type CarrierPatch = z.output<typeof carrierPatch>;

/**
 * `reason_note` is required, and not blank, when `reason` is `other`: checked here, and stated in
 * the document as `if`/`then`.
 */
function noteWithOther<T extends z.ZodObject<{ reason: z.ZodType; reason_note: z.ZodType }>>(schema: T) {
  return schema
    .superRefine((body, ctx) => {
      const { reason, reason_note } = body;
      if (reason === 'other' && !(typeof reason_note === 'string' && NOT_BLANK.test(reason_note))) {
        ctx.addIssue({ code: 'custom', path: ['reason_note'], message: 'Required when reason is "other"' });
      }
    })
    .meta({
      if: { properties: { reason: { const: 'other' } }, required: ['reason'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then`, not a thenable.
      then: {
        properties: { reason_note: { type: 'string', maxLength: 2000, pattern: NON_BLANK_TEXT.source } },
        required: ['reason_note'],
      },
    });
}

const reasonBody = (required: boolean) =>
  noteWithOther(
    z.object({
      reason: required ? auditReason : auditReason.nullish(),
      reason_note: text(2000).nullish(),
    }),
  );

export const disableBody = reasonBody(true);

/** POST /carriers/{id}/lane-preferences/disable-for-load: the load names the lane; a reason is optional. */
export const disableForLoadBody = noteWithOther(
  z.object({
    load_id: prefixedId('load'),
    reason: auditReason.nullish(),
    reason_note: text(2000).nullish(),
  }),
);
export type DisableForLoadInput = z.output<typeof disableForLoadBody>;
export const enableBody = optionalBody(reasonBody(false));

/** PATCH /carriers/{id}/lane-preferences/{id}: the `is_active` switch, with an optional audit reason. */
export const lanePreferencePatchBody = noteWithOther(
  z.object({
    is_active: z.boolean().meta({ description: 'Whether the carrier is worked on this lane' }),
    reason: auditReason.nullish(),
    reason_note: text(2000).nullish(),
  }),
);
export const reasonCodes = AUDIT_REASONS;

const nullable = <T extends z.ZodType>(t: T) => t.nullable();

export const carrierSchema = z
  .object({
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    mc_number: nullable(z.string()),
    dot_number: nullable(z.string()),
    email: nullable(z.string()),
    phone: nullable(z.string()),
    dispatcher_name: nullable(z.string()),
    dispatcher_phone: nullable(z.string()),
    dispatcher_email: nullable(z.string()),
    is_active: z.boolean(),
    tms_status: nullable(z.string()),
    home_state: nullable(z.string()),
    preferred_channel: nullable(storedEnum(['call', 'email', 'whatsapp'] as const)),
    provider: nullable(z.string()),
    ingestion_method: nullable(z.string()),
    equipment_types: nullable(z.array(storedEnum(EQUIPMENT_TYPES))),
    insurance_expiration: nullable(dateTime()),
    w9_on_file: nullable(z.boolean()),
    authorized_for_hire: nullable(z.boolean()),
    on_time_pickup_pct: nullable(z.number()),
    on_time_delivery_pct: nullable(z.number()),
    tracking_compliance_pct: nullable(z.number()),
    avg_response_time_min: nullable(z.number()),
    total_loads_hauled: nullable(z.number().int()),
    is_onboarded: z.boolean(),
    routing_guide_tier: nullable(z.number().int()),
    lane_routing_guide_tier: nullable(z.number().int()),
    effective_routing_guide_tier: nullable(z.number().int()),
    carrier_rep_user_id: nullable(z.string()),
    carrier_rep_name: nullable(z.string()),
    carrier_rep_email: nullable(z.string()),
    is_verified: z.boolean(),
    verified_date: nullable(dateTime()),
    compliance_status: z.enum(COMPLIANCE_STATUSES),
    stop_contact_requested_at: nullable(dateTime()),
    tms_carrier_id: nullable(z.string()),
    last_verified_at: nullable(dateTime()),
    last_verified_provider: nullable(z.string()),
    ...carrierRiskFields,
    census_phone: nullable(z.string()).meta({
      description: 'The phone the census (MCS-150) has on file, from the last check',
    }),
    census_email: nullable(z.string()).meta({
      description: 'The e-mail the census (MCS-150) has on file, from the last check',
    }),
    contacts: z.array(
      z.object({
        id: z.string(),
        contact_type: storedEnum(CONTACT_TYPES),
        name: nullable(z.string()),
        phone: nullable(z.string()),
        email: nullable(z.string()),
        equipment_type: nullable(storedEnum(EQUIPMENT_TYPES)),
      }),
    ),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Carrier' });
export type Carrier = z.infer<typeof carrierSchema>;

export const laneSchema = z
  .object({
    id: z.string(),
    origin: z.object({ city: z.string().nullable(), state: z.string(), country: z.string() }),
    destination: z.object({ city: z.string().nullable(), state: z.string(), country: z.string() }),
    equipment_type: storedEnum(EQUIPMENT_TYPES).nullable(),
  })
  .meta({ id: 'Lane' });

export const lanePreferenceSchema = z
  .object({
    id: z.string(),
    carrier_id: z.string(),
    lane_id: z.string(),
    is_active: z.boolean(),
    preference_type: storedEnum(PREFERENCE_TYPES),
    routing_guide_tier: z.number().int().nullable(),
    dnu: z.boolean(),
    dnu_reason: z.string().nullable(),
    dnu_set_at: dateTime().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
    lane: laneSchema,
  })
  .meta({ id: 'LanePreference' });
export type LanePreference = z.infer<typeof lanePreferenceSchema>;

export const ORDERABLE = ['created_at', 'updated_at', 'name', 'routing_guide_tier'] as const;

export const listCarriersQuery = pageQuery().extend({
  search: text(200).optional(),
  is_active: queryBool().optional(),
  compliance_status: queryList(z.enum(COMPLIANCE_STATUSES)).optional(),
  equipment_type: queryList(equipmentType).optional(),
  routing_guide_tier: queryList(queryInt(1, 4)).optional(),
  lane_id: text(100).optional(),
  origin_state: z
    .string()
    .regex(/^[A-Za-z]{2,3}$/, 'Must be a state or province code')
    .max(3)
    .transform((s) => s.toUpperCase())
    .optional(),
  destination_state: z
    .string()
    .regex(/^[A-Za-z]{2,3}$/, 'Must be a state or province code')
    .max(3)
    .transform((s) => s.toUpperCase())
    .optional(),
  order_by: z.enum(ORDERABLE).default('created_at'),
  order_desc: queryBool().default(true),
});
export type ListCarriersQuery = z.output<typeof listCarriersQuery>;

export const listLanePreferencesQuery = pageQuery().extend({ is_active: queryBool().optional() });

export const carrierIdParams = z.object({ carrier_id: prefixedId('carrier') });
export const preferenceParams = z.object({
  carrier_id: prefixedId('carrier'),
  preference_id: prefixedId('lanePreference'),
});
