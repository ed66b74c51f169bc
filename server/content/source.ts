import type { Article, ContentClient } from '../../src/content';

// What the rest of the server gets from server/content/open.ts: a reader for pages, a writer
// for the CMS, and the parts that keep what readers do (views, newsletter sign-ups).

/** Every page's content, whichever the store, through the one content cache. */
export interface ContentReader extends ContentClient {
  /** Any status, drafts included: for an editor's preview, never for public pages. */
  articleAnyStatus(id: string): Promise<Article | null>;
  /** Moves whenever content readers see changes; null where only time tells (the newsroom API). */
  version(): number | null;
}

/**
 * The CMS's writes. Each commit reaches every worker's change feed (SQLite's change log,
 * PostgreSQL's NOTIFY), so every worker lets go of what the article changes.
 */
export interface ArticleWriter {
  upsert(article: Article): 'created' | 'updated' | Promise<'created' | 'updated'>;
  /** false when there is no such article. */
  unpublish(id: string, updatedAt: string): boolean | Promise<boolean>;
}

/** Adds one worker's flush of article views (id → count) to `minute` (minutes since the epoch). */
export interface ViewsStore {
  recordViews(minute: number, counts: ReadonlyMap<string, number>): void | Promise<void>;
}

/** Records a newsletter address as unconfirmed (once; a repeat keeps the first time). */
export interface SignupStore {
  recordSignup(address: string, newsletters: readonly string[], at: string): void | Promise<void>;
}
