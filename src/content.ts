import type { SectionSlug } from './sections';

import type { ArticleShape, BlockShape, FrontPageShape, HeadlineShape, ImageShape, SectionPageShape, TeaserShape } from './content-schema';

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

export const sectionPageSize = 20;
export const maxSectionPageSize = 50;
export const latestListSize = 15;

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
}

export function articlePath(teaser: Pick<Teaser, 'section' | 'id'>): string {
  return `/${teaser.section}/${teaser.id}`;
}
