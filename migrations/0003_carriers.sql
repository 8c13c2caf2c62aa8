CREATE TABLE "audit_log" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" text NOT NULL,
	"action" text NOT NULL,
	"reason" text,
	"reason_note" text,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"before" jsonb,
	"after" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "carrier_contacts" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"carrier_id" text NOT NULL,
	"contact_type" text NOT NULL,
	"name" text,
	"phone" text,
	"email" text,
	"equipment_type" text,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "carriers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"mc_number" text,
	"dot_number" text,
	"email" text,
	"phone" text,
	"dispatcher_name" text,
	"dispatcher_phone" text,
	"dispatcher_email" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"tms_status" text,
	"provider" text,
	"ingestion_method" text,
	"equipment_types" text[],
	"insurance_expiration" timestamp (3) with time zone,
	"w9_on_file" boolean,
	"authorized_for_hire" boolean,
	"on_time_pickup_pct" double precision,
	"on_time_delivery_pct" double precision,
	"tracking_compliance_pct" double precision,
	"avg_response_time_min" double precision,
	"total_loads_hauled" integer,
	"is_onboarded" boolean DEFAULT false NOT NULL,
	"routing_guide_tier" integer,
	"carrier_rep_user_id" text,
	"carrier_rep_name" text,
	"carrier_rep_email" text,
	"is_verified" boolean DEFAULT false NOT NULL,
	"verified_date" timestamp (3) with time zone,
	"compliance_status" text DEFAULT 'UNVERIFIED' NOT NULL,
	"stop_contact_requested_at" timestamp (3) with time zone,
	"tms_carrier_id" text,
	"last_verified_at" timestamp (3) with time zone,
	"last_verified_provider" text,
	"compliance_check_due_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "carriers_routing_guide_tier_check" CHECK ("carriers"."routing_guide_tier" BETWEEN 1 AND 4),
	CONSTRAINT "carriers_compliance_status_check" CHECK ("carriers"."compliance_status" IN ('PASSED', 'BLOCKED', 'UNVERIFIED'))
);
--> statement-breakpoint
CREATE TABLE "compliance_checks" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"carrier_id" text NOT NULL,
	"provider" text NOT NULL,
	"verdict" text NOT NULL,
	"reasons" jsonb NOT NULL,
	"raw" jsonb,
	"checked_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lane_preferences" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"carrier_id" text NOT NULL,
	"lane_id" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"preference_type" text DEFAULT 'primary' NOT NULL,
	"routing_guide_tier" integer,
	"dnu" boolean DEFAULT false NOT NULL,
	"dnu_reason" text,
	"dnu_set_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lane_preferences_tier_check" CHECK ("lane_preferences"."routing_guide_tier" BETWEEN 1 AND 4)
);
--> statement-breakpoint
CREATE TABLE "lanes" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"origin_city" text,
	"origin_state" text NOT NULL,
	"origin_country" text DEFAULT 'US' NOT NULL,
	"destination_city" text,
	"destination_state" text NOT NULL,
	"destination_country" text DEFAULT 'US' NOT NULL,
	"equipment_type" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carrier_contacts" ADD CONSTRAINT "carrier_contacts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carrier_contacts" ADD CONSTRAINT "carrier_contacts_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carriers" ADD CONSTRAINT "carriers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_checks" ADD CONSTRAINT "compliance_checks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_checks" ADD CONSTRAINT "compliance_checks_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lane_preferences" ADD CONSTRAINT "lane_preferences_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lane_preferences" ADD CONSTRAINT "lane_preferences_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lane_preferences" ADD CONSTRAINT "lane_preferences_lane_id_lanes_id_fk" FOREIGN KEY ("lane_id") REFERENCES "public"."lanes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lanes" ADD CONSTRAINT "lanes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_entity_idx" ON "audit_log" USING btree ("organization_id","entity_type","entity_id","created_at");--> statement-breakpoint
CREATE INDEX "carrier_contacts_carrier_idx" ON "carrier_contacts" USING btree ("carrier_id","position");--> statement-breakpoint
CREATE INDEX "carrier_contacts_org_phone_idx" ON "carrier_contacts" USING btree ("organization_id","phone");--> statement-breakpoint
CREATE UNIQUE INDEX "carriers_org_tms_carrier_id_key" ON "carriers" USING btree ("organization_id","tms_carrier_id") WHERE "carriers"."tms_carrier_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "carriers_org_mc_number_key" ON "carriers" USING btree ("organization_id","mc_number") WHERE "carriers"."mc_number" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "carriers_org_dot_number_key" ON "carriers" USING btree ("organization_id","dot_number") WHERE "carriers"."dot_number" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "carriers_org_lower_name_idx" ON "carriers" USING btree ("organization_id",lower("name"));--> statement-breakpoint
CREATE INDEX "carriers_org_created_idx" ON "carriers" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "carriers_org_phone_idx" ON "carriers" USING btree ("organization_id","phone");--> statement-breakpoint
CREATE INDEX "carriers_org_email_idx" ON "carriers" USING btree ("organization_id",lower("email"));--> statement-breakpoint
CREATE INDEX "carriers_compliance_due_idx" ON "carriers" USING btree ("compliance_check_due_at") WHERE "carriers"."compliance_check_due_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "compliance_checks_carrier_idx" ON "compliance_checks" USING btree ("carrier_id","checked_at");--> statement-breakpoint
CREATE UNIQUE INDEX "lane_preferences_carrier_lane_key" ON "lane_preferences" USING btree ("carrier_id","lane_id");--> statement-breakpoint
CREATE INDEX "lane_preferences_org_lane_idx" ON "lane_preferences" USING btree ("organization_id","lane_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lanes_identity_key" ON "lanes" USING btree ("organization_id",lower(coalesce("origin_city", '')),"origin_state","origin_country",lower(coalesce("destination_city", '')),"destination_state","destination_country",coalesce("equipment_type", ''));--> statement-breakpoint
CREATE INDEX "lanes_org_states_idx" ON "lanes" USING btree ("organization_id","origin_state","destination_state");