CREATE UNIQUE INDEX "offers_one_accepted_per_load_key" ON "offers" USING btree ("load_id") WHERE "offers"."status" = 'accepted';--> statement-breakpoint
CREATE INDEX "offers_organization_carrier_idx" ON "offers" USING btree ("organization_id","carrier_id","created_at");--> statement-breakpoint
CREATE INDEX "outreaches_organization_carrier_idx" ON "outreaches" USING btree ("organization_id","carrier_id","created_at");--> statement-breakpoint
CREATE INDEX "outreaches_call_idx" ON "outreaches" USING btree ("call_id") WHERE "outreaches"."call_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "outreaches_open_message_idx" ON "outreaches" USING btree ("created_at") WHERE "outreaches"."modality" IN ('email', 'whatsapp') AND "outreaches"."status" IN ('pending', 'active');