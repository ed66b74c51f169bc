-- Up Migration
-- The articles table as the SQLite store has it (server/content/sqlite.ts): ids are 18 digits
-- (publish minute + serial), so comparing them as text is comparing them by publish time, and
-- "newest first" is ORDER BY id DESC on an index. COLLATE "C" compares bytes, whatever the
-- database's locale. image and body are JSON kept as written (json, not jsonb, keeps the key
-- order), so both stores answer byte for byte alike.
CREATE TABLE articles (
  id           text COLLATE "C" PRIMARY KEY CHECK (id ~ '^[0-9]{18}$'),
  section      text NOT NULL,
  status       text NOT NULL CHECK (status IN ('published', 'draft')),
  title        text NOT NULL,
  lead         text NOT NULL,
  author       text NOT NULL,
  image        json NOT NULL,
  published_at text NOT NULL,
  updated_at   text NOT NULL,
  body         json NOT NULL
);
CREATE INDEX articles_by_section ON articles (status, section, id DESC);
CREATE INDEX articles_by_time ON articles (status, id DESC);

-- Every transaction that changes articles tells every listening worker, once, when it commits
-- (NOTIFY is delivered at commit; identical notifications in one transaction are folded into
-- one). A trigger, so no writer can forget: the CMS push, the seed, an operator's psql.
CREATE FUNCTION kiosk_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('kiosk_content', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER articles_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON articles
  FOR EACH STATEMENT EXECUTE FUNCTION kiosk_content_changed();

-- Down Migration
DROP TABLE articles;
DROP FUNCTION kiosk_content_changed();
