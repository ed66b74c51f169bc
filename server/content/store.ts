import type { Article, ArticleWithTeasers, FrontPage, Headline, SectionPage, TagPage, Teaser } from '../../src/content';
import type { SectionSlug } from '../../src/sections';
import type { ChangeFeed } from './changes';

// What the stores do: read and write data, and say what changed. Nothing here is cached,
// retried or turned into an HTTP answer; the caching layer (cache.ts, reader.ts) does that once
// for every store. Failures are the store's own errors; `isOutage` tells the caching layer
// which mean "stop asking for a moment".

interface StoreBasics {
  /** How logs name it: "<name> failed". */
  readonly name: string;
  readonly changes: ChangeFeed;
  /** The store itself is in trouble (unreachable, timed out, shutting down), as opposed to one bad answer. */
  isOutage(error: unknown): boolean;
  /** Resolves once its connections are closed. */
  close(): void | Promise<void>;
}

/** A list of published articles, newest first: everything, a section's, or a tag's. */
export type ArticleList = 'all' | { section: SectionSlug } | { tag: string };

/** The name changes are filed under (server/content/cache.ts): 'all', 'section:news', 'tag:climate'. */
export function listKey(list: ArticleList): string {
  if (list === 'all') return 'all';
  return 'section' in list ? `section:${list.section}` : `tag:${list.tag}`;
}

/** A SQL store (SQLite, PostgreSQL): rows, from which the caching layer puts pages together. */
export interface ArticleStore extends StoreBasics {
  readonly kind: 'rows';
  /** At most `limit` published teasers of the list, newest first; only those older than `before` when given. */
  teasers(list: ArticleList, limit: number, before?: string): Promise<Teaser[]>;
  /** The newest `limit` published teasers of each list, newest first, in one statement (an article page's lists at once). */
  newest(lists: readonly ArticleList[], limit: number): Promise<Teaser[][]>;
  /** A published article; null for a draft or an unknown id. */
  article(id: string): Promise<Article | null>;
  /** Any status, drafts included: for an editor's preview, never for public pages. */
  articleAnyStatus(id: string): Promise<Article | null>;
  /** Preview links to the article issued at or before this time (ISO 8601) are revoked; null when none are (or no article). */
  previewsRevokedBefore(id: string): Promise<string | null>;
  /**
   * The `size` tags most carried by the newest `window` published articles, and the oldest of
   * those articles' id (null when there are fewer): a change older than it cannot move them.
   */
  trendingTags(window: number, size: number): Promise<{ tags: string[]; oldestId: string | null }>;
  /** Number of published articles. */
  count(): Promise<number>;
  /** The most-read published stories of the last hour (the views part keeps and ranks them). */
  mostRead(limit: number): Promise<Headline[]>;
}

/** The newsroom API: whole answers, as its `/api` gives them; null where it says 404. */
export interface PageStore extends StoreBasics {
  readonly kind: 'pages';
  frontPage(): Promise<FrontPage | null>;
  section(slug: SectionSlug, limit: number, cursor?: string): Promise<SectionPage | null>;
  tag(slug: string, limit: number, cursor?: string): Promise<TagPage | null>;
  latest(limit: number): Promise<Headline[] | null>;
  articleWithTeasers(id: string): Promise<ArticleWithTeasers | null>;
  mostRead(limit: number): Promise<Headline[] | null>;
}

export type ContentStore = ArticleStore | PageStore;
