import type { Db } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { conflict, notFound, unprocessable } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { auditOf, insertAudit } from '../audit/index.js';
import { emitEvent } from './carriers-events.js';
import { findCarrier } from './carriers-repository.js';
import type { DisableForLoadInput, LanePreference, LanePreferenceInput } from './carriers-schemas.js';
import type { lanePreferences, lanes } from './carriers-tables.js';
import {
  ensureLanes,
  findPreference,
  findPreferenceOnLane,
  insertPreferences,
  laneIdentity,
  laneKeyOf,
  listPreferences,
  setPreferenceFields,
} from './lanes-repository.js';

type Reason = { reason?: string | null; reason_note?: string | null };

/** A lazy carrier.* payload: the public Carrier shape read inside the caller's transaction. */
export function toLanePreference(row: {
  preference: typeof lanePreferences.$inferSelect;
  lane: typeof lanes.$inferSelect;
}): LanePreference {
  const { preference: p, lane: l } = row;
  return {
    id: p.id,
    carrier_id: p.carrier_id,
    lane_id: p.lane_id,
    is_active: p.is_active,
    preference_type: p.preference_type,
    routing_guide_tier: p.routing_guide_tier,
    dnu: p.dnu,
    dnu_reason: p.dnu_reason,
    dnu_set_at: p.dnu_set_at,
    created_at: p.created_at,
    updated_at: p.updated_at,
    lane: {
      id: l.id,
      origin: { city: l.origin_city, state: l.origin_state, country: l.origin_country },
      destination: { city: l.destination_city, state: l.destination_state, country: l.destination_country },
      equipment_type: l.equipment_type,
    },
  };
}

/** 404 unless the carrier is the organization's. */
export async function requireCarrier(db: Db, scope: OrgScope, carrierId: string) {
  const row = await findCarrier(db, scope, carrierId);
  if (!row) throw notFound('Carrier', carrierId, 'carrier_id');
  return row;
}

/** A carrier's lane preferences: list, create, disable for a load's lane, restrict, and their audit. */
/**
 * The lane a load names: its first pickup and last drop-off and its equipment; 404 on `load_id`
 * when the organization has no such load. The loads module sits above carriers (a load names its
 * carrier), so the composition root hands its lookup in.
 */
export type LoadLaneReader = (
  scope: OrgScope,
  loadId: string,
) => Promise<{
  origin_city: string | null;
  origin_state: string | null;
  destination_city: string | null;
  destination_state: string | null;
  equipment_type: string | null;
}>;

export class CarrierLanePreferences {
  constructor(
    private readonly db: Db,
    private readonly laneOfLoad: LoadLaneReader,
  ) {}

  /** The audit rows of one of the carrier's lane preferences; 404 when it is not the carrier's. */
  async lanePreferenceAudit(scope: OrgScope, carrierId: string, preferenceId: string) {
    await this.requireCarrier(scope, carrierId);
    if (!(await findPreference(this.db, scope, carrierId, preferenceId))) {
      throw notFound('Lane preference', preferenceId, 'preference_id');
    }
    const rows = await auditOf(this.db, scope, preferenceId);
    return rows.filter((r) => r.entity_type === 'lane_preference');
  }

  private async requireCarrier(scope: OrgScope, carrierId: string) {
    return requireCarrier(this.db, scope, carrierId);
  }

  async listLanePreferences(
    scope: OrgScope,
    carrierId: string,
    q: { page: number; page_size: number; is_active?: boolean },
  ) {
    await this.requireCarrier(scope, carrierId);
    const { rows, total } = await listPreferences(this.db, scope, carrierId, q);
    return { data: rows.map(toLanePreference), pagination: pagination(q.page, q.page_size, total) };
  }

  async createLanePreference(
    scope: OrgScope,
    carrierId: string,
    input: LanePreferenceInput,
  ): Promise<LanePreference> {
    await this.requireCarrier(scope, carrierId);
    const key = laneKeyOf(input);
    const row = await this.db.transaction(async (tx) => {
      const laneIds = await ensureLanes(tx, scope, [key]);
      const laneId = defined(laneIds.get(laneIdentity(key)), 'laneIds.get(laneIdentity(key))');
      const [created] = await insertPreferences(tx, scope, [
        {
          carrier_id: carrierId,
          lane_id: laneId,
          preference_type: input.preference_type ?? 'primary',
          routing_guide_tier: input.routing_guide_tier ?? null,
        },
      ]);
      if (!created) {
        const existing = await findPreferenceOnLane(tx, scope, carrierId, laneId);
        throw conflict(
          `The carrier already has a preference on this lane ('${existing?.preference.id}')`,
          'origin',
        );
      }
      // Read back in the transaction: the answer comes with the commit, never after it.
      return defined(await findPreference(tx, scope, carrierId, created.id), 'findPreference');
    });
    return toLanePreference(row);
  }

