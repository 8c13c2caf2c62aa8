ALTER TABLE "offers" ADD COLUMN "accepted_by" text;--> statement-breakpoint
-- hand-written
--
-- Who booked each load already booked: the agent's intake inserts an offer accepted on arrival and
-- nothing rewrites it but a PATCH (which stamps updated_at), so an agent offer never updated since
-- it was created was accepted by the agent; every other accepted offer by a PATCH (a user).
UPDATE "offers" SET "accepted_by" = CASE
    WHEN "source" = 'agent' AND "updated_at" = "created_at" THEN 'agent' ELSE 'user' END
  WHERE "status" = 'accepted';--> statement-breakpoint
CREATE INDEX "offers_accepted_load_idx" ON "offers" USING btree ("organization_id","load_id") WHERE "offers"."status" = 'accepted';
