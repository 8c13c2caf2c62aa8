-- Hand-written (drizzle cannot express triggers).
--
-- load_status_counts: statement-level triggers fold each statement's inserted, updated and deleted
-- loads into per-status deltas, in the same transaction as the write, so the unfiltered and
-- status-only load lists never COUNT(*).
--
-- load_list_versions: the same triggers, and triggers on every table a load-list tab reads, bump a
-- per-(organization, table) version, which tells the service that a count it kept is still exact.
CREATE OR REPLACE FUNCTION load_list_version_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO load_list_versions AS v (organization_id, source, version)
    SELECT DISTINCT organization_id, TG_TABLE_NAME, 1 FROM old_rows ORDER BY 1
    ON CONFLICT (organization_id, source) DO UPDATE SET version = v.version + 1;
  ELSE
    INSERT INTO load_list_versions AS v (organization_id, source, version)
    SELECT DISTINCT organization_id, TG_TABLE_NAME, 1 FROM new_rows ORDER BY 1
    ON CONFLICT (organization_id, source) DO UPDATE SET version = v.version + 1;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION load_status_counts_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO load_status_counts AS c (organization_id, load_status, n)
    SELECT organization_id, coalesce(load_status, ''), count(*) FROM new_rows GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (organization_id, load_status) DO UPDATE SET n = c.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE load_status_counts c SET n = c.n - d.n
    FROM (SELECT organization_id, coalesce(load_status, '') AS load_status, count(*) AS n
          FROM old_rows GROUP BY 1, 2) d
    WHERE c.organization_id = d.organization_id AND c.load_status = d.load_status;
  ELSE
    INSERT INTO load_status_counts AS c (organization_id, load_status, n)
    SELECT organization_id, load_status, sum(n) FROM (
      SELECT organization_id, coalesce(load_status, '') AS load_status, 1 AS n FROM new_rows
      UNION ALL
      SELECT organization_id, coalesce(load_status, ''), -1 FROM old_rows
    ) d GROUP BY 1, 2 HAVING sum(n) <> 0
    ORDER BY 1, 2
    ON CONFLICT (organization_id, load_status) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER loads_status_counts_insert AFTER INSERT ON loads
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION load_status_counts_apply();
--> statement-breakpoint
CREATE TRIGGER loads_status_counts_update AFTER UPDATE ON loads
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION load_status_counts_apply();
--> statement-breakpoint
CREATE TRIGGER loads_status_counts_delete AFTER DELETE ON loads
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION load_status_counts_apply();
--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['loads', 'offers', 'calls', 'outreaches', 'notifications',
                           'carrier_verifications', 'escalations'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION load_list_version_bump()', t || '_list_version_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows '
      'NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION load_list_version_bump()',
      t || '_list_version_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION load_list_version_bump()', t || '_list_version_delete', t);
  END LOOP;
END;
$$;
