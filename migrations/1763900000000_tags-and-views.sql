-- Up Migration
-- Tags, as the SQLite store has them (server/content/sqlite.ts): the article's list as JSON text
-- (kept as written, so both stores answer byte for byte alike), and one row per tag for a tag's
-- page, walked newest first on the primary key. Written in the article's own transaction, so
-- the articles trigger's NOTIFY covers them.
ALTER TABLE articles ADD COLUMN tags json NOT NULL DEFAULT '[]';
CREATE TABLE article_tags (
  tag        text COLLATE "C" NOT NULL,
  article_id text COLLATE "C" NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
  PRIMARY KEY (tag, article_id)
);
CREATE INDEX article_tags_by_article ON article_tags (article_id);

-- Most read: each worker adds its views per article per minute every few seconds; the ranking
-- sums the last hour. No trigger: views are not content, and must not invalidate every worker's
-- cached pages several times a second.
CREATE TABLE article_views (
  article_id text COLLATE "C" NOT NULL,
  minute     integer NOT NULL,
  views      bigint NOT NULL,
  PRIMARY KEY (article_id, minute)
);
CREATE INDEX article_views_by_minute ON article_views (minute);

-- Newsletter sign-ups from the article page's form, unconfirmed until the newsroom's mailing
-- tool has had the reader confirm (double opt-in).
CREATE TABLE newsletter_signups (
  address      text PRIMARY KEY,
  newsletters  text NOT NULL,
  signed_up_at text NOT NULL,
  confirmed    boolean NOT NULL DEFAULT false
);

-- Down Migration
DROP TABLE newsletter_signups;
DROP TABLE article_views;
DROP TABLE article_tags;
ALTER TABLE articles DROP COLUMN tags;
