import { batchEnvelope } from '../../domain/batch-envelope.js';
/**
 * The upsert of loads behind POST /loads and POST /loads/batch: each item screened on its own
 * (rate fields, identifiers repeated within the request), matched to its stored load, merged, and
 * written with its stops and webhook events in one transaction; then the batch result.
 */

import type { Db, Tx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import {
  type Item,
  type ItemError,
  type ItemOutcome,
  type ItemStatus,
  itemError,
  type Path,
} from './loads-batch-items.js';
import { emitEvents } from './loads-events.js';
import { derivedColumns, loadIdentifier, mergeLoad, storedStops } from './loads-ingestion.js';
import type { LoadInput } from './loads-input-schemas.js';
import {
  findLoadsByIdentifiers,
  insertLoads,
  type LoadRow,
  statusMappingsOf,
  updateLoads,
} from './loads-repository.js';
import { forbiddenRateField } from './loads-responses.js';
import type { LoadBatchResult } from './loads-schemas.js';
import { sameLoad, sameStops } from './loads-unchanged.js';

/** Where an item's field is named from: the body root of a batch (`loads[3].stops`), else the load. */
type PathOf = (index: number, ...path: Path) => Path;

export const IDENTIFIERS = ['tms_load_id', 'external_id', 'load_number'] as const;
type Seen = Record<(typeof IDENTIFIERS)[number], Map<string, number>>;

const refusal = (index: number, input: LoadInput, status: ItemStatus, error: ItemError): ItemOutcome => ({
  index,
  status,
  id: null,
  externalId: input.external_id ?? null,
  identifier: loadIdentifier(input),
  error,
});

/** The `data` of load.* webhook events: the load's identifiers and status. */
const loadEventData = (r: LoadRow) => ({
  load_id: r.id,
  tms_load_id: r.tms_load_id,
  external_id: r.external_id,
  load_number: r.load_number,
  load_status: r.load_status,
});

/** `prefix` is ['loads'] for a batch (fields named from the body root), [] for a single load. */
export const pathOf =
  (prefix: Path): PathOf =>
  (index, ...path) =>
    prefix.length ? [...prefix, index, ...path] : path;

/**
 * What can be refused before reading the database: a rate field the caller may not write, or an
 * identifier an earlier item of the same request already has (the item is skipped).
 */
export function screenItems(
  scope: OrgScope,
  items: Item[],
  at: PathOf,
): { outcomes: ItemOutcome[]; accepted: Item[]; seen: Seen } {
  const outcomes: ItemOutcome[] = [];
  const seen: Seen = {
    tms_load_id: new Map<string, number>(),
    external_id: new Map<string, number>(),
    load_number: new Map<string, number>(),
  };
  const accepted: Item[] = [];
  for (const item of items) {
    const refused = forbiddenRateField(scope.principal, item.input);
    if (refused) {
      outcomes.push(
        refusal(
          item.index,
          item.input,
          'failed',
          itemError(
            'insufficient_permissions',
            at(item.index, refused),
            'only API keys, OWNERs and ADMINs may set it',
          ),
        ),
      );
      continue;
    }
    const repeated = IDENTIFIERS.find((k) => {
      const v = item.input[k];
      return v != null && seen[k].has(v);
    });
    if (repeated) {
      outcomes.push(
        refusal(
          item.index,
          item.input,
          'skipped',
          itemError(
            'duplicate_in_batch',
            at(item.index, repeated),
            `repeats the ${repeated} of loads[${seen[repeated].get(defined(item.input[repeated], 'item.input[repeated]'))}]`,
          ),
        ),
      );
      continue;
    }
    for (const k of IDENTIFIERS) {
      const v = item.input[k];
      if (v != null) seen[k].set(v, item.index);
    }
    accepted.push(item);
  }
  return { outcomes, accepted, seen };
}

/** The rows an upsert writes, with each item's outcome. */
export interface Plan {
  /** Items refused once matched (identifier of another load, same load twice, too few stops). */
  refused: ItemOutcome[];
  results: ItemOutcome[];
  created: LoadRow[];
  updated: LoadRow[];
  /** The stored row of each matched load, as it was read. */
  before: Map<string, LoadRow>;
}

/** The stored load each accepted item matches (tms_load_id, then external_id, then load_number). */
function matcher(stored: LoadRow[]) {
  const owners = {
    tms_load_id: new Map(
      stored.filter((l) => l.tms_load_id).map((l) => [defined(l.tms_load_id, 'l.tms_load_id'), l]),
    ),
    external_id: new Map(
      stored.filter((l) => l.external_id).map((l) => [defined(l.external_id, 'l.external_id'), l]),
    ),
    load_number: new Map(stored.map((l) => [l.load_number, l])),
  };
  return {
    owners,
    match: (input: LoadInput) =>
      (input.tms_load_id ? owners.tms_load_id.get(input.tms_load_id) : undefined) ??
      (input.external_id ? owners.external_id.get(input.external_id) : undefined) ??
      owners.load_number.get(input.load_number) ??
      null,
  };
}

/** Matches each accepted item to its stored load and merges what was sent into the row to write. */
function planWrites(
  scope: OrgScope,
  accepted: Item[],
  stored: LoadRow[],
  mappings: ReadonlyMap<string, string>,
  at: PathOf,
  now: Date,
): Plan {
  const { owners, match: matchOf } = matcher(stored);
  const claimed = new Map<string, number>();
  const plan: Plan = {
    refused: [],
    results: [],
    created: [],
    updated: [],
    before: new Map(),
  };
  for (const { index, input } of accepted) {
    const match = matchOf(input);
    const taken = IDENTIFIERS.find((k) => {
      const owner = input[k] != null ? owners[k].get(defined(input[k], 'input[k]')) : undefined;
      return owner !== undefined && owner.id !== match?.id;
    });
    if (taken) {
      const owner = defined(
        owners[taken].get(defined(input[taken], 'input[taken]')),
        'owners[taken].get(input[taken])',
      );
      plan.refused.push(
        refusal(
          index,
          input,
          'failed',
          itemError('already_exists', at(index, taken), `belongs to another load ('${owner.id}')`),
        ),
      );
      continue;
    }
    if (match && claimed.has(match.id)) {
      plan.refused.push(
        refusal(
          index,
          input,
          'skipped',
          itemError(
            'duplicate_in_batch',
            at(index),
            `matches the same load as loads[${claimed.get(match.id)}]`,
          ),
        ),
      );
      continue;
    }
    if (!match && (input.stops?.length ?? 0) < 2) {
      plan.refused.push(
        refusal(
          index,
          input,
          'failed',
          itemError('validation_error', at(index, 'stops'), 'A new load needs at least two stops'),
        ),
      );
      continue;
    }
    if (match) plan.before.set(match.id, match);
    const row = mergeLoad(scope.organizationId, match, input, mappings, now);
    if (match) claimed.set(match.id, index);
    if (input.stops) {
      // Stops sent again exactly as stored are kept, ids and all.
      const sent = storedStops(input.stops);
      if (!match || !sameStops(sent, match.stops)) row.stops = sent;
    }
    Object.assign(row, derivedColumns(row, row.stops));
    (match ? plan.updated : plan.created).push(row);
    plan.results.push({
      index,
      status: match ? 'updated' : 'created',
      id: row.id,
      externalId: row.external_id,
      identifier: loadIdentifier(row),
      error: null,
    });
  }
  return plan;
}

/**
 * Writes the planned loads (their stops in the row) and the load.* events. A matched load whose
 * merged row equals what is stored is not written at all: its updated_at, its stop ids and its
 * events stay as they were (a TMS sync re-sending unchanged loads costs a read).
 */
export async function writePlan(tx: Tx, scope: OrgScope, plan: Plan): Promise<void> {
  const { created, updated, before } = plan;
  const written = updated.filter((row) => !sameLoad(row, defined(before.get(row.id), 'before.get(row.id)')));
  await insertLoads(tx, created);
  await updateLoads(
    tx,
    scope,
    written.map((r) =>
      r.stops === defined(before.get(r.id), 'before.get(r.id)').stops ? { ...r, stops: undefined } : r,
    ),
  );
  const previousStatus = (r: LoadRow) => defined(before.get(r.id), 'before.get(r.id)').load_status ?? null;
  await emitEvents(tx, scope.organizationId, [
    ...created.map((r) => ({ type: 'load.created' as const, data: loadEventData(r) })),
    ...written.map((r) => ({ type: 'load.updated' as const, data: loadEventData(r) })),
    ...written
      .filter((r) => previousStatus(r) !== (r.load_status ?? null))
      .map((r) => ({
        type: 'load.status_changed' as const,
        data: { ...loadEventData(r), previous_load_status: previousStatus(r) },
      })),
  ]);
}

/**
 * Upserts the screened items in one transaction: the outcomes of the items refused once matched,
 * then those of the items written.
 */
export async function applyItems(
  db: Db,
  scope: OrgScope,
  screened: { accepted: Item[]; seen: Seen },
  at: PathOf,
  now: Date,
): Promise<ItemOutcome[]> {
  const { accepted, seen } = screened;
  const mappings = await statusMappingsOf(db, scope);
  return db.transaction(async (tx) => {
    const stored = await findLoadsByIdentifiers(tx, scope, {
      tmsLoadIds: [...seen.tms_load_id.keys()],
      externalIds: [...seen.external_id.keys()],
      loadNumbers: [...seen.load_number.keys()],
    });
    const plan = planWrites(scope, accepted, stored, mappings, at, now);
    await writePlan(tx, scope, plan);
    return [...plan.refused, ...plan.results];
  });
}

export function batchResult(outcomes: ItemOutcome[], processedAt: Date): LoadBatchResult {
  const envelope = batchEnvelope(
    outcomes.map((o) => ({ ...o, external_id: o.externalId })),
    (o, shared) => ({ load_identifier: o.identifier, load_id: o.id, ...shared }),
    processedAt,
  );
  return { ...envelope, total_loads: outcomes.length };
}
