CREATE TABLE "negotiations" (
	"load_id" text NOT NULL,
	"carrier_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"rounds" integer DEFAULT 0 NOT NULL,
	"ask" numeric,
	"last_counter" numeric,
	"lowest_offer" numeric,
	"last_offer" numeric,
	"passed" boolean DEFAULT false NOT NULL,
	"declined" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "negotiations_load_id_carrier_id_pk" PRIMARY KEY("load_id","carrier_id"),
	CONSTRAINT "negotiations_rounds_check" CHECK ("negotiations"."rounds" >= 0)
);
--> statement-breakpoint
ALTER TABLE "agent_settings" ADD COLUMN "negotiation" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "negotiations" ADD CONSTRAINT "negotiations_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "negotiations" ADD CONSTRAINT "negotiations_carrier_id_carriers_id_fk" FOREIGN KEY ("carrier_id") REFERENCES "public"."carriers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "negotiations" ADD CONSTRAINT "negotiations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "negotiations_carrier_idx" ON "negotiations" USING btree ("carrier_id");--> statement-breakpoint
-- Hand-written: conversations the agent had before this table, from their offers, so a carrier
-- already countered under the earlier rule keeps its round count.
INSERT INTO "negotiations" ("load_id", "carrier_id", "organization_id", "rounds", "ask", "last_counter", "lowest_offer", "last_offer")
SELECT o."load_id", o."carrier_id", o."organization_id", count(o."counter_amount")::int, max(o."counter_amount"), max(o."counter_amount"), min(o."offer_amount"), (array_agg(o."offer_amount" ORDER BY o."created_at" DESC))[1]
FROM "offers" o
WHERE o."source" = 'agent' AND o."carrier_id" IS NOT NULL
GROUP BY o."load_id", o."carrier_id", o."organization_id";
