-- Up Migration
-- Every change to articles tells every listening worker what changed, article by article:
-- the id, and its section, tags and status before and after (server/content/changes.ts), so a
-- worker lets go of what depends on that article and keeps the rest. A statement that changes
-- more than 100 articles (the seed, an operator's bulk update) sends '*' instead: everything
-- may have changed. NOTIFY is delivered at commit, so a rolled-back change says nothing.
-- Transition tables are allowed on triggers of one event only, hence three triggers.
DROP TRIGGER articles_changed ON articles;
DROP FUNCTION kiosk_content_changed();

CREATE FUNCTION kiosk_notify_article_changes(changes json[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  change json;
BEGIN
  IF cardinality(changes) > 100 THEN
    PERFORM pg_notify('kiosk_content', '*');
    RETURN;
  END IF;
  FOREACH change IN ARRAY changes LOOP
    -- A payload over NOTIFY's 8,000 bytes would fail the writer's transaction; tags are bounded
    -- far below that, but a change is never worth a failed write.
    PERFORM pg_notify('kiosk_content', CASE WHEN octet_length(change::text) < 7900 THEN change::text ELSE '*' END);
  END LOOP;
END;
$$;

CREATE FUNCTION kiosk_articles_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM kiosk_notify_article_changes(ARRAY(
    SELECT json_build_object('id', n.id, 'now', json_build_object('section', n.section, 'tags', n.tags, 'status', n.status), 'was', NULL)
    FROM new_rows n));
  RETURN NULL;
END;
$$;

CREATE FUNCTION kiosk_articles_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM kiosk_notify_article_changes(ARRAY(
    SELECT json_build_object(
      'id', coalesce(n.id, o.id),
      'now', CASE WHEN n.id IS NULL THEN NULL ELSE json_build_object('section', n.section, 'tags', n.tags, 'status', n.status) END,
      'was', CASE WHEN o.id IS NULL THEN NULL ELSE json_build_object('section', o.section, 'tags', o.tags, 'status', o.status) END)
    FROM new_rows n FULL JOIN old_rows o ON o.id = n.id));
  RETURN NULL;
END;
$$;

CREATE FUNCTION kiosk_articles_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM kiosk_notify_article_changes(ARRAY(
    SELECT json_build_object('id', o.id, 'now', NULL, 'was', json_build_object('section', o.section, 'tags', o.tags, 'status', o.status))
    FROM old_rows o));
  RETURN NULL;
END;
$$;

CREATE FUNCTION kiosk_articles_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('kiosk_content', '*');
  RETURN NULL;
END;
$$;

CREATE TRIGGER articles_inserted AFTER INSERT ON articles REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kiosk_articles_inserted();
CREATE TRIGGER articles_updated AFTER UPDATE ON articles REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kiosk_articles_updated();
CREATE TRIGGER articles_deleted AFTER DELETE ON articles REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kiosk_articles_deleted();
CREATE TRIGGER articles_truncated AFTER TRUNCATE ON articles
  FOR EACH STATEMENT EXECUTE FUNCTION kiosk_articles_truncated();

-- Down Migration
DROP TRIGGER articles_truncated ON articles;
DROP TRIGGER articles_deleted ON articles;
DROP TRIGGER articles_updated ON articles;
DROP TRIGGER articles_inserted ON articles;
DROP FUNCTION kiosk_articles_truncated();
DROP FUNCTION kiosk_articles_deleted();
DROP FUNCTION kiosk_articles_updated();
DROP FUNCTION kiosk_articles_inserted();
DROP FUNCTION kiosk_notify_article_changes(json[]);
CREATE FUNCTION kiosk_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('kiosk_content', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER articles_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON articles
  FOR EACH STATEMENT EXECUTE FUNCTION kiosk_content_changed();
