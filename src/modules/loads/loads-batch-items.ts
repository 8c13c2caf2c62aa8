import { locPath, pathToParam } from '../../domain/errors.js';
import { defined } from '../../lib/defined.js';
import { loadIdentifier } from './loads-ingestion.js';
import { type LoadInput, loadInput } from './loads-input-schemas.js';

/**
 * The items of a load batch checked against the load schema, before anything is read or written.
 * This runs in a body worker thread for large batches (http/body-worker.ts), so it holds no
 * database or request state.
 */

export type ItemStatus = 'created' | 'updated' | 'skipped' | 'failed';
export interface ItemError {
  code: string;
  message: string;
  param: string | null;
}
export interface ItemOutcome {
  index: number;
  status: ItemStatus;
  id: string | null;
  externalId: string | null;
  identifier: string | null;
  error: ItemError | null;
}
/** A batch's items once checked: the valid ones, and an outcome for each of the others. */
export interface ValidatedItems {
  outcomes: ItemOutcome[];
  valid: Item[];
}

export interface Item {
  index: number;
  input: LoadInput;
}

export type Path = (string | number)[];

export function itemError(code: string, path: Path, message: string): ItemError {
  const param = pathToParam(path);
  return { code, message: param ? `${param}: ${message}` : message, param };
}

/** What validateBatchItems leaves in place of a raw item it has validated. */
const RELEASED: Record<string, unknown> = Object.freeze({});

/**
 * The items of a batch body validated one by one: the valid ones, and an outcome for each other.
 * `raw` is emptied as it goes (each entry replaced once validated): the caller must not read it
 * afterwards.
 */
export async function validateBatchItems(
  raw: Record<string, unknown>[],
  pause: () => Promise<void> | undefined = () => undefined,
): Promise<ValidatedItems> {
  const outcomes: ItemOutcome[] = [];
  const valid: Item[] = [];
  for (const [index, item] of raw.entries()) {
    await pause();
    const parsed = loadInput.safeParse(item);
    // The parsed JSON is done with once validated: let it go rather than hold it, beside its
    // validated copy, until the whole batch is written.
    raw[index] = RELEASED;
    if (parsed.success) {
      valid.push({ index, input: parsed.data });
      continue;
    }
    const issue = defined(parsed.error.issues[0], 'parsed.error.issues[0]');
    outcomes.push({
      index,
      status: 'failed',
      id: null,
      externalId: textOrNull(item.external_id),
      // The item failed validation, so any of its identifiers may be of the wrong type.
      identifier: loadIdentifier({
        tms_load_id: textOrNull(item.tms_load_id),
        external_id: textOrNull(item.external_id),
        load_number: item.load_number,
      }),
      error: itemError('validation_error', ['loads', index, ...locPath(issue.path)], issue.message),
    });
  }
  return { outcomes, valid };
}

const textOrNull = (v: unknown) => (typeof v === 'string' ? v : null);

/** What validateBatchItems returned in a body worker, as it came back across threads. */
export const loadItemsChecked = (checked: { failed: unknown[]; valid: unknown[] }): ValidatedItems => ({
  // Structured clones of validateBatchItems' own output (plain data): the same shapes.
  outcomes: checked.failed as ItemOutcome[],
  // Structured clones of validateBatchItems' own output (plain data): the same shapes.
  valid: checked.valid as Item[],
});
