CREATE TABLE "agent_load_states" (
	"load_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"waves_planned" integer DEFAULT 0 NOT NULL,
	"last_wave_tier" integer,
	"next_wave_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp (3) with time zone,
	"last_decision" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"outreach_id" text,
	"load_id" text,
	"carrier_id" text,
	"channel" text NOT NULL,
	"direction" text NOT NULL,
	"intent" text,
	"body" text NOT NULL,
	"external_message_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_settings" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean NOT NULL,
	"wave_size" integer NOT NULL,
	"wave_wait_minutes" integer NOT NULL,
	"channel_order" text[] NOT NULL,
	"recontact_window_hours" integer NOT NULL,
	"daily_cap_per_carrier" integer NOT NULL,
	"quiet_hours_start" integer NOT NULL,
	"quiet_hours_end" integer NOT NULL,
	"auto_accept_at_or_under_posted_rate" boolean NOT NULL,
	"restriction_notices_enabled" boolean NOT NULL,
	"restriction_tms_statuses" text[] NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_settings_wave_size_check" CHECK ("agent_settings"."wave_size" BETWEEN 1 AND 100),
	CONSTRAINT "agent_settings_quiet_check" CHECK ("agent_settings"."quiet_hours_start" BETWEEN 0 AND 23 AND "agent_settings"."quiet_hours_end" BETWEEN 0 AND 23)
);
--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "home_state" text;--> statement-breakpoint
ALTER TABLE "offers" ADD COLUMN "counter_amount" numeric;--> statement-breakpoint
ALTER TABLE "outreaches" ADD COLUMN "send_after" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "outreaches" ADD COLUMN "sent_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "outreaches" ADD COLUMN "address" text;--> statement-breakpoint
ALTER TABLE "outreaches" ADD COLUMN "external_message_id" text;--> statement-breakpoint
ALTER TABLE "outreaches" ADD COLUMN "cancelled_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "agent_load_states" ADD CONSTRAINT "agent_load_states_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_load_states" ADD CONSTRAINT "agent_load_states_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_messages" ADD CONSTRAINT "agent_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_messages" ADD CONSTRAINT "agent_messages_outreach_id_outreaches_id_fk" FOREIGN KEY ("outreach_id") REFERENCES "public"."outreaches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_messages" ADD CONSTRAINT "agent_messages_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_messages" ADD CONSTRAINT "agent_messages_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_settings" ADD CONSTRAINT "agent_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_load_states_due_idx" ON "agent_load_states" USING btree ("next_wave_at");--> statement-breakpoint
CREATE INDEX "agent_messages_outreach_idx" ON "agent_messages" USING btree ("outreach_id","created_at");--> statement-breakpoint
CREATE INDEX "agent_messages_external_idx" ON "agent_messages" USING btree ("external_message_id") WHERE "agent_messages"."external_message_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "loads_agent_assigned_idx" ON "loads" USING btree ("organization_id","id") WHERE "loads"."assigned_to_ai_agent";--> statement-breakpoint
CREATE INDEX "loads_organization_lane_idx" ON "loads" USING btree ("organization_id","origin_state","destination_state");--> statement-breakpoint
CREATE INDEX "outreaches_automated_due_idx" ON "outreaches" USING btree ("send_after") WHERE "outreaches"."is_automated" AND "outreaches"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "outreaches_conversation_idx" ON "outreaches" USING btree ("conversation_id") WHERE "outreaches"."conversation_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "outreaches_external_message_idx" ON "outreaches" USING btree ("external_message_id") WHERE "outreaches"."external_message_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "outreaches_address_idx" ON "outreaches" USING btree ("address","created_at") WHERE "outreaches"."address" IS NOT NULL;