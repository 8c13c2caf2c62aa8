CREATE TABLE "agent_load_results" (
	"load_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"handed_at" timestamp (3) with time zone NOT NULL,
	"origin_state" text,
	"destination_state" text,
	"equipment_type" text,
	"customer_name" text,
	"carrier_rep_user_id" text,
	"pickup_at" timestamp (3) with time zone,
	"waves" integer DEFAULT 0 NOT NULL,
	"contacts_call" integer DEFAULT 0 NOT NULL,
	"contacts_email" integer DEFAULT 0 NOT NULL,
	"contacts_whatsapp" integer DEFAULT 0 NOT NULL,
	"first_contact_at" timestamp (3) with time zone,
	"connects" integer DEFAULT 0 NOT NULL,
	"offers" integer DEFAULT 0 NOT NULL,
	"first_offer_at" timestamp (3) with time zone,
	"counters" integer DEFAULT 0 NOT NULL,
	"handoffs" integer DEFAULT 0 NOT NULL,
	"booked_at" timestamp (3) with time zone,
	"booked_offer_id" text,
	"booked_amount" numeric,
	"booked_carrier_id" text,
	"booked_tier" integer,
	"booked_channel" text,
	"booked_by" text,
	"booked_after_contact" boolean,
	"booked_fell_off" boolean DEFAULT false NOT NULL,
	"booked_posted_rate" numeric,
	"booked_market_rate" numeric,
	"booked_max_buy_rate" numeric,
	"booked_customer_rate" numeric,
	"bookings" integer DEFAULT 0 NOT NULL,
	"fall_offs" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_load_results_booked_by_check" CHECK ("agent_load_results"."booked_by" IN ('agent', 'user'))
);
--> statement-breakpoint
CREATE TABLE "agent_activity" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"load_id" text NOT NULL,
	"kind" text NOT NULL,
	"wave" integer,
	"carrier_id" text,
	"channel" text,
	"tier" integer,
	"reason" text,
	"outreach_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_load_states" ADD COLUMN "last_outcome" text;--> statement-breakpoint
ALTER TABLE "agent_load_results" ADD CONSTRAINT "agent_load_results_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_load_results" ADD CONSTRAINT "agent_load_results_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_activity" ADD CONSTRAINT "agent_activity_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_activity" ADD CONSTRAINT "agent_activity_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-edited: covering (drizzle's index builder has no INCLUDE; the name stays, so a later generated
-- migration leaves it alone). A period's figures read these entries only, in handed order.
CREATE INDEX "agent_load_results_handed_idx" ON "agent_load_results" USING btree ("organization_id","handed_at")
  INCLUDE ("origin_state","destination_state","equipment_type","customer_name","carrier_rep_user_id","pickup_at",
    "booked_tier","booked_channel","booked_at","booked_fell_off","booked_by","booked_after_contact","booked_amount",
    "booked_posted_rate","booked_market_rate","booked_max_buy_rate","booked_customer_rate","contacts_call",
    "contacts_email","contacts_whatsapp","connects","offers","counters","bookings","fall_offs","handoffs");--> statement-breakpoint
CREATE INDEX "agent_activity_load_idx" ON "agent_activity" USING btree ("load_id","created_at");--> statement-breakpoint
-- Hand-written below (drizzle cannot express triggers).
--
-- agent_load_results is kept by triggers on the tables the agent's work writes, in the same
-- transaction as each change, whatever code path made it: a load handed to the agent (assigned,
-- open, not booked) gets its row; contacts, connects, offers, counters, handoffs, waves and
-- bookings are counted on it as they happen.
CREATE OR REPLACE FUNCTION agent_results_from_loads() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO agent_load_results (load_id, organization_id, handed_at, origin_state, destination_state,
    equipment_type, customer_name, carrier_rep_user_id, pickup_at)
  SELECT n.id, n.organization_id, now(), n.origin_state, n.destination_state, n.equipment_type,
    n.customer_name, n.carrier_rep_user_id, n.pickup_date
  FROM new_rows n
  WHERE n.assigned_to_ai_agent AND n.load_status IN ('Created', 'Unassigned', 'Quotes Received')
    AND NOT EXISTS (SELECT 1 FROM offers o WHERE o.load_id = n.id AND o.status = 'accepted')
  ORDER BY n.id
  ON CONFLICT (load_id) DO NOTHING;
  IF TG_OP = 'UPDATE' THEN
    -- What results group by follows the load; a booking the TMS then cancels falls off.
    UPDATE agent_load_results r SET
      origin_state = n.origin_state, destination_state = n.destination_state,
      equipment_type = n.equipment_type, customer_name = n.customer_name,
      carrier_rep_user_id = n.carrier_rep_user_id, pickup_at = n.pickup_date,
      fall_offs = r.fall_offs + (n.cancelled AND r.booked_at IS NOT NULL AND NOT r.booked_fell_off)::int,
      booked_fell_off = r.booked_fell_off OR (n.cancelled AND r.booked_at IS NOT NULL),
      updated_at = now()
    FROM (
      SELECT n.*, (n.load_status = 'Cancelled' AND o.load_status IS DISTINCT FROM 'Cancelled') AS cancelled
      FROM new_rows n JOIN old_rows o ON o.id = n.id
    ) n
    WHERE r.load_id = n.id
      AND (n.cancelled AND r.booked_at IS NOT NULL AND NOT r.booked_fell_off
        OR (r.origin_state, r.destination_state, r.equipment_type, r.customer_name, r.carrier_rep_user_id, r.pickup_at)
           IS DISTINCT FROM (n.origin_state, n.destination_state, n.equipment_type, n.customer_name,
                             n.carrier_rep_user_id, n.pickup_date));
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER agent_results_loads_insert AFTER INSERT ON loads
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_results_from_loads();
--> statement-breakpoint
CREATE TRIGGER agent_results_loads_update AFTER UPDATE ON loads
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION agent_results_from_loads();
--> statement-breakpoint
-- A contact: an automated outbound outreach claimed to be sent (pending to active, or started
-- active). A connect: its carrier engaged (answered the call, replied).
CREATE OR REPLACE FUNCTION agent_results_from_outreaches() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  contacted boolean;
  connected boolean;
