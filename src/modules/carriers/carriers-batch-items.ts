import { pathToParam, validationFailed } from '../../domain/errors.js';
import { parseCsvCooperatively } from '../../lib/csv.js';
import { defined } from '../../lib/defined.js';
import type { IngestItem, ItemOutcome } from './carriers-ingestion.js';
import { batchItemInput, carrierInput, MAX_BATCH } from './carriers-schemas.js';

/**
 * A carrier batch's items read (from JSON or a CSV upload) and checked against the schema, before
 * anything is read or written. This runs in a body worker thread for large bodies
 * (http/body-worker.ts), so it holds no database or request state.
 */

/** The items once checked: the valid ones, and an outcome for each of the others. */
export interface CheckedCarrierItems {
  valid: IngestItem[];
  invalid: ItemOutcome[];
}

/** What POST /carriers/batch hands the service. */
export type CarrierBatchBody =
  | { carriers: unknown[] }
  | { csv: readonly string[] }
  | { checked: CheckedCarrierItems; method: 'csv' | 'batch' };

type Pause = () => Promise<void> | undefined;
const noPause: Pause = () => undefined;

/**
 * A refused item's name as its identifier, cut to the longest name a carrier may have: a CSV field
 * left open runs to the end of the upload, and the answer should not echo 16 MiB of it.
 */
const shortened = (name: string) => (name.length > 200 ? `${name.slice(0, 200)}…` : name);

const CSV_BOOLEAN: Record<string, boolean> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  '1': true,
  '0': false,
};
const CSV_NUMBERS = new Set([
  'on_time_delivery_pct',
  'on_time_pickup_pct',
  'tracking_compliance_pct',
  'avg_response_time_min',
  'total_loads_hauled',
  'routing_guide_tier',
]);
const CSV_BOOLEANS = new Set(['is_onboarded', 'is_active', 'w9_on_file']);

/** CSV rows to `{carrier}` items: header names are CarrierCreateRequest fields; empty cells are absent. */
export async function carrierItemsFromCsv(
  text: readonly string[],
  pause: Pause = noPause,
): Promise<unknown[]> {
  const [header, ...rows] = await parseCsvCooperatively(text, pause);
  if (!header) throw validationFailed('body', [], 'The CSV upload has no header row', 'csv_invalid');
  const names = header.map((h) => h.trim());
  const known = new Set(Object.keys(carrierInput.shape));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) {
    throw validationFailed(
      'body',
      [],
      `Unknown CSV column${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      'csv_invalid',
    );
  }
  return rows.map((cells) => {
    const carrier: Record<string, unknown> = {};
    names.forEach((name, i) => {
      const raw = (cells[i] ?? '').trim();
      if (raw === '') return;
      if (CSV_NUMBERS.has(name)) carrier[name] = Number.isNaN(Number(raw)) ? raw : Number(raw);
      else if (CSV_BOOLEANS.has(name)) carrier[name] = CSV_BOOLEAN[raw.toLowerCase()] ?? raw;
      else if (name === 'equipment_types')
        carrier[name] = raw
          .split(/[;|]/)
          .map((s) => s.trim())
          .filter(Boolean);
      else carrier[name] = raw;
    });
    return { carrier };
  });
}

/** Each raw item checked against the batch item schema; at least one and at most MAX_BATCH. */
export async function validateCarrierItems(
  raw: unknown[],
  pause: Pause = noPause,
): Promise<CheckedCarrierItems> {
  if (raw.length === 0)
    throw validationFailed('body', ['carriers'], 'At least one carrier is required', 'too_small');
  if (raw.length > MAX_BATCH) {
    throw validationFailed('body', ['carriers'], `At most ${MAX_BATCH} carriers per request`, 'too_big');
  }
  const valid: IngestItem[] = [];
  const invalid: ItemOutcome[] = [];
  for (const [index, entry] of raw.entries()) {
    await pause();
    const parsed = batchItemInput.safeParse(entry);
    if (parsed.success) {
      valid.push({
        index,
        path: ['carriers', index, 'carrier'],
        carrier: parsed.data.carrier,
        lanes: parsed.data.lanes ?? [],
      });
      continue;
    }
    const issue = defined(parsed.error.issues[0], 'parsed.error.issues[0]');
    const path = ['carriers', index, ...issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k))];
    const missing = issue.code === 'invalid_type' && issue.message.includes('received undefined');
    // The raw batch item, any JSON value: its members are read as optional and checked with typeof below.
    const maybe = (entry as { carrier?: { name?: unknown; mc_number?: unknown } } | null)?.carrier;
    invalid.push({
      index,
      status: 'failed',
      id: null,
      identifier: typeof maybe?.name === 'string' ? shortened(maybe.name) : `#${index}`,
      external_id: null,
      lanes_created: 0,
      error: {
        code: 'validation_error',
        message: missing ? 'Field required' : issue.message,
        param: pathToParam(path),
        status: 422,
      },
    });
  }
  return { valid, invalid };
}

/** What validateCarrierItems returned in a body worker, as it came back across threads. */
export const carrierItemsChecked = (checked: {
  failed: unknown[];
  valid: unknown[];
}): CheckedCarrierItems => ({
  // Structured clones of validateCarrierItems' own output (plain data): the same shapes.
  invalid: checked.failed as ItemOutcome[],
  // Structured clones of validateCarrierItems' own output (plain data): the same shapes.
  valid: checked.valid as IngestItem[],
});
