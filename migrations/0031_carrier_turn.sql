CREATE TABLE "agent_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"outreach_id" text NOT NULL,
	"load_ids" text[] NOT NULL,
	"message_ids" text[] NOT NULL,
	"body" text NOT NULL,
	"in_reply_to" text,
	"draft" jsonb,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT envoy_now() NOT NULL,
	"lease_until" timestamp (3) with time zone,
	"last_error" text,
	"sent_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT envoy_now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_messages" ADD COLUMN "reading" jsonb;--> statement-breakpoint
ALTER TABLE "negotiations" ADD COLUMN "confirming" numeric;--> statement-breakpoint
ALTER TABLE "offers" ADD COLUMN "held_for" text;--> statement-breakpoint
ALTER TABLE "agent_outbox" ADD CONSTRAINT "agent_outbox_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_outbox" ADD CONSTRAINT "agent_outbox_outreach_id_outreaches_id_fk" FOREIGN KEY ("outreach_id") REFERENCES "public"."outreaches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_outbox_due_idx" ON "agent_outbox" USING btree ("next_attempt_at") WHERE "agent_outbox"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "offers_held_idx" ON "offers" USING btree ("carrier_id") WHERE "offers"."held_for" IS NOT NULL;--> statement-breakpoint
-- An offer waiting for the carrier's confirmation is no handoff: the carrier, not a rep, answers it.
DO $$
BEGIN
  EXECUTE replace(pg_get_functiondef('agent_results_from_offers'::regproc),
    'NEW.status = ''pending'' AND NEW.counter_amount IS NULL)',
    'NEW.status = ''pending'' AND NEW.counter_amount IS NULL AND NEW.held_for IS DISTINCT FROM ''confirmation'')');
END $$;
