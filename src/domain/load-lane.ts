/** What the agent's carrier selection reads of a load: its lane (first pickup, last drop-off) and equipment. */
export type LoadLane = {
  id: string;
  origin_city: string | null;
  origin_state: string | null;
  destination_city: string | null;
  destination_state: string | null;
  equipment_type: string;
};
