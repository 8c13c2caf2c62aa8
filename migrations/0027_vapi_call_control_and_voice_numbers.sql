CREATE TABLE "voice_numbers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"provider" text DEFAULT 'vapi' NOT NULL,
	"phone_number_id" text NOT NULL,
	"phone_number" text,
	"outbound" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "cost" double precision;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "analysis_applied_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "transfer_status" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "transfer_destination" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "transfer_updated_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "hangs" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "last_hang_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "voice_numbers" ADD CONSTRAINT "voice_numbers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "voice_numbers_provider_number_key" ON "voice_numbers" USING btree ("provider","phone_number_id");--> statement-breakpoint
CREATE UNIQUE INDEX "voice_numbers_outbound_key" ON "voice_numbers" USING btree ("organization_id") WHERE "voice_numbers"."outbound";