import type { Article, ContentClient } from '../../src/content';

/**
 * The server's own content store: what pages read through `ContentClient`, plus the few
 * things only the server may do (count, see drafts, let go of the file).
 */
export interface ContentSource extends ContentClient {
  /** Number of published articles; drafts are not counted. */
  count(): Promise<number>;
  /** Moves whenever the content changes; absent when the source cannot tell (caches then rely on time). */
  version?(): number;
  /** Any status, drafts included: for an editor's preview, never for public pages. */
  articleAnyStatus(id: string): Promise<Article | null>;
  /**
   * Every published article's id, for refusing views of anything else in O(1) (server/views.ts).
   * Absent where the store keeps no views.
   */
  publishedIds?(): Promise<string[]>;
  /** Article views for most read; null where the store does not count them (the newsroom API counts its own). */
  readonly views: ViewsStore | null;
  /** The newsletter's sign-ups; null where this site takes none. */
  readonly signups: SignupStore | null;
  close(): void;
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

/**
 * The CMS's writes. Each commit moves SQLite's data_version, or notifies every PostgreSQL
 * listener, so every worker's lists refresh. SQLite answers at once, PostgreSQL with a promise.
 */
export interface ArticleWriter {
  upsert(article: Article): 'created' | 'updated' | Promise<'created' | 'updated'>;
  /** false when there is no such article. */
  unpublish(id: string, updatedAt: string): boolean | Promise<boolean>;
  close(): void;
}
