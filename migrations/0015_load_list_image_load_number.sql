-- hand-written
--
-- load_list_image also keeps load_number: it is a sort key of the list, and pageChangesSince
-- compares each changed load's sort key as it is now with the one it had (its `before`). Without
-- it, a page sorted by load_number counted every change to one of its loads as a move and was read
-- again whenever the sync re-rated any load of the list. Entries logged before this migration lack
-- it and still count as moves (a page is read again, never kept wrongly).
CREATE OR REPLACE FUNCTION load_list_image(l loads) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', l.id, 'organization_id', l.organization_id, 'load_number', l.load_number,
    'load_status', l.load_status, 'tms_status', l.tms_status, 'is_posted', l.is_posted, 'mode', l.mode,
    'equipment_type', l.equipment_type, 'customer_name', l.customer_name, 'rep_names', l.rep_names,
    'origin_city', l.origin_city, 'destination_city', l.destination_city,
    'pickup_date', l.pickup_date, 'delivery_date', l.delivery_date, 'created_at', l.created_at,
    'updated_at', l.updated_at, 'last_posted_at', l.last_posted_at, 'distance', l.distance,
    'posted_rate', l.posted_rate, 'search_text', l.search_text)
$$;
