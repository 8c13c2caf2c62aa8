import { z } from 'zod';
import { dateTime } from '../../http/schemas.js';
import { CALL_DIRECTIONS, CALL_STATUSES, type calls } from './calls-tables.js';

export const callSchema = z
  .object({
    id: z.string(),
    status: z.enum(CALL_STATUSES),
    call_time: dateTime(),
    created_at: dateTime(),
    updated_at: dateTime(),
    call_direction: z.enum(CALL_DIRECTIONS).nullable(),
    phone_number: z.string().nullable(),
    to_number: z.string().nullable(),
    from_number: z.string().nullable(),
    call_start_time: dateTime().nullable(),
    call_end_time: dateTime().nullable(),
    call_type: z.string().nullable(),
    load_id: z.string().nullable(),
    organization_id: z.string().nullable(),
    created_by_id: z.string().nullable(),
    recording_status: z.string().nullable(),
    load_number: z.string().nullable(),
  })
  .meta({ id: 'Call' });
export type Call = z.infer<typeof callSchema>;

export function toCall(row: typeof calls.$inferSelect): Call {
  return {
    id: row.id,
    status: row.status,
    call_time: row.call_time,
    created_at: row.created_at,
    updated_at: row.updated_at,
    call_direction: row.call_direction,
    phone_number: row.phone_number,
    to_number: row.to_number,
    from_number: row.from_number,
    call_start_time: row.call_start_time,
    call_end_time: row.call_end_time,
    call_type: row.call_type,
    load_id: row.load_id,
    organization_id: row.organization_id,
    created_by_id: row.created_by_id,
    recording_status: row.recording_status,
    load_number: row.load_number,
  };
}
