import type { Article, Headline, Teaser } from '../../src/content';
import type { SectionSlug } from '../../src/sections';
import type { ChangeFeed } from './changes';

// The one contract every content store meets: SQLite (sqlite.ts), PostgreSQL (postgres.ts), both
// over the one query table (sql-queries.ts, sql-reads.ts), and the newsroom API (newsroom-api.ts),
// which answers it from another Kiosk's /api pages. One reader (reader.ts) puts every page
// together from these answers, whichever the store. What the stores do: read and write data, and
// say what changed. Nothing here is kept, retried or turned into an HTTP answer: the content
// cache (cache.ts) keeps answers, and failure.ts maps failures, once for every store. Failures are
// the store's own errors; `isOutage` tells the cache which mean "stop asking for a moment".

/** A content store: rows of published articles (teasers, articles, headlines), newest first. */
export interface ArticleStore {
  /** How logs name it: "<name> failed". */
  readonly name: string;
  /**
   * What changed, article by article (changes.ts); null for a store that cannot say (the
   * newsroom API): the cache then keeps its answers for CONTENT_FRESH_S.
   */
  readonly changes: ChangeFeed | null;
  /** The store itself is in trouble (unreachable, timed out, shutting down), as opposed to one bad answer. */
  isOutage(error: unknown): boolean;
  /** Resolves once its connections are closed. */
  close(): void | Promise<void>;
  /** At most `limit` published teasers of the list, newest first; only those older than `before` when given. */
  teasers(list: ArticleList, limit: number, before?: string): Promise<Teaser[]>;
  /** The newest `limit` published teasers of each list, newest first, in one statement (an article page's lists at once). */
  newest(lists: readonly ArticleList[], limit: number): Promise<Teaser[][]>;
  /** A published article; null for a draft or an unknown id. */
  article(id: string): Promise<Article | null>;
  /** Any status, drafts included: for an editor's preview, never for public pages (the newsroom API rejects: it serves no drafts). */
  articleAnyStatus(id: string): Promise<Article | null>;
  /** Preview links to the article issued at or before this time (ISO 8601) are revoked; null when none are (or no article); the newsroom API rejects. */
  previewsRevokedBefore(id: string): Promise<string | null>;
  /**
   * The `size` tags most carried by the newest `window` published articles, and the oldest of
   * those articles' id (null when there are fewer): a change older than it cannot move them.
   */
  trendingTags(window: number, size: number): Promise<{ tags: string[]; oldestId: string | null }>;
  /** Number of published articles (the newsroom API rejects: it does not say). */
  count(): Promise<number>;
  /** The most-read published stories of the last hour (the views part keeps and ranks them; the newsroom API its own, at most 50). */
  mostRead(limit: number): Promise<Headline[]>;
}

/** A list of published articles, newest first: everything, a section's, or a tag's. */
export type ArticleList = 'all' | { section: SectionSlug } | { tag: string };

/** The name changes are filed under (server/content/cache.ts): 'all', 'section:news', 'tag:climate'. */
export function listKey(list: ArticleList): string {
  if (list === 'all') return 'all';
  return 'section' in list ? `section:${list.section}` : `tag:${list.tag}`;
}
