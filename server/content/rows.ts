// Articles as rows and back, for both SQL stores: the same columns, the same text for the JSON
// ones (image, body), so SQLite and PostgreSQL answer byte for byte alike.
import type { Article, Block, Headline, Image, Teaser } from '../../src/content';
import type { SectionSlug } from '../../src/sections';

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
