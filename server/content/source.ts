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

/**
 * Views as both SQL stores keep them: per article per minute, plus each article's running total
 * over the window, so that ranking reads one row per article it returns, never one per view.
 */
export interface ViewsStore {
  /**
   * Adds one flush's counts (article id → views) to `minute` (minutes since the epoch). Resolves
   * with the counts it could not write because another process held the store (nothing waits for
   * a lock): the caller keeps those for its next flush.
   */
  record(minute: number, counts: ReadonlyMap<string, number>): Promise<ReadonlyMap<string, number>>;
  /** Takes the minutes that have left the window (ending at `nowMinute`) out of the totals and the store. */
  expire(nowMinute: number): Promise<void>;
  /** The `limit` most viewed article ids over the window, most viewed first. */
  ranked(limit: number): Promise<string[]>;
  close(): void;
}

/** The newsletter's sign-ups, kept as a mailing list keeps them: apart from everything else. */
export interface SignupStore {
  /**
   * Records the address as unconfirmed; a second sign-up adds letters and keeps the first time.
   * Resolves once the sign-up is durable; rejects with StoreBusy when the store could not take it
   * in time, so the reader is told to try again instead of being thanked for a sign-up that is lost.
   */
  signup(address: string, newsletters: readonly string[], at: string): Promise<void>;
  /** Deletes sign-ups still unconfirmed that were made before `before` (ISO 8601); resolves with how many. */
  expireUnconfirmed(before: string): Promise<number>;
  close(): void;
}

/** The store was held by another writer past the caller's deadline: nothing was written. */
export class StoreBusy extends Error {
  override name = 'StoreBusy';
}
