import type { Article, Headline } from '../../src/content';
import { articleIdPattern } from '../../src/sections';
import { byList, toArticle, toHeadline, toTeaser, type ArticleRow, type HeadlineRow, type TeaserRow } from './rows';
import { headlinesQueries, newestQuery, postgresQueries, sqliteQueries, teasersQuery, type Dialect, type Query } from './sql-queries';
import type { ViewsStore } from './source';
import type { ArticleStore } from './store';
import { rankedOrNone } from './views-window';

// The store contract's reads, once for both SQL stores: each store hands in how it runs one
// statement (SQLite synchronously on its connection, PostgreSQL on its pool within a deadline)
// and gets the same answers from the same statements (sql-queries.ts), mapped by the same rows.ts.

/** Runs one statement, resolving with its rows. */
export type RunQuery = <R extends object>(query: Query) => Promise<R[]>;

export type SqlReads = Pick<
  ArticleStore,
  'teasers' | 'newest' | 'article' | 'articleAnyStatus' | 'previewsRevokedBefore' | 'trendingTags' | 'count' | 'mostRead'
> & {
  /** Every published article's id, for refusing views of anything else. */
  publishedIds(): Promise<string[]>;
};

/** Rows for these ids, in the order of the ids; ids without a row are left out. */
function inOrder<R extends { id: string }>(ids: readonly string[], rows: readonly R[]): R[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

async function one<R extends object>(all: RunQuery, query: Query): Promise<R | null> {
  return (await all<R>(query))[0] ?? null;
}

export function sqlReads(dialect: Dialect, all: RunQuery, views: ViewsStore): SqlReads {
  const q = dialect === 'sqlite' ? sqliteQueries : postgresQueries;

  /** The ranking as published headlines; articles unpublished since they were read are left out. */
  async function mostRead(limit: number): Promise<Headline[]> {
    const ids = await rankedOrNone(views);
    const found = await Promise.all(headlinesQueries(dialect, ids).map((query) => all<HeadlineRow>(query)));
    return inOrder(ids, found.flat()).map(toHeadline).slice(0, limit);
  }

  async function articleRow(text: string, id: string): Promise<Article | null> {
    if (!articleIdPattern.test(id)) return null;
    const row = await one<ArticleRow>(all, { text, params: [id] });
    return row ? toArticle(row) : null;
  }

  return {
    teasers: async (list, limit, before) => (await all<TeaserRow>(teasersQuery(dialect, list, limit, before))).map(toTeaser),
    async newest(lists, limit) {
      if (lists.length === 0) return [];
      return byList(await all<TeaserRow & { n: number }>(newestQuery(dialect, lists, limit)), lists.length);
    },
    article: (id) => articleRow(q.publishedArticle, id),
    articleAnyStatus: (id) => articleRow(q.anyArticle, id),
    async previewsRevokedBefore(id) {
      if (!articleIdPattern.test(id)) return null;
      return (await one<{ previews_revoked_before: string | null }>(all, { text: q.previewsRevokedBefore, params: [id] }))?.previews_revoked_before ?? null;
    },
    async trendingTags(window, size) {
      const [tags, oldest] = await Promise.all([
        all<{ tag: string }>({ text: q.trendingTags, params: [window, size] }),
        one<{ id: string }>(all, { text: q.trendingOldest, params: [window - 1] }),
      ]);
      return { tags: tags.map((r) => r.tag), oldestId: oldest?.id ?? null };
    },
    count: async () => (await one<{ n: number }>(all, { text: q.countPublished, params: [] }))?.n ?? 0,
    mostRead,
    publishedIds: async () => (await all<{ id: string }>({ text: q.publishedIds, params: [] })).map((r) => r.id),
  };
}
