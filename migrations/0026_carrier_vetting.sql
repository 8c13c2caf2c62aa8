CREATE TABLE "caller_verifications" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"call_id" text NOT NULL,
	"carrier_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"sent_to" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"verified_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vetting_policies" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"policy" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "claimed_carrier_id" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "identity_verified_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "risk_level" text;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "risk_reasons" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "fraud_signals" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "census_phone" text;--> statement-breakpoint
ALTER TABLE "carriers" ADD COLUMN "census_email" text;--> statement-breakpoint
ALTER TABLE "compliance_checks" ADD COLUMN "risk_level" text;--> statement-breakpoint
ALTER TABLE "compliance_checks" ADD COLUMN "signals" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "compliance_checks" ADD COLUMN "contact_snapshot" jsonb;--> statement-breakpoint
ALTER TABLE "caller_verifications" ADD CONSTRAINT "caller_verifications_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "caller_verifications" ADD CONSTRAINT "caller_verifications_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "caller_verifications" ADD CONSTRAINT "caller_verifications_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vetting_policies" ADD CONSTRAINT "vetting_policies_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "caller_verifications_call_idx" ON "caller_verifications" USING btree ("call_id","created_at");--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_claimed_carrier_id_carriers_id_fk" FOREIGN KEY ("claimed_carrier_id") REFERENCES "public"."carriers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "carriers" ADD CONSTRAINT "carriers_risk_level_check" CHECK ("carriers"."risk_level" IN ('low', 'medium', 'high'));