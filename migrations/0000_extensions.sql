-- Trigram indexes serve the substring search of the load and carrier lists.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
