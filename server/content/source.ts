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
