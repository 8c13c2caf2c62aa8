CREATE TABLE "voice_templates" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text,
	"name" text NOT NULL,
	"purpose" text NOT NULL,
	"first_message" text NOT NULL,
	"instructions" text NOT NULL,
	"voicemail_message" text,
	"voice" jsonb,
	"model" jsonb,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "voice_templates_purpose_check" CHECK ("voice_templates"."purpose" IN ('load_booking', 'elp', 'tracking_check', 'inbound_sales'))
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "purpose" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "ended_reason" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "analysis" jsonb;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "transfer_to" text;--> statement-breakpoint
ALTER TABLE "voice_templates" ADD CONSTRAINT "voice_templates_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "voice_templates_organization_idx" ON "voice_templates" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "voice_templates_default_key" ON "voice_templates" USING btree ("organization_id","purpose") WHERE "voice_templates"."is_default" AND "voice_templates"."organization_id" IS NOT NULL;