import type { SectionSlug } from './sections';

// The content model as it crosses the wire: the JSON API answers with exactly these shapes,
// and the server-side store returns them too, so a page renders the same from either.

export interface Image {
  src: string;
  alt: string;
  caption: string;
  credit: string;
  width: number;
  height: number;
}

export interface Teaser {
  id: string;
  section: SectionSlug;
  title: string;
  lead: string;
  image: Image;
  /** ISO 8601 */
  publishedAt: string;
}

/** Article bodies are structured blocks; no HTML is ever stored or rendered raw. */
export type Block =
  | { type: 'paragraph'; text: string }
  | { type: 'subheading'; text: string }
  | { type: 'quote'; text: string; attribution: string };

export interface Article extends Teaser {
  author: string;
  /** ISO 8601 */
  updatedAt: string;
  body: Block[];
  status: 'published' | 'draft';
}

/** A story in a list of headlines: enough to link to it and say when. */
export type Headline = Pick<Teaser, 'id' | 'section' | 'title' | 'publishedAt'>;

export interface FrontPage {
  lead: Teaser;
  sections: { section: SectionSlug; teasers: Teaser[] }[];
}

export interface SectionPage {
  section: SectionSlug;
  items: Teaser[];
  /** Pass back as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
}

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
