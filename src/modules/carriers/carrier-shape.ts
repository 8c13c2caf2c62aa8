import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { type CarrierRow, type ContactRow, contactsOf, findCarrier } from './carriers-repository.js';
import type { Carrier } from './carriers-schemas.js';

/** The public Carrier from its row and contacts; the service and batch ingestion both answer with it. */
export function toCarrier(
  row: CarrierRow,
  contacts: ContactRow[] = [],
  laneTier: number | null = null,
): Carrier {
  const { compliance_check_due_at: _due, ...fields } = row;
  return {
    ...fields,
    lane_routing_guide_tier: laneTier,
    effective_routing_guide_tier: laneTier ?? row.routing_guide_tier,
    contacts: contacts.map((c) => ({
      id: c.id,
      contact_type: c.contact_type,
      name: c.name,
      phone: c.phone,
      email: c.email,
      equipment_type: c.equipment_type,
    })),
  };
}

/** A carrier event's payload, read when the event is written (inside the writer's transaction). */
export const carrierPayload = (tx: DbOrTx, scope: OrgScope, id: string) => async () => {
  const row = await findCarrier(tx, scope, id);
  return row ? toCarrier(row, (await contactsOf(tx, scope, [id])).get(id)) : { id };
};
