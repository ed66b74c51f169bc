-- Up Migration
-- Ordered pushes (server/ingest.ts): each article keeps the CMS's own last-modified time of the
-- version stored, and a push older than that changes nothing. Rows written before keep NULL,
-- read as their updated_at, so no statement here rewrites every article (nor notifies every
-- worker). previews_revoked_before: preview links to the article issued at or before it are
-- refused (server/preview.ts); the unpublish that revokes them writes it in its own transaction.
-- Both columns are new and nullable, so the version before keeps writing through a rolling
-- deployment (its pushes leave modified_at as it was: ordered again from the next new push).
ALTER TABLE articles ADD COLUMN modified_at text;
ALTER TABLE articles ADD COLUMN previews_revoked_before text;

-- Down Migration
ALTER TABLE articles DROP COLUMN previews_revoked_before;
ALTER TABLE articles DROP COLUMN modified_at;
