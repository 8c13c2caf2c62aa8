-- hand-written
--
-- Covering filter indexes for the load list (drizzle's index builder has no INCLUDE, so the
-- schema in loads-tables.ts declares the key columns and this migration adds the rest; the
-- names stay the same, so a later generated migration leaves them alone).
--
-- A customer or city filter combined with a tab, a status or a pickup/delivery range, and the
-- page of such a list in the default order, read these entries only (an index-only scan): the
-- load's id (a tab's EXISTS joins on it), created_at (the default sort), and the two date
-- columns. A pickup or delivery range combined with a status or a few-valued filter, and its page
-- in the default order, likewise read the date index alone. Without these columns every matching
-- load was read from the table (a heap page per load), which cost hundreds of milliseconds for a
-- few thousand matches once the table no longer fit in shared buffers.
--
-- Building them locks loads against writes for the length of the build (about 20 seconds for the
-- five at a million loads on a 2-core machine): run this migration outside a busy sync.
DROP INDEX IF EXISTS "loads_organization_customer_idx";--> statement-breakpoint
CREATE INDEX "loads_organization_customer_idx" ON "loads" USING btree ("organization_id","customer_name","load_status")
  INCLUDE ("id","created_at","pickup_date","delivery_date");--> statement-breakpoint
DROP INDEX IF EXISTS "loads_organization_origin_city_idx";--> statement-breakpoint
CREATE INDEX "loads_organization_origin_city_idx" ON "loads" USING btree ("organization_id","origin_city","load_status")
  INCLUDE ("id","created_at","pickup_date","delivery_date");--> statement-breakpoint
DROP INDEX IF EXISTS "loads_organization_destination_city_idx";--> statement-breakpoint
CREATE INDEX "loads_organization_destination_city_idx" ON "loads" USING btree ("organization_id","destination_city","load_status")
  INCLUDE ("id","created_at","pickup_date","delivery_date");--> statement-breakpoint
DROP INDEX IF EXISTS "loads_organization_pickup_idx";--> statement-breakpoint
CREATE INDEX "loads_organization_pickup_idx" ON "loads" USING btree ("organization_id","pickup_date","id")
  INCLUDE ("created_at","load_status","tms_status","mode","equipment_type","is_posted");--> statement-breakpoint
DROP INDEX IF EXISTS "loads_organization_delivery_idx";--> statement-breakpoint
CREATE INDEX "loads_organization_delivery_idx" ON "loads" USING btree ("organization_id","delivery_date","id")
  INCLUDE ("created_at","load_status","tms_status","mode","equipment_type","is_posted");
