import type { Article, ContentClient } from '../../src/content';
import type { PageReads } from './cache';

// What the rest of the server gets from server/content/open.ts: a reader for pages, a writer
// for the CMS, and the parts that keep what readers do (views, newsletter sign-ups).

/** Every page's content, whichever the store, through the one content cache. */
export interface ContentReader extends ContentClient {
  /** Any status, drafts included: for an editor's preview, never for public pages. */
  articleAnyStatus(id: string): Promise<Article | null>;
  /** Preview links to the article issued at or before this time (ISO 8601) are revoked; null when none are. */
  previewsRevokedBefore(id: string): Promise<string | null>;
  /** Moves whenever content readers see changes (tests); null where only time tells (the newsroom API). */
  version(): number | null;
  /** The same reads for one page's render, each noted in `reads` (the page cache keeps the page with what they depend on). */
  noting(reads: PageReads): ContentClient;
}

/**
 * What orders the CMS's writes of one article: its own last-modified time of the story, so a
 * late replay (a retry queue, a duplicated webhook) can never undo a newer version; and, from
 * If-Match, the stored versions the writer expects to replace.
 */
export interface WriteOrder {
  /** The CMS's last-modified time of the story, ISO 8601 in UTC as `Date.toISOString` writes it. */
  modifiedAt: string;
  /** The stored modifiedAt values this write may replace (If-Match's ETags); left out, any or none. */
  ifMatch?: readonly string[];
}

/**
 * What a write did, decided in the write's own transaction. `stale`: the stored version is newer
 * (or as new with other content), nothing changed; `preconditionFailed`: the stored version is not
 * one `ifMatch` names (null: there is none), nothing changed; `unchanged`: the same version again.
 */
export type WriteResult =
  | { outcome: 'created' | 'updated' | 'unchanged'; modifiedAt: string; updatedAt: string; previewsRevokedBefore: string | null }
  | { outcome: 'stale'; modifiedAt: string }
  | { outcome: 'preconditionFailed'; modifiedAt: string | null }
  | { outcome: 'notFound' };

/**
 * The CMS's writes. Each commit reaches every worker's change feed (SQLite's change log,
 * PostgreSQL's NOTIFY), so every worker lets go of what the article changes. A write that takes a
 * published article back to draft also revokes every preview link issued until then (`updatedAt`
 * is that moment); a write refused or unchanged commits nothing and tells no feed.
 */
export interface ArticleWriter {
  /** Never 'notFound'. */
  upsert(article: Article, order: WriteOrder): WriteResult | Promise<WriteResult>;
  /** 'unchanged' for the same unpublish again; never 'created'. */
  unpublish(id: string, updatedAt: string, order: WriteOrder): WriteResult | Promise<WriteResult>;
}

/**
 * Whether a write of `modifiedAt` may replace the stored version, and what comes of it: a newer
 * one replaces it; the same one is 'same' (the caller compares the content); an older one never.
 * Shared by both SQL stores so they cannot decide differently.
 */
export function orderOf(stored: string, modifiedAt: string): 'newer' | 'same' | 'older' {
  const [was, now] = [Date.parse(stored), Date.parse(modifiedAt)];
  return now > was ? 'newer' : now === was ? 'same' : 'older';
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
