CREATE TABLE "load_change_marks" (
	"taken_at" timestamp (3) with time zone PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"snapshot_xmin" "xid8" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "load_changes" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "load_changes_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" text NOT NULL,
	"xid" "xid8" NOT NULL,
	"load_ids" text[] NOT NULL,
	"befores" jsonb[]
);
--> statement-breakpoint
CREATE TABLE "load_changes_horizon" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"snapshot_xmin" "xid8" NOT NULL,
	CONSTRAINT "load_changes_horizon_one_row" CHECK ("load_changes_horizon"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "load_facet_counts" (
	"organization_id" text NOT NULL,
	"facet" text NOT NULL,
	"value" text NOT NULL,
	"load_status" text NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "load_facet_counts_organization_id_facet_value_load_status_pk" PRIMARY KEY("organization_id","facet","value","load_status")
);
--> statement-breakpoint
CREATE TABLE "load_filter_values" (
	"organization_id" text NOT NULL,
	"field" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "load_filter_values_organization_id_field_value_pk" PRIMARY KEY("organization_id","field","value")
);
--> statement-breakpoint
ALTER TABLE "loads" ADD COLUMN "distance_key" bigint GENERATED ALWAYS AS ((CASE WHEN "loads"."distance" < 0 THEN -1 - ('x' || encode(float8send(-"loads"."distance"), 'hex'))::bit(64)::bigint ELSE ('x' || encode(float8send(abs("loads"."distance")), 'hex'))::bit(64)::bigint END)) STORED;--> statement-breakpoint
CREATE INDEX "load_changes_organization_xid_idx" ON "load_changes" USING btree ("organization_id","xid");--> statement-breakpoint
CREATE INDEX "loads_organization_last_posted_idx" ON "loads" USING btree ("organization_id","last_posted_at","id");--> statement-breakpoint
CREATE INDEX "loads_organization_rate_idx" ON "loads" USING btree ("organization_id","posted_rate") WHERE "loads"."posted_rate" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "loads_organization_rate_null_idx" ON "loads" USING btree ("organization_id","id") WHERE "loads"."posted_rate" IS NULL;--> statement-breakpoint
CREATE INDEX "loads_organization_distance_idx" ON "loads" USING btree ("organization_id","distance_key") WHERE "loads"."distance_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "loads_organization_distance_null_idx" ON "loads" USING btree ("organization_id","id") WHERE "loads"."distance_key" IS NULL;--> statement-breakpoint
CREATE INDEX "loads_organization_customer_idx" ON "loads" USING btree ("organization_id","customer_name","load_status");--> statement-breakpoint
CREATE INDEX "loads_organization_origin_city_idx" ON "loads" USING btree ("organization_id","origin_city","load_status");--> statement-breakpoint
CREATE INDEX "loads_organization_destination_city_idx" ON "loads" USING btree ("organization_id","destination_city","load_status");--> statement-breakpoint
CREATE INDEX "loads_rep_names_idx" ON "loads" USING gin ("rep_names");--> statement-breakpoint
-- hand-written
--
-- Statement triggers on loads keep, in the same transaction as every write:
-- - load_filter_values: the distinct customer_name, origin_city and destination_city of each
--   organization (never removed), which case-insensitive and substring filters resolve to exact
--   values before reading the (organization_id, column) indexes;
-- - load_facet_counts: loads per facet value and load_status (the counts of the few-valued
--   filters and of rep names), as load_status_counts does for statuses;
-- - load_changes: the loads each statement wrote, with their rows as they were (null when
--   inserted), which bring a count taken at an older snapshot up to date.
-- Rows are inserted in key order so concurrent writers take their locks in the same order. An
-- update only touches what changed (EXCEPT between the old and new rows): a sync re-sending a
-- load with a new rate writes no dictionary value and no count.
--
-- load_list_image: the columns of a load the list's filters read (loads-repository
-- filterConditions, row form), which is all a count brought up to date needs of a row as it was.
-- A test changes every filtered column between two counts: a column missing here fails it.
CREATE OR REPLACE FUNCTION load_list_image(l loads) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', l.id, 'organization_id', l.organization_id, 'load_status', l.load_status,
    'tms_status', l.tms_status, 'is_posted', l.is_posted, 'mode', l.mode,
    'equipment_type', l.equipment_type, 'customer_name', l.customer_name, 'rep_names', l.rep_names,
    'origin_city', l.origin_city, 'destination_city', l.destination_city,
    'pickup_date', l.pickup_date, 'delivery_date', l.delivery_date, 'created_at', l.created_at,
    'updated_at', l.updated_at, 'last_posted_at', l.last_posted_at, 'distance', l.distance,
    'posted_rate', l.posted_rate, 'search_text', l.search_text)
