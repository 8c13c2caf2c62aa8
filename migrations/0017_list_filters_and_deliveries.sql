CREATE INDEX "calls_organization_call_time_idx" ON "calls" USING btree ("organization_id","call_time","id");--> statement-breakpoint
CREATE INDEX "calls_organization_start_idx" ON "calls" USING btree ("organization_id","call_start_time" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_organization_end_idx" ON "calls" USING btree ("organization_id","call_end_time" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_organization_status_idx" ON "calls" USING btree ("organization_id","status","id");--> statement-breakpoint
CREATE INDEX "offers_organization_updated_idx" ON "offers" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "offers_organization_amount_idx" ON "offers" USING btree ("organization_id","offer_amount","id");--> statement-breakpoint
CREATE INDEX "offers_organization_accepted_idx" ON "offers" USING btree ("organization_id","accepted_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "outreaches_organization_updated_idx" ON "outreaches" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "outreaches_organization_status_idx" ON "outreaches" USING btree ("organization_id","status","id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt_number");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_organization_idx" ON "webhook_deliveries" USING btree ("organization_id","created_at","id");