  /**
   * docs/decisions/0020-one-contact-guard.md: an `admin_disabled` preference on the load's lane: the load's first pickup
   * and last drop-off (cities and states) and its equipment, the narrowest lane the load names. A
   * preference the carrier already holds on that lane turns admin_disabled (and active); audited.
   */
  async disableForLoad(
    scope: OrgScope,
    carrierId: string,
    input: DisableForLoadInput,
  ): Promise<{ created: boolean; preference: LanePreference }> {
    await this.requireCarrier(scope, carrierId);
    const load = await this.laneOfLoad(scope, input.load_id);
    if (!load.origin_state || !load.destination_state) {
      throw unprocessable(
        'validation_error',
        `Load '${input.load_id}' has no pickup and drop-off states, so it names no lane`,
        'load_id',
      );
    }
    const key = laneKeyOf({
      origin: { city: load.origin_city, state: load.origin_state },
      destination: { city: load.destination_city, state: load.destination_state },
      // The app writes a load's equipment_type only through the EQUIPMENT_TYPES enum of its input schema.
      equipment_type: load.equipment_type as LanePreferenceInput['equipment_type'],
    });
    const { id, created } = await this.db.transaction(async (tx) => {
      const laneId = defined((await ensureLanes(tx, scope, [key])).get(laneIdentity(key)), 'ensureLanes');
      const [inserted] = await insertPreferences(tx, scope, [
        {
          carrier_id: carrierId,
          lane_id: laneId,
          preference_type: 'admin_disabled',
          routing_guide_tier: null,
        },
      ]);
      const current = inserted
        ? null
        : defined(await findPreferenceOnLane(tx, scope, carrierId, laneId), 'findPreferenceOnLane')
            .preference;
      const preferenceId = inserted?.id ?? defined(current, 'current').id;
      if (current && current.preference_type === 'admin_disabled' && current.is_active) {
        return { id: preferenceId, created: false };
      }
      if (current) {
        await setPreferenceFields(tx, scope, preferenceId, {
          preference_type: 'admin_disabled',
          is_active: true,
        });
      }
      await insertAudit(
        tx,
        scope,
        [
          {
            entity_type: 'lane_preference',
            entity_id: preferenceId,
            action: 'disable_for_load',
            reason: input.reason ?? null,
            reason_note: input.reason_note ?? null,
            before: current
              ? { preference_type: current.preference_type, is_active: current.is_active }
              : null,
            after: { preference_type: 'admin_disabled', is_active: true, load_id: input.load_id },
          },
        ],
        () => newId('audit'),
      );
      return { id: preferenceId, created: inserted !== undefined };
    });
    return {
      created,
      preference: toLanePreference(
        defined(await findPreference(this.db, scope, carrierId, id), 'findPreference'),
      ),
    };
  }

  /** Restrict (dnu on) or unrestrict (dnu off); a change is audited, a repeat returns the row as is. */
  setRestricted(
    scope: OrgScope,
    carrierId: string,
    preferenceId: string,
    restricted: boolean,
    reason: Reason,
  ): Promise<LanePreference> {
    return this.change(scope, carrierId, preferenceId, reason, (p) =>
      p.dnu === restricted
        ? null
        : {
            action: restricted ? 'restrict' : 'unrestrict',
            event: restricted ? 'lane_preference.restricted' : 'lane_preference.unrestricted',
            before: { dnu: p.dnu, dnu_reason: p.dnu_reason, dnu_set_at: p.dnu_set_at },
            after: restricted
              ? { dnu: true, dnu_reason: reason.reason ?? null, dnu_set_at: productNow }
              : { dnu: false, dnu_reason: null, dnu_set_at: null },
          },
    );
  }

  /**
   * PATCH .../lane-preferences/{id}: switches `is_active` (whether the carrier is worked on the
   * lane); the preference type and any restriction stay. Audited; a repeat returns the row as is.
   */
  setActive(
    scope: OrgScope,
    carrierId: string,
    preferenceId: string,
    input: { is_active: boolean } & Reason,
  ): Promise<LanePreference> {
    return this.change(scope, carrierId, preferenceId, input, (p) =>
      p.is_active === input.is_active
        ? null
        : {
            action: input.is_active ? 'activate' : 'deactivate',
            event: 'lane_preference.updated',
            before: { is_active: p.is_active },
            after: { is_active: input.is_active },
          },
    );
  }

  /**
   * One audited change of a preference, locked: `plan` says what to write (null: nothing, the
   * preference is already so), then the audit row and the event go in the same transaction.
   */
  private async change(
    scope: OrgScope,
    carrierId: string,
    preferenceId: string,
    reason: Reason,
    plan: (current: typeof lanePreferences.$inferSelect) => {
      action: string;
      event: 'lane_preference.restricted' | 'lane_preference.unrestricted' | 'lane_preference.updated';
      before: Record<string, unknown>;
      after: Parameters<typeof setPreferenceFields>[3];
    } | null,
  ): Promise<LanePreference> {
    await this.db.transaction(async (tx) => {
      const current = await findPreference(tx, scope, carrierId, preferenceId, true);
      if (!current) throw notFound('Lane preference', preferenceId, 'preference_id');
      const change = plan(current.preference);
      if (!change) return;
      await setPreferenceFields(tx, scope, preferenceId, change.after);
      await insertAudit(
        tx,
        scope,
        [
          {
            entity_type: 'lane_preference',
            entity_id: preferenceId,
            action: change.action,
            reason: reason.reason ?? null,
            reason_note: reason.reason_note ?? null,
            before: change.before,
            after: change.after,
          },
        ],
        () => newId('audit'),
      );
      await emitEvent(tx, scope.organizationId, change.event, async () =>
        toLanePreference(defined(await findPreference(tx, scope, carrierId, preferenceId), 'findPreference')),
      );
    });
    return toLanePreference(
      defined(await findPreference(this.db, scope, carrierId, preferenceId), 'findPreference'),
    );
  }
}