$$;
--> statement-breakpoint
-- The facet values a load is counted under (see load_facet_counts).
CREATE OR REPLACE FUNCTION load_facets(tms_status text, mode text, equipment_type text, is_posted boolean,
  rep_names text[]) RETURNS TABLE (facet text, value text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT f.facet, f.value FROM (VALUES ('tms_status', lower(tms_status)), ('mode', mode),
    ('equipment_type', equipment_type), ('is_posted', is_posted::text)) AS f(facet, value)
  WHERE f.value IS NOT NULL
  UNION ALL
  SELECT DISTINCT 'rep_name', name FROM unnest(rep_names) AS name WHERE name IS NOT NULL
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION load_list_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO load_filter_values (organization_id, field, value)
    SELECT DISTINCT r.organization_id, f.field, f.value
    FROM new_rows r
    CROSS JOIN LATERAL (VALUES ('customer_name', r.customer_name), ('origin_city', r.origin_city),
                               ('destination_city', r.destination_city)) AS f(field, value)
    WHERE f.value IS NOT NULL
    ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING;
    INSERT INTO load_facet_counts AS c (organization_id, facet, value, load_status, n)
    SELECT r.organization_id, f.facet, f.value, coalesce(r.load_status, ''), count(*)
    FROM new_rows r
    CROSS JOIN LATERAL load_facets(r.tms_status, r.mode, r.equipment_type, r.is_posted, r.rep_names) AS f
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (organization_id, facet, value, load_status) DO UPDATE SET n = c.n + excluded.n;
    INSERT INTO load_changes (organization_id, xid, load_ids)
    SELECT organization_id, pg_current_xact_id(), array_agg(id) FROM new_rows GROUP BY organization_id;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO load_filter_values (organization_id, field, value)
    SELECT DISTINCT r.organization_id, f.field, f.value
    FROM (SELECT organization_id, customer_name, origin_city, destination_city FROM new_rows
          EXCEPT SELECT organization_id, customer_name, origin_city, destination_city FROM old_rows) r
    CROSS JOIN LATERAL (VALUES ('customer_name', r.customer_name), ('origin_city', r.origin_city),
                               ('destination_city', r.destination_city)) AS f(field, value)
    WHERE f.value IS NOT NULL
    ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING;
    INSERT INTO load_facet_counts AS c (organization_id, facet, value, load_status, n)
    SELECT r.organization_id, f.facet, f.value, coalesce(r.load_status, ''), sum(r.sign)
    FROM (
      SELECT *, 1 AS sign FROM (
        SELECT organization_id, load_status, tms_status, mode, equipment_type, is_posted, rep_names FROM new_rows
        EXCEPT ALL
        SELECT organization_id, load_status, tms_status, mode, equipment_type, is_posted, rep_names FROM old_rows) n
      UNION ALL
      SELECT *, -1 FROM (
        SELECT organization_id, load_status, tms_status, mode, equipment_type, is_posted, rep_names FROM old_rows
        EXCEPT ALL
        SELECT organization_id, load_status, tms_status, mode, equipment_type, is_posted, rep_names FROM new_rows) o
    ) r
    CROSS JOIN LATERAL load_facets(r.tms_status, r.mode, r.equipment_type, r.is_posted, r.rep_names) AS f
    GROUP BY 1, 2, 3, 4
    HAVING sum(r.sign) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (organization_id, facet, value, load_status) DO UPDATE SET n = c.n + excluded.n;
    -- Loads never move between organizations: each is logged under the one it belongs to.
    INSERT INTO load_changes (organization_id, xid, load_ids, befores)
    SELECT organization_id, pg_current_xact_id(), array_agg(id ORDER BY id), array_agg(load_list_image(o) ORDER BY id)
    FROM old_rows o GROUP BY organization_id;
  ELSE
    UPDATE load_facet_counts c SET n = c.n - d.n
    FROM (SELECT r.organization_id, f.facet, f.value, coalesce(r.load_status, '') AS load_status, count(*) AS n
          FROM old_rows r
          CROSS JOIN LATERAL load_facets(r.tms_status, r.mode, r.equipment_type, r.is_posted, r.rep_names) AS f
          GROUP BY 1, 2, 3, 4) d
    WHERE c.organization_id = d.organization_id AND c.facet = d.facet AND c.value = d.value
      AND c.load_status = d.load_status;
    INSERT INTO load_changes (organization_id, xid, load_ids, befores)
    SELECT organization_id, pg_current_xact_id(), array_agg(id ORDER BY id), array_agg(load_list_image(o) ORDER BY id)
    FROM old_rows o GROUP BY organization_id;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER loads_list_sync_insert AFTER INSERT ON loads
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION load_list_sync();
--> statement-breakpoint
CREATE TRIGGER loads_list_sync_update AFTER UPDATE ON loads
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION load_list_sync();
--> statement-breakpoint
CREATE TRIGGER loads_list_sync_delete AFTER DELETE ON loads
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION load_list_sync();
--> statement-breakpoint
-- Purging load_changes: each run marks (now, the log's last seq, the current snapshot's xmin),
-- then drops the entries older than the newest mark taken at least `keep` ago, and raises the
-- horizon to that mark's xmin. Every entry of a transaction at or above the horizon is kept, so a
-- count taken at a snapshot whose xmin is not below the horizon can still be brought up to date.
CREATE OR REPLACE FUNCTION load_changes_purge(keep interval) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  m load_change_marks;
BEGIN
  INSERT INTO load_change_marks (taken_at, seq, snapshot_xmin)
  VALUES (clock_timestamp(), coalesce((SELECT max(seq) FROM load_changes), 0),
          pg_snapshot_xmin(pg_current_snapshot()))
  ON CONFLICT DO NOTHING;
  SELECT * INTO m FROM load_change_marks
  WHERE taken_at <= clock_timestamp() - keep ORDER BY taken_at DESC LIMIT 1;
  IF FOUND THEN
    UPDATE load_changes_horizon SET snapshot_xmin = m.snapshot_xmin WHERE snapshot_xmin < m.snapshot_xmin;
    DELETE FROM load_changes WHERE seq <= m.seq AND xid < m.snapshot_xmin;
    DELETE FROM load_change_marks WHERE taken_at < m.taken_at;
  END IF;
END;
$$;
--> statement-breakpoint
INSERT INTO load_changes_horizon (id, snapshot_xmin) VALUES (1, pg_snapshot_xmin(pg_current_snapshot()));
--> statement-breakpoint
INSERT INTO load_filter_values (organization_id, field, value)
SELECT DISTINCT l.organization_id, f.field, f.value
FROM loads l
CROSS JOIN LATERAL (VALUES ('customer_name', l.customer_name), ('origin_city', l.origin_city),
                           ('destination_city', l.destination_city)) AS f(field, value)
WHERE f.value IS NOT NULL
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO load_facet_counts (organization_id, facet, value, load_status, n)
SELECT l.organization_id, f.facet, f.value, coalesce(l.load_status, ''), count(*)
FROM loads l
CROSS JOIN LATERAL load_facets(l.tms_status, l.mode, l.equipment_type, l.is_posted, l.rep_names) AS f
GROUP BY 1, 2, 3, 4;