BEGIN
  IF NEW.load_id IS NULL OR NOT NEW.is_automated OR NEW.direction <> 'outbound' THEN
    RETURN NULL;
  END IF;
  contacted := NEW.status IN ('active', 'completed', 'no_response')
    AND (TG_OP = 'INSERT' OR OLD.status = 'pending');
  connected := coalesce(NEW.carrier_engaged, false)
    AND (TG_OP = 'INSERT' OR NOT coalesce(OLD.carrier_engaged, false));
  IF contacted OR connected THEN
    UPDATE agent_load_results SET
      contacts_call = contacts_call + (contacted AND NEW.modality = 'call')::int,
      contacts_email = contacts_email + (contacted AND NEW.modality = 'email')::int,
      contacts_whatsapp = contacts_whatsapp + (contacted AND NEW.modality = 'whatsapp')::int,
      first_contact_at = CASE WHEN contacted THEN coalesce(first_contact_at, now()) ELSE first_contact_at END,
      connects = connects + connected::int,
      updated_at = now()
    WHERE load_id = NEW.load_id;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER agent_results_outreaches AFTER INSERT OR UPDATE OF status, carrier_engaged ON outreaches
  FOR EACH ROW EXECUTE FUNCTION agent_results_from_outreaches();
--> statement-breakpoint
-- Offers: each one received, the agent's counters, offers left for a rep (a handoff), and the
-- booking: made when an offer becomes accepted (by whom: the offer's accepted_by), undone when
-- the accepted offer leaves accepted.
CREATE OR REPLACE FUNCTION agent_results_from_offers() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE agent_load_results SET
      offers = offers + 1,
      first_offer_at = coalesce(first_offer_at, NEW.created_at),
      counters = counters + (NEW.counter_amount IS NOT NULL)::int,
      handoffs = handoffs + (NEW.source = 'agent' AND NEW.status = 'pending' AND NEW.counter_amount IS NULL)::int,
      updated_at = now()
    WHERE load_id = NEW.load_id;
  END IF;
  IF NEW.status = 'accepted' AND (TG_OP = 'INSERT' OR OLD.status <> 'accepted') THEN
    UPDATE agent_load_results r SET
      booked_at = coalesce(NEW.accepted_at, now()),
      booked_offer_id = NEW.id,
      booked_amount = NEW.offer_amount,
      booked_carrier_id = NEW.carrier_id,
      booked_tier = coalesce(
        (SELECT a.tier FROM agent_activity a
         WHERE a.load_id = NEW.load_id AND a.carrier_id = NEW.carrier_id AND a.kind = 'carrier_chosen'
         ORDER BY a.created_at DESC LIMIT 1),
        (SELECT c.routing_guide_tier FROM carriers c WHERE c.id = NEW.carrier_id)),
      booked_channel = NEW.channel,
      booked_by = NEW.accepted_by,
      booked_after_contact = r.first_contact_at IS NOT NULL,
      booked_fell_off = false,
      booked_posted_rate = l.posted_rate,
      booked_market_rate = l.suggested_market_rate,
      booked_max_buy_rate = l.max_buy_rate,
      booked_customer_rate = l.customer_rate,
      bookings = r.bookings + 1,
      updated_at = now()
    FROM loads l
    WHERE r.load_id = NEW.load_id AND l.id = NEW.load_id;
  ELSIF TG_OP = 'UPDATE' AND OLD.status = 'accepted' AND NEW.status <> 'accepted' THEN
    UPDATE agent_load_results SET
      fall_offs = fall_offs + CASE WHEN booked_fell_off THEN 0 ELSE 1 END,
      booked_at = NULL, booked_offer_id = NULL, booked_amount = NULL, booked_carrier_id = NULL,
      booked_tier = NULL, booked_channel = NULL, booked_by = NULL, booked_after_contact = NULL,
      booked_fell_off = false, booked_posted_rate = NULL, booked_market_rate = NULL,
      booked_max_buy_rate = NULL, booked_customer_rate = NULL,
      updated_at = now()
    WHERE load_id = NEW.load_id AND booked_offer_id = NEW.id;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER agent_results_offers AFTER INSERT OR UPDATE OF status ON offers
  FOR EACH ROW EXECUTE FUNCTION agent_results_from_offers();
--> statement-breakpoint
-- A call transferred to a rep is a handoff.
CREATE OR REPLACE FUNCTION agent_results_from_calls() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.load_id IS NOT NULL AND NEW.status = 'TRANSFERRED' AND OLD.status IS DISTINCT FROM 'TRANSFERRED' THEN
    UPDATE agent_load_results SET handoffs = handoffs + 1, updated_at = now() WHERE load_id = NEW.load_id;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER agent_results_calls AFTER UPDATE OF status ON calls
  FOR EACH ROW EXECUTE FUNCTION agent_results_from_calls();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agent_results_from_planning() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.waves_planned IS DISTINCT FROM OLD.waves_planned THEN
    UPDATE agent_load_results SET waves = NEW.waves_planned, updated_at = now() WHERE load_id = NEW.load_id;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER agent_results_planning AFTER UPDATE OF waves_planned ON agent_load_states
  FOR EACH ROW EXECUTE FUNCTION agent_results_from_planning();
--> statement-breakpoint
-- Loads the agent worked before this migration: their rows, counted from the records they left
-- (handed when the agent first planned them).
INSERT INTO agent_load_results (load_id, organization_id, handed_at, origin_state, destination_state,
  equipment_type, customer_name, carrier_rep_user_id, pickup_at, waves)
SELECT l.id, l.organization_id, s.created_at, l.origin_state, l.destination_state, l.equipment_type,
  l.customer_name, l.carrier_rep_user_id, l.pickup_date, s.waves_planned
FROM agent_load_states s JOIN loads l ON l.id = s.load_id
ON CONFLICT (load_id) DO NOTHING;
--> statement-breakpoint
-- Loads handed to the agent and not taken up yet: handed now (their trigger will not fire again
-- unless the load changes).
INSERT INTO agent_load_results (load_id, organization_id, handed_at, origin_state, destination_state,
  equipment_type, customer_name, carrier_rep_user_id, pickup_at)
SELECT l.id, l.organization_id, now(), l.origin_state, l.destination_state, l.equipment_type,
  l.customer_name, l.carrier_rep_user_id, l.pickup_date
FROM loads l
WHERE l.assigned_to_ai_agent AND l.load_status IN ('Created', 'Unassigned', 'Quotes Received')
  AND NOT EXISTS (SELECT 1 FROM offers o WHERE o.load_id = l.id AND o.status = 'accepted')
ON CONFLICT (load_id) DO NOTHING;
--> statement-breakpoint
UPDATE agent_load_results r SET
  contacts_call = x.calls, contacts_email = x.emails, contacts_whatsapp = x.messages,
  first_contact_at = x.first_at, connects = x.engaged
FROM (
  SELECT load_id,
    count(*) FILTER (WHERE modality = 'call')::int AS calls,
    count(*) FILTER (WHERE modality = 'email')::int AS emails,
    count(*) FILTER (WHERE modality = 'whatsapp')::int AS messages,
    min(created_at) AS first_at,
    count(*) FILTER (WHERE carrier_engaged)::int AS engaged
  FROM outreaches
  WHERE is_automated AND direction = 'outbound' AND status IN ('active', 'completed', 'no_response')
  GROUP BY load_id
) x
WHERE r.load_id = x.load_id;
--> statement-breakpoint
UPDATE agent_load_results r SET
  offers = x.n, first_offer_at = x.first_at, counters = x.countered, handoffs = r.handoffs + x.reviews
FROM (
  SELECT load_id, count(*)::int AS n, min(created_at) AS first_at,
    count(*) FILTER (WHERE counter_amount IS NOT NULL)::int AS countered,
    count(*) FILTER (WHERE source = 'agent' AND status = 'pending' AND counter_amount IS NULL)::int AS reviews
  FROM offers GROUP BY load_id
) x
WHERE r.load_id = x.load_id;
--> statement-breakpoint
UPDATE agent_load_results r SET
  booked_at = coalesce(o.accepted_at, o.updated_at), booked_offer_id = o.id, booked_amount = o.offer_amount,
  booked_carrier_id = o.carrier_id, booked_tier = c.routing_guide_tier, booked_channel = o.channel,
  booked_by = o.accepted_by,
  booked_after_contact = r.first_contact_at IS NOT NULL AND r.first_contact_at <= coalesce(o.accepted_at, o.updated_at),
  booked_fell_off = l.load_status = 'Cancelled',
  booked_posted_rate = l.posted_rate, booked_market_rate = l.suggested_market_rate,
  booked_max_buy_rate = l.max_buy_rate, booked_customer_rate = l.customer_rate,
  bookings = 1, fall_offs = (l.load_status = 'Cancelled')::int
FROM offers o
JOIN loads l ON l.id = o.load_id
LEFT JOIN carriers c ON c.id = o.carrier_id
WHERE o.load_id = r.load_id AND o.status = 'accepted';
