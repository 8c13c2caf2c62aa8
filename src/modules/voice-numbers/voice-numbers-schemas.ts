import { z } from 'zod';
import { dateTime, nonEmptyText, phoneInput, prefixedId } from '../../http/schemas.js';
import type { voiceNumbers } from './voice-numbers-tables.js';

type VoiceNumberRow = typeof voiceNumbers.$inferSelect;

export const createVoiceNumberBody = z
  .object({
    phone_number_id: nonEmptyText(200).meta({
      description: "The voice platform's id of the number (Vapi: the phone number's id in its dashboard)",
    }),
    phone_number: phoneInput().optional().meta({ description: 'The number itself, for reading the list' }),
    outbound: z
      .boolean()
      .optional()
      .meta({ description: "The organization's caller ID for outbound calls (the previous one is unset)" }),
  })
  .strict();
export type CreateVoiceNumberInput = z.infer<typeof createVoiceNumberBody>;

export const voiceNumberSchema = z
  .object({
    id: z.string(),
    provider: z.string(),
    phone_number_id: z.string(),
    phone_number: z.string().nullable(),
    outbound: z.boolean(),
    created_at: dateTime(),
  })
  .meta({ id: 'VoiceNumber' });

export const voiceNumberIdParams = z.object({ voice_number_id: prefixedId('voiceNumber') });

export const voiceHealthSchema = z
  .object({
    provider: z.string(),
    outbound_phone_number_id: z.string().nullable(),
    outbound_phone_number_source: z.enum(['organization', 'default']).nullable(),
  })
  .catchall(z.unknown())
  .meta({ id: 'VoiceHealth' });

export function toVoiceNumber(r: VoiceNumberRow) {
  return {
    id: r.id,
    provider: r.provider,
    phone_number_id: r.phone_number_id,
    phone_number: r.phone_number,
    outbound: r.outbound,
    created_at: r.created_at,
  };
}
