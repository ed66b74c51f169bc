import type { SectionSlug } from './sections';

import type {
  ArticleAnswerShape,
  ArticleShape,
  BlockShape,
  FrontPageShape,
  HeadlineShape,
  ImageShape,
  SectionPageShape,
  TagPageShape,
  TeaserShape,
} from './content-schema';

// The content model as it crosses the wire: the JSON API answers with exactly these shapes,
// and the server-side store returns them too, so a page renders the same from either. The
// shapes are written once, as the schema in content-schema.ts; these are its types.

export type Image = ImageShape;
/** Times (`publishedAt`, `updatedAt`) are ISO 8601. */
export type Teaser = TeaserShape;
/** Article bodies are structured blocks; no HTML is ever stored or rendered raw. */
export type Block = BlockShape;
export type Article = ArticleShape;
/** A story in a list of headlines: enough to link to it and say when. */
export type Headline = HeadlineShape;
export type FrontPage = FrontPageShape;
/** `nextCursor`: pass back as `cursor` to get the next page; null on the last page. */
export type SectionPage = SectionPageShape;
/** A tag's articles, newest first, paged like a section: `nextCursor` is the last item's id. */
export type TagPage = TagPageShape;
/**
 * What an article page shows, in one answer (one request per in-browser navigation): the
 * article, `related` (by shared tags, then the section) and `moreFromSection`.
 */
export type ArticleWithTeasers = ArticleAnswerShape;

export const sectionPageSize = 20;
export const maxSectionPageSize = 50;
export const latestListSize = 15;
export const relatedSize = 6;
export const moreFromSectionSize = 12;
export const mostReadSize = 10;
export const trendingTagsSize = 6;

/** Page sizes come from query strings: anything odd becomes the default or the nearest bound. */
export function clampPageSize(limit: number | undefined, fallback: number): number {
  if (limit === undefined || Number.isNaN(limit)) return fallback;
  return Math.min(maxSectionPageSize, Math.max(1, Math.trunc(limit)));
}

/**
 * Where pages get their content. The browser implementation speaks HTTP to `/api`; the
 * server passes its own store. Unknown things resolve to null; transport failures reject.
 */
export interface ContentClient {
  frontPage(): Promise<FrontPage>;
  section(slug: SectionSlug, options?: { cursor?: string; limit?: number }): Promise<SectionPage | null>;
  /** Published articles only. */
  article(id: string): Promise<Article | null>;
  /** Newest published stories across sections, as headlines (the list beside an article). */
  latest(limit?: number): Promise<Headline[]>;
  /** A tag's published articles, newest first; null when no published article carries it. */
  tag(slug: string, options?: { cursor?: string; limit?: number }): Promise<TagPage | null>;
  /** A published article with the teasers its page shows; null when there is none. */
  articleWithTeasers(id: string): Promise<ArticleWithTeasers | null>;
  /** The most-read published stories of the last hour, most read first. */
  mostRead(limit?: number): Promise<Headline[]>;
}

export function articlePath(teaser: Pick<Teaser, 'section' | 'id'>): string {
  return `/${teaser.section}/${teaser.id}`;
}
