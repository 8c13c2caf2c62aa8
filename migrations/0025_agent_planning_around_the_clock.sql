CREATE TABLE "agent_review_items" (
	"offer_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"load_id" text NOT NULL,
	"requested_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"escalated_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "agent_settings" ADD COLUMN "carrier_min_gap_minutes" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_settings" ADD COLUMN "group_lane_loads" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_settings" ADD COLUMN "review_escalation_minutes" integer DEFAULT 15 NOT NULL;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "preferred_channel" text;--> statement-breakpoint
ALTER TABLE "outreaches" ADD COLUMN "bundle_id" text;--> statement-breakpoint
ALTER TABLE "agent_review_items" ADD CONSTRAINT "agent_review_items_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_review_items" ADD CONSTRAINT "agent_review_items_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_review_items_open_idx" ON "agent_review_items" USING btree ("organization_id","requested_at");--> statement-breakpoint
CREATE INDEX "agent_review_items_unescalated_idx" ON "agent_review_items" USING btree ("requested_at") WHERE "agent_review_items"."escalated_at" IS NULL;--> statement-breakpoint
CREATE INDEX "outreaches_bundle_idx" ON "outreaches" USING btree ("bundle_id") WHERE "outreaches"."bundle_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "carriers" ADD CONSTRAINT "carriers_preferred_channel_check" CHECK ("carriers"."preferred_channel" IN ('call', 'email', 'whatsapp'));