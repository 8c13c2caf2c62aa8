CREATE TABLE "calls" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"status" text NOT NULL,
	"call_time" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"call_direction" text,
	"phone_number" text,
	"to_number" text,
	"from_number" text,
	"call_start_time" timestamp (3) with time zone,
	"call_end_time" timestamp (3) with time zone,
	"call_type" text,
	"load_id" text,
	"carrier_id" text,
	"created_by_id" text,
	"recording_status" text,
	"load_number" text,
	"provider" text,
	"provider_call_id" text,
	"control_url" text,
	"template_id" text,
	"voice_agent_id" text,
	"template_variables" jsonb,
	"recording_url" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calls_status_check" CHECK ("calls"."status" IN ('SCHEDULED', 'PENDING', 'AGENT_ASSIGNED', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'VOICEMAIL', 'NO_RESPONSE', 'TRANSFERRED'))
);
--> statement-breakpoint
CREATE TABLE "transcript_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"call_id" text NOT NULL,
	"position" integer NOT NULL,
	"role" text NOT NULL,
	"content" text,
	"message_id" text,
	"timestamp" text,
	"interrupted" boolean,
	"transcript_confidence" double precision,
	"tool_calls" jsonb,
	"tool_call_id" text,
	"extra" jsonb
);
--> statement-breakpoint
CREATE TABLE "elp_answers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"elp_test_id" text NOT NULL,
	"question_id" text NOT NULL,
	"step" text NOT NULL,
	"competency" text NOT NULL,
	"question" text,
	"answer" text,
	"valid" boolean NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "elp_tests" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"call_id" text,
	"carrier_id" text,
	"status" text DEFAULT 'REQUESTED' NOT NULL,
	"phone_number" text,
	"driver_name" text,
	"carrier_name" text,
	"mc_number" text,
	"scoring_status" text DEFAULT 'PENDING',
	"conversational_communication" integer,
	"instruction_comprehension" integer,
	"sign_recognition" integer,
	"verbal_reporting" integer,
	"total_score" integer,
	"total_questions" integer,
	"questions_answered" integer,
	"valid_answers" integer,
	"notes" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "elp_tests_status_check" CHECK ("elp_tests"."status" IN ('REQUESTED', 'COMPLETED', 'FAILED', 'INCOMPLETE'))
);
--> statement-breakpoint
CREATE TABLE "load_views" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"filters" jsonb NOT NULL,
	"visibility" text DEFAULT 'private' NOT NULL,
	"owner_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "load_views_visibility_check" CHECK ("load_views"."visibility" IN ('private', 'organization'))
);
--> statement-breakpoint
CREATE TABLE "carrier_verifications" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"load_id" text NOT NULL,
	"carrier_id" text,
	"source" text NOT NULL,
	"status" text DEFAULT 'BLOCKED' NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "escalations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"load_id" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"reason" text,
	"resolved_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "load_list_versions" (
	"organization_id" text NOT NULL,
	"source" text NOT NULL,
	"version" bigint NOT NULL,
	CONSTRAINT "load_list_versions_organization_id_source_pk" PRIMARY KEY("organization_id","source")
);
--> statement-breakpoint
CREATE TABLE "load_status_counts" (
	"organization_id" text NOT NULL,
	"load_status" text NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "load_status_counts_organization_id_load_status_pk" PRIMARY KEY("organization_id","load_status")
);
--> statement-breakpoint
CREATE TABLE "load_status_mappings" (
	"organization_id" text NOT NULL,
	"tms_status" text NOT NULL,
	"load_status" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "load_status_mappings_organization_id_tms_status_pk" PRIMARY KEY("organization_id","tms_status")
);
--> statement-breakpoint
CREATE TABLE "loads" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"load_number" text NOT NULL,
	"tms_load_id" text,
	"external_id" text,
	"equipment_type" text NOT NULL,
	"mode" text,
	"load_status" text,
	"tms_status" text,
	"weight" double precision,
	"distance" double precision,
	"commodity" text,
	"handling_unit_count" integer,
	"handling_unit_type" text,
	"po_numbers" jsonb,
	"reference_numbers" jsonb,
	"posted_rate" integer,
	"max_buy_rate" integer,
	"suggested_market_rate" integer,
	"length_feet" integer,
	"special_instructions" jsonb,
	"notes" text,
	"is_posted" boolean DEFAULT false NOT NULL,
	"last_posted_at" timestamp (3) with time zone,
	"last_unposted_at" timestamp (3) with time zone,
	"externally_posted_at" timestamp (3) with time zone,
	"temperature_setting_minimum" integer,
	"temperature_setting_maximum" integer,
	"temperature_run_type" text,
	"last_reported_state" text,
	"last_reported_city" text,
	"last_reported_long" double precision,
	"last_reported_lat" double precision,
	"tms_carrier_id" text,
	"carrier_name" text,
	"hauling_carrier_id" text,
	"hauling_carrier_name" text,
	"hauling_carrier_mc_number" text,
	"hauling_carrier_dot_number" text,
	"carrier_completed_rate" numeric,
	"customer_rate" numeric,
	"margin" numeric,
	"customer_name" text,
	"tms_sales_rep_names" text,
	"carrier_rep" jsonb,
	"driver" jsonb,
	"carrier_rep_user_id" text,
	"carrier_rep_user_name" text,
	"carrier_rep_user_email" text,
	"assigned_to_ai_agent" boolean DEFAULT false NOT NULL,
	"context" jsonb,
	"custom_fields" jsonb,
	"origin_city" text,
	"origin_state" text,
	"destination_city" text,
	"destination_state" text,
	"pickup_date" timestamp (3) with time zone,
	"delivery_date" timestamp (3) with time zone,
	"rep_names" text[] DEFAULT '{}'::text[] NOT NULL,
	"search_text" text DEFAULT '' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"load_id" text,
	"user_id" text,
	"type" text NOT NULL,
	"message" text NOT NULL,
	"read_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stops" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"load_id" text NOT NULL,
	"position" integer NOT NULL,
	"stop_number" integer,
	"type" text,
	"is_pickup" boolean,
	"is_dropoff" boolean,
	"expected_date" timestamp (3) with time zone,
	"planned_start" timestamp (3) with time zone,
	"planned_end" timestamp (3) with time zone,
	"pickup_delivery_number" text,
	"actual_arrival_datetime" timestamp (3) with time zone,
	"actual_departure_datetime" timestamp (3) with time zone,
	"carrier_eta" timestamp (3) with time zone,
	"notes" text,
	"special_instructions" jsonb,
	"reference_numbers" jsonb,
	"contact" jsonb,
	"contacts" jsonb,
	"city" text NOT NULL,
	"state" text NOT NULL,
	"street" text,
	"postal_code" text,
	"company_name" text,
	"county" text,
	"country" text DEFAULT 'US' NOT NULL,
	"latitude" double precision,
	"longitude" double precision,
	CONSTRAINT "stops_type_check" CHECK ("stops"."type" IS NULL OR "stops"."type" IN ('Pickup', 'Dropoff'))
);
--> statement-breakpoint
CREATE TABLE "offers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"load_id" text NOT NULL,
	"tms_load_id" text,
	"offer_amount" numeric NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"source" text DEFAULT 'api' NOT NULL,
	"channel" text,
	"carrier_id" text,
	"contact_id" text,
	"call_id" text,
	"email_message_id" text,
	"notes" text,
	"accepted_at" timestamp (3) with time zone,
	"created_by_id" text,
	"updated_by_id" text,
	"truck_number" text,
	"trailer_number" text,
	"driver_name" text,
	"driver_phone" text,
	"load_number" text,
	"contact_name" text,
	"contact_phone" text,
	"email_conversation_id" text,
	"rep_name" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "offers_status_check" CHECK ("offers"."status" IN ('pending', 'accepted', 'rejected'))
);
--> statement-breakpoint
CREATE TABLE "outreaches" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"carrier_id" text NOT NULL,
	"load_id" text NOT NULL,
	"modality" text NOT NULL,
	"direction" text DEFAULT 'outbound' NOT NULL,
	"load_number" text,
	"status" text DEFAULT 'completed' NOT NULL,
	"error_reason" text,
	"delivery_failed_at" timestamp (3) with time zone,
	"delivery_failure_reason" text,
	"carrier_engaged" boolean,
	"is_automated" boolean DEFAULT false NOT NULL,
	"call_id" text,
	"conversation_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outreaches_modality_check" CHECK ("outreaches"."modality" IN ('call', 'email', 'whatsapp')),
	CONSTRAINT "outreaches_status_check" CHECK ("outreaches"."status" IN ('pending', 'active', 'completed', 'failed', 'no_response'))
);
--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_messages" ADD CONSTRAINT "transcript_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_messages" ADD CONSTRAINT "transcript_messages_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elp_answers" ADD CONSTRAINT "elp_answers_elp_test_id_elp_tests_id_fk" FOREIGN KEY ("elp_test_id") REFERENCES "public"."elp_tests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elp_tests" ADD CONSTRAINT "elp_tests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elp_tests" ADD CONSTRAINT "elp_tests_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elp_tests" ADD CONSTRAINT "elp_tests_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "load_views" ADD CONSTRAINT "load_views_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carrier_verifications" ADD CONSTRAINT "carrier_verifications_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carrier_verifications" ADD CONSTRAINT "carrier_verifications_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carrier_verifications" ADD CONSTRAINT "carrier_verifications_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "escalations" ADD CONSTRAINT "escalations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "escalations" ADD CONSTRAINT "escalations_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "load_status_mappings" ADD CONSTRAINT "load_status_mappings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loads" ADD CONSTRAINT "loads_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stops" ADD CONSTRAINT "stops_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stops" ADD CONSTRAINT "stops_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offers" ADD CONSTRAINT "offers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offers" ADD CONSTRAINT "offers_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offers" ADD CONSTRAINT "offers_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreaches" ADD CONSTRAINT "outreaches_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreaches" ADD CONSTRAINT "outreaches_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outreaches" ADD CONSTRAINT "outreaches_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calls_load_created_idx" ON "calls" USING btree ("load_id","created_at");--> statement-breakpoint
CREATE INDEX "calls_organization_load_idx" ON "calls" USING btree ("organization_id","load_id");--> statement-breakpoint
CREATE INDEX "calls_organization_created_idx" ON "calls" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_provider_call_key" ON "calls" USING btree ("provider","provider_call_id");--> statement-breakpoint
CREATE UNIQUE INDEX "transcript_messages_call_position_key" ON "transcript_messages" USING btree ("call_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "elp_answers_test_question_key" ON "elp_answers" USING btree ("elp_test_id","question_id");--> statement-breakpoint
CREATE UNIQUE INDEX "elp_tests_call_key" ON "elp_tests" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "elp_tests_org_created_idx" ON "elp_tests" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "elp_tests_org_phone_idx" ON "elp_tests" USING btree ("organization_id","phone_number");--> statement-breakpoint
CREATE INDEX "elp_tests_org_mc_idx" ON "elp_tests" USING btree ("organization_id","mc_number");--> statement-breakpoint
CREATE INDEX "load_views_organization_idx" ON "load_views" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "carrier_verifications_load_idx" ON "carrier_verifications" USING btree ("load_id","created_at");--> statement-breakpoint
CREATE INDEX "carrier_verifications_blocked_load_idx" ON "carrier_verifications" USING btree ("organization_id","load_id") WHERE "carrier_verifications"."status" = 'BLOCKED';--> statement-breakpoint
CREATE INDEX "escalations_load_idx" ON "escalations" USING btree ("load_id","created_at");--> statement-breakpoint
CREATE INDEX "escalations_active_load_idx" ON "escalations" USING btree ("organization_id","load_id") WHERE "escalations"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "loads_organization_load_number_key" ON "loads" USING btree ("organization_id","load_number");--> statement-breakpoint
CREATE UNIQUE INDEX "loads_organization_tms_load_id_key" ON "loads" USING btree ("organization_id","tms_load_id") WHERE "loads"."tms_load_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "loads_organization_external_id_key" ON "loads" USING btree ("organization_id","external_id") WHERE "loads"."external_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "loads_organization_created_idx" ON "loads" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "loads_organization_updated_idx" ON "loads" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "loads_organization_pickup_idx" ON "loads" USING btree ("organization_id","pickup_date","id");--> statement-breakpoint
CREATE INDEX "loads_organization_delivery_idx" ON "loads" USING btree ("organization_id","delivery_date","id");--> statement-breakpoint
CREATE INDEX "loads_organization_status_idx" ON "loads" USING btree ("organization_id","load_status","equipment_type","pickup_date");--> statement-breakpoint
CREATE INDEX "loads_search_trgm_idx" ON "loads" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "notifications_unread_load_idx" ON "notifications" USING btree ("organization_id","load_id") WHERE "notifications"."read_at" IS NULL;--> statement-breakpoint
CREATE INDEX "stops_load_idx" ON "stops" USING btree ("load_id","position");--> statement-breakpoint
CREATE INDEX "offers_load_idx" ON "offers" USING btree ("load_id","status");--> statement-breakpoint
CREATE INDEX "offers_pending_load_idx" ON "offers" USING btree ("organization_id","load_id") WHERE "offers"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "offers_organization_created_idx" ON "offers" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "outreaches_load_idx" ON "outreaches" USING btree ("load_id","created_at");--> statement-breakpoint
CREATE INDEX "outreaches_open_load_idx" ON "outreaches" USING btree ("organization_id","load_id") WHERE "outreaches"."status" IN ('pending', 'active');--> statement-breakpoint
CREATE INDEX "outreaches_organization_created_idx" ON "outreaches" USING btree ("organization_id","created_at");