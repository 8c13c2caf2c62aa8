CREATE TABLE "vetting_policies" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"policy" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "risk_level" text;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "risk_reasons" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "fraud_signals" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "census_phone" text;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "census_email" text;--> statement-breakpoint
ALTER TABLE "compliance_checks" ADD COLUMN "risk_level" text;--> statement-breakpoint
ALTER TABLE "compliance_checks" ADD COLUMN "signals" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "compliance_checks" ADD COLUMN "contact_snapshot" jsonb;--> statement-breakpoint
ALTER TABLE "vetting_policies" ADD CONSTRAINT "vetting_policies_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carriers" ADD CONSTRAINT "carriers_risk_level_check" CHECK ("carriers"."risk_level" IN ('low', 'medium', 'high'));