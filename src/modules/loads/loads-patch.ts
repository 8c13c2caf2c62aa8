/**
 * PATCH /loads/{load_id}: a partial update of one load found by its id. Only the fields sent
 * change, through the same merge, derived columns, unchanged check and load.* events as the
 * upsert; an identifier sent that another load holds is 409 `already_exists` on that field.
 */

import type { Db } from '../../db/client.js';
import { conflict, notFound } from '../../domain/errors.js';
import type { OrgScope } from '../../domain/scope.js';
import { derivedColumns, mergeLoad, storedStops } from './loads-ingestion.js';
import type { LoadInput, LoadPatch } from './loads-input-schemas.js';
import { findLoadsByIdentifiers, statusMappingsOf } from './loads-repository.js';
import { sameStops } from './loads-unchanged.js';
import { IDENTIFIERS, writePlan } from './loads-upsert.js';

const sent = (v: string | null | undefined) => (v == null ? [] : [v]);

/** Applies `patch` to the organization's load `id`; 404 when it has none. */
export async function patchLoad(db: Db, scope: OrgScope, id: string, patch: LoadPatch, now: Date) {
  const mappings = await statusMappingsOf(db, scope);
  await db.transaction(async (tx) => {
    // The load and every load holding an identifier sent, locked in id order as the upsert does.
    const locked = await findLoadsByIdentifiers(tx, scope, {
      loadIds: [id],
      tmsLoadIds: sent(patch.tms_load_id),
      externalIds: sent(patch.external_id),
      loadNumbers: sent(patch.load_number),
    });
    const stored = locked.find((l) => l.id === id);
    if (!stored) throw notFound('Load', id, 'load_id');
    for (const field of IDENTIFIERS) {
      const value = patch[field];
      const holder = value == null ? undefined : locked.find((l) => l.id !== id && l[field] === value);
      if (holder) throw conflict(`${field} '${value}' belongs to another load ('${holder.id}')`, field);
    }
    const input = {
      ...patch,
      load_number: patch.load_number ?? stored.load_number,
      // A stored equipment_type was written only through the EQUIPMENT_TYPES enum of the input schema.
      equipment_type: patch.equipment_type ?? (stored.equipment_type as LoadInput['equipment_type']),
    };
    const row = mergeLoad(scope.organizationId, stored, input, mappings, now);
    if (patch.stops) {
      // Stops sent again exactly as stored are kept, ids and all.
      const stops = storedStops(patch.stops);
      if (!sameStops(stops, stored.stops)) row.stops = stops;
    }
    Object.assign(row, derivedColumns(row, row.stops));
    await writePlan(tx, scope, {
      refused: [],
      results: [],
      created: [],
      updated: [row],
      before: new Map([[id, stored]]),
    });
  });
}
