import { AppError } from '../../domain/errors.js';
import type { LoadSummary } from '../../domain/negotiation.js';
import type { SayableLoad } from './call-script.js';

/** What the voice tools share: their answers' shape, their arguments, their wording. */

export type Outcome = { result?: string; error?: string; metadata?: Record<string, unknown> };

export const NOT_AVAILABLE = 'I am sorry, this load is not available for you. Thank you for calling.';

/** Tool errors that are the caller's to fix: their message goes back to the assistant. */
export const toolError = (message: string) => new AppError(422, 'tool_error', message);

export function loadSummary(s: SayableLoad): LoadSummary {
  const place = (p: { city: string; state: string } | null) => (p ? `${p.city}, ${p.state}` : 'TBD');
  return {
    load_number: s.load_number,
    equipment_type: s.equipment_type,
    origin: place(s.origin),
    destination: place(s.destination),
    pickup_date: s.pickup_date ? new Date(`${s.pickup_date}T00:00:00Z`) : null,
    posted_rate: s.posted_rate,
  };
}

export function argsOf(raw: unknown): Record<string, unknown> {
  if (typeof raw === 'string') {
    try {
      const parsed = JSON.parse(raw) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
}

export const textArg = (v: unknown, max = 200) =>
  typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : null;

/** The confirmation of a stop-contact request names no load. */
export const NO_LOAD: LoadSummary = {
  load_number: '',
  equipment_type: '',
  origin: '',
  destination: '',
  pickup_date: null,
  posted_rate: null,
};
