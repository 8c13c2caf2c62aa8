CREATE TABLE "load_figures" (
	"load_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"offer_count" integer DEFAULT 0 NOT NULL,
	"max_offer_amount" double precision,
	"min_offer_amount" double precision,
	"active_escalation_count" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "load_figures" ADD CONSTRAINT "load_figures_load_id_loads_id_fk" FOREIGN KEY ("load_id") REFERENCES "public"."loads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-written from here: the triggers that keep load_figures, and its first contents.
-- The figures of these loads counted again. The rows are created (in id order) and locked first,
-- so a second transaction writing offers of the same load waits for the first, and then counts
-- in a statement of its own, which sees what the first committed.
CREATE FUNCTION load_figures_refresh(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  INSERT INTO load_figures (load_id, organization_id)
    SELECT l.id, l.organization_id FROM loads l WHERE l.id = ANY(ids) ORDER BY l.id
    ON CONFLICT (load_id) DO NOTHING;
  PERFORM 1 FROM load_figures WHERE load_id = ANY(ids) ORDER BY load_id FOR UPDATE;
  UPDATE load_figures f SET
    offer_count = (SELECT count(DISTINCT o.carrier_id) FROM offers o WHERE o.load_id = f.load_id),
    max_offer_amount = (SELECT max(o.offer_amount)::float8 FROM offers o WHERE o.load_id = f.load_id),
    min_offer_amount = (SELECT min(o.offer_amount)::float8 FROM offers o WHERE o.load_id = f.load_id),
    active_escalation_count =
      (SELECT count(*) FROM escalations e WHERE e.load_id = f.load_id AND e.status = 'ACTIVE')
  WHERE f.load_id = ANY(ids);
END;
$$;
--> statement-breakpoint
-- Inserts and deletes, a statement at a time (a seed or a cascade writes many rows at once).
CREATE FUNCTION load_figures_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM load_figures_refresh(ARRAY(SELECT DISTINCT load_id FROM new_rows));
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION load_figures_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM load_figures_refresh(ARRAY(SELECT DISTINCT load_id FROM old_rows));
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Updates, a row at a time: only a row whose counted columns changed (a transition table cannot
-- be combined with a column list, and most updates of offers change their status only).
CREATE FUNCTION load_figures_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM load_figures_refresh(ARRAY[OLD.load_id, NEW.load_id]);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER offers_load_figures_insert AFTER INSERT ON offers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION load_figures_inserted();
--> statement-breakpoint
CREATE TRIGGER offers_load_figures_delete AFTER DELETE ON offers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION load_figures_deleted();
--> statement-breakpoint
CREATE TRIGGER offers_load_figures_update AFTER UPDATE OF load_id, carrier_id, offer_amount ON offers
  FOR EACH ROW
  WHEN (OLD.load_id IS DISTINCT FROM NEW.load_id OR OLD.carrier_id IS DISTINCT FROM NEW.carrier_id
        OR OLD.offer_amount IS DISTINCT FROM NEW.offer_amount)
  EXECUTE FUNCTION load_figures_updated();
--> statement-breakpoint
CREATE TRIGGER escalations_load_figures_insert AFTER INSERT ON escalations
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION load_figures_inserted();
--> statement-breakpoint
CREATE TRIGGER escalations_load_figures_delete AFTER DELETE ON escalations
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION load_figures_deleted();
--> statement-breakpoint
CREATE TRIGGER escalations_load_figures_update AFTER UPDATE OF load_id, status ON escalations
  FOR EACH ROW
  WHEN (OLD.load_id IS DISTINCT FROM NEW.load_id OR OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION load_figures_updated();
--> statement-breakpoint
INSERT INTO load_figures (load_id, organization_id, offer_count, max_offer_amount, min_offer_amount,
                          active_escalation_count)
SELECT l.id, l.organization_id,
       (SELECT count(DISTINCT o.carrier_id) FROM offers o WHERE o.load_id = l.id),
       (SELECT max(o.offer_amount)::float8 FROM offers o WHERE o.load_id = l.id),
       (SELECT min(o.offer_amount)::float8 FROM offers o WHERE o.load_id = l.id),
       (SELECT count(*) FROM escalations e WHERE e.load_id = l.id AND e.status = 'ACTIVE')
FROM loads l
WHERE EXISTS (SELECT 1 FROM offers o WHERE o.load_id = l.id)
   OR EXISTS (SELECT 1 FROM escalations e WHERE e.load_id = l.id);
