import type { CarrierRow, ContactRow } from './carriers-repository.js';
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
