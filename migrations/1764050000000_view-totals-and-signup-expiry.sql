-- Up Migration
-- Most read ranks from running totals (server/content/postgres-views.ts): each article's views
-- over the window, kept beside the per-minute rows, added to by every flush and subtracted from
-- as minutes leave the window. Ranking reads this table by its index: one row per article it
-- returns, never one per view. Views of ids that are no published article were once stored;
-- they go, and the totals start from what is left.
DELETE FROM article_views v WHERE NOT EXISTS (SELECT 1 FROM articles a WHERE a.id = v.article_id AND a.status = 'published');
CREATE TABLE article_view_totals (
  article_id text COLLATE "C" PRIMARY KEY,
  views      bigint NOT NULL
);
CREATE INDEX article_view_totals_by_views ON article_view_totals (views DESC, article_id DESC);
INSERT INTO article_view_totals (article_id, views) SELECT article_id, sum(views) FROM article_views GROUP BY article_id;

-- Unconfirmed sign-ups expire (NEWSLETTER_UNCONFIRMED_DAYS): found by this index.
CREATE INDEX newsletter_signups_unconfirmed ON newsletter_signups (signed_up_at) WHERE NOT confirmed;

-- Down Migration
DROP INDEX newsletter_signups_unconfirmed;
DROP TABLE article_view_totals;
