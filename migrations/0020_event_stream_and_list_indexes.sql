CREATE SEQUENCE "public"."events_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "event_retention" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"retain_until" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_stream_tickets" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"ticket_hash" text NOT NULL,
	"principal_kind" text NOT NULL,
	"user_id" text,
	"api_key_id" text,
	"session_id" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "event_stream_tickets_hash_key" UNIQUE("ticket_hash")
);
--> statement-breakpoint
CREATE TABLE "event_streams" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"instance_id" text NOT NULL,
	"opened_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Existing events take 0 in both columns with a constant default (no rewrite of a large table);
-- new ones take their transaction id and the next sequence value.
ALTER TABLE "events" ADD COLUMN "txid" "xid8" DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "txid" SET DEFAULT pg_current_xact_id();--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "seq" SET DEFAULT nextval('events_seq');--> statement-breakpoint
ALTER TABLE "event_retention" ADD CONSTRAINT "event_retention_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_stream_tickets" ADD CONSTRAINT "event_stream_tickets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_streams" ADD CONSTRAINT "event_streams_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_stream_tickets_expiry_idx" ON "event_stream_tickets" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "event_streams_organization_idx" ON "event_streams" USING btree ("organization_id","last_seen_at");--> statement-breakpoint
CREATE INDEX "event_streams_instance_idx" ON "event_streams" USING btree ("instance_id");--> statement-breakpoint
CREATE INDEX "calls_organization_call_time_idx" ON "calls" USING btree ("organization_id","call_time","id");--> statement-breakpoint
CREATE INDEX "calls_organization_start_idx" ON "calls" USING btree ("organization_id","call_start_time" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_organization_end_idx" ON "calls" USING btree ("organization_id","call_end_time" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_organization_status_idx" ON "calls" USING btree ("organization_id","status","id");--> statement-breakpoint
CREATE INDEX "offers_organization_updated_idx" ON "offers" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "offers_organization_amount_idx" ON "offers" USING btree ("organization_id","offer_amount","id");--> statement-breakpoint
CREATE INDEX "offers_organization_accepted_idx" ON "offers" USING btree ("organization_id","accepted_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "outreaches_organization_updated_idx" ON "outreaches" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "outreaches_organization_status_idx" ON "outreaches" USING btree ("organization_id","status","id");--> statement-breakpoint
CREATE INDEX "events_stream_idx" ON "events" USING btree ("organization_id","txid","seq");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt_number");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_organization_idx" ON "webhook_deliveries" USING btree ("organization_id","created_at","id");