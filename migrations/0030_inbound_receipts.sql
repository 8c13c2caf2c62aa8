CREATE TABLE "inbound_receipts" (
	"provider" text NOT NULL,
	"message_id" text NOT NULL,
	"organization_id" text,
	"outcome" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inbound_receipts_provider_message_id_pk" PRIMARY KEY("provider","message_id")
);
--> statement-breakpoint
CREATE INDEX "inbound_receipts_created_idx" ON "inbound_receipts" USING btree ("created_at");