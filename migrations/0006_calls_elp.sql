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
ALTER TABLE "calls" ADD COLUMN "provider" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "provider_call_id" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "control_url" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "template_id" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "voice_agent_id" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "template_variables" jsonb;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_url" text;--> statement-breakpoint
ALTER TABLE "transcript_messages" ADD CONSTRAINT "transcript_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_messages" ADD CONSTRAINT "transcript_messages_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elp_answers" ADD CONSTRAINT "elp_answers_elp_test_id_elp_tests_id_fk" FOREIGN KEY ("elp_test_id") REFERENCES "public"."elp_tests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elp_tests" ADD CONSTRAINT "elp_tests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elp_tests" ADD CONSTRAINT "elp_tests_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elp_tests" ADD CONSTRAINT "elp_tests_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "transcript_messages_call_position_key" ON "transcript_messages" USING btree ("call_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "elp_answers_test_question_key" ON "elp_answers" USING btree ("elp_test_id","question_id");--> statement-breakpoint
CREATE UNIQUE INDEX "elp_tests_call_key" ON "elp_tests" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "elp_tests_org_created_idx" ON "elp_tests" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "elp_tests_org_phone_idx" ON "elp_tests" USING btree ("organization_id","phone_number");--> statement-breakpoint
CREATE INDEX "elp_tests_org_mc_idx" ON "elp_tests" USING btree ("organization_id","mc_number");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_provider_call_key" ON "calls" USING btree ("provider","provider_call_id");