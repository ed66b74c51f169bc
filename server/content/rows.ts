// Articles as rows and back, for both SQL stores: the same columns, the same text for the JSON
// ones (image, body), so SQLite and PostgreSQL answer byte for byte alike.
import type { Article, Block, Headline, Image, Teaser } from '../../src/content';
import type { SectionSlug } from '../../src/sections';
import { orderOf, type WriteOrder, type WriteResult } from './source';

export type HeadlineRow = Pick<TeaserRow, 'id' | 'section' | 'title' | 'published_at'>;

export interface TeaserRow {
  id: string;
  section: string;
  title: string;
  lead: string;
  image: string;
  published_at: string;
}

export interface ArticleRow extends TeaserRow {
  author: string;
  updated_at: string;
  /** JSON array of tag slugs, as written. */
  tags: string;
  body: string;
  status: Article['status'];
}

export function toHeadline(row: HeadlineRow): Headline {
  return { id: row.id, section: row.section as SectionSlug, title: row.title, publishedAt: row.published_at };
}

// Built field by field so a Teaser carries exactly the Teaser keys (the API sends these as is).
export function toTeaser(row: TeaserRow): Teaser {
  return {
    id: row.id,
    section: row.section as SectionSlug,
    title: row.title,
    lead: row.lead,
    image: JSON.parse(row.image) as Image,
    publishedAt: row.published_at,
  };
}

/** Rows of several lists read in one statement (column `n`, from 1), back into one list each, newest first. */
export function byList(rows: readonly (TeaserRow & { n: number })[], lists: number): Teaser[][] {
  const grouped: TeaserRow[][] = Array.from({ length: lists }, () => []);
  for (const row of rows) grouped[row.n - 1]?.push(row);
  // Each list's own order, whatever order the statement's parts came back in.
  return grouped.map((list) => list.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map(toTeaser));
}

export function toArticle(row: ArticleRow): Article {
  return {
    ...toTeaser(row),
    author: row.author,
    updatedAt: row.updated_at,
    tags: JSON.parse(row.tags) as string[],
    body: JSON.parse(row.body) as Block[],
    status: row.status,
  };
}

export function toRow(article: Article): ArticleRow {
  const { src, alt, caption, credit, width, height } = article.image;
  return {
    id: article.id,
    section: article.section,
    title: article.title,
    lead: article.lead,
    image: JSON.stringify({ src, alt, caption, credit, width, height } satisfies Image),
    published_at: article.publishedAt,
    author: article.author,
    updated_at: article.updatedAt,
    tags: JSON.stringify(article.tags),
    body: JSON.stringify(article.body),
    status: article.status,
  };
}

/** An article's row as its writer reads it, locked, before deciding: the content, and what orders writes. */
export interface StoredRow extends ArticleRow {
  /** The CMS's last-modified time of the stored version (rows written before ordered pushes: their updated_at). */
  modified_at: string;
  previews_revoked_before: string | null;
}

export function storedRow(article: Article, modifiedAt: string, previewsRevokedBefore: string | null): StoredRow {
  return { ...toRow(article), modified_at: modifiedAt, previews_revoked_before: previewsRevokedBefore };
}

// What a push may leave alone when it names the stored version's time: everything the reader sees.
const contentColumns = ['section', 'title', 'lead', 'image', 'published_at', 'author', 'tags', 'body', 'status'] as const;

function later(a: string | null, b: string): string {
  return a !== null && Date.parse(a) > Date.parse(b) ? a : b;
}

/** A write refused by If-Match: the stored version is not one the writer named. */
function mismatched(was: StoredRow, order: WriteOrder): boolean {
  return order.ifMatch !== undefined && !order.ifMatch.includes(was.modified_at);
}

function kept(was: StoredRow): WriteResult {
  return { outcome: 'unchanged', modifiedAt: was.modified_at, updatedAt: was.updated_at, previewsRevokedBefore: was.previews_revoked_before };
}

/**
 * What a push does to the stored row, decided in the writer's transaction by both SQL stores
 * alike: `write` is the row to write, null when nothing is. A newer version replaces the stored
 * one; the same version again changes nothing; an older one, or the same time with other content
 * (the CMS cannot have two versions at one time), is refused. Taking a published article back to
 * draft revokes the preview links issued until then.
 */
export function decideUpsert(was: StoredRow | null, article: Article, order: WriteOrder): { write: StoredRow | null; result: WriteResult } {
  if (was === null) {
    if (order.ifMatch !== undefined) return { write: null, result: { outcome: 'preconditionFailed', modifiedAt: null } };
    return {
      write: storedRow(article, order.modifiedAt, null),
      result: { outcome: 'created', modifiedAt: order.modifiedAt, updatedAt: article.updatedAt, previewsRevokedBefore: null },
    };
  }
  if (mismatched(was, order)) return { write: null, result: { outcome: 'preconditionFailed', modifiedAt: was.modified_at } };
  const unpublishing = was.status === 'published' && article.status === 'draft';
  const revoked = unpublishing ? later(was.previews_revoked_before, article.updatedAt) : was.previews_revoked_before;
  const row = storedRow(article, order.modifiedAt, revoked);
  const ordered = orderOf(was.modified_at, order.modifiedAt);
  if (ordered === 'same' && contentColumns.every((c) => row[c] === was[c])) return { write: null, result: kept(was) };
  if (ordered !== 'newer') return { write: null, result: { outcome: 'stale', modifiedAt: was.modified_at } };
  return { write: row, result: { outcome: 'updated', modifiedAt: order.modifiedAt, updatedAt: article.updatedAt, previewsRevokedBefore: revoked } };
}

/**
 * What an unpublish does, by the same rules: at the stored version's time or later it takes the
 * article off the site (the CMS need not move its time to unpublish) and revokes its preview
 * links; the same unpublish again changes nothing; an older one is refused.
 */
export function decideUnpublish(
  was: StoredRow | null,
  updatedAt: string,
  order: WriteOrder,
): { write: { previewsRevokedBefore: string } | null; result: WriteResult } {
  if (was === null) return { write: null, result: { outcome: 'notFound' } };
  if (mismatched(was, order)) return { write: null, result: { outcome: 'preconditionFailed', modifiedAt: was.modified_at } };
  const ordered = orderOf(was.modified_at, order.modifiedAt);
  if (ordered === 'older') return { write: null, result: { outcome: 'stale', modifiedAt: was.modified_at } };
  if (ordered === 'same' && was.status === 'draft') return { write: null, result: kept(was) };
  const revoked = later(was.previews_revoked_before, updatedAt);
  return { write: { previewsRevokedBefore: revoked }, result: { outcome: 'updated', modifiedAt: order.modifiedAt, updatedAt, previewsRevokedBefore: revoked } };
}
