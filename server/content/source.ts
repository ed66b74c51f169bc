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
   * Adds one worker's flush of article views (id → count) to `minute` (minutes since the
   * epoch). Absent where the store does not count (the newsroom API counts its own).
   */
  recordViews?(minute: number, counts: ReadonlyMap<string, number>): void | Promise<void>;
  /** Records a newsletter address as unconfirmed (once; a repeat keeps the first time). */
  recordSignup?(address: string, newsletters: readonly string[], at: string): void | Promise<void>;
  close(): void;
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
