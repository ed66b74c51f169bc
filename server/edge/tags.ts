import type { ArticleWithTeasers, Headline, SectionPage, TagPage } from '../../src/content';
import type { CacheClass } from '../../src/routes';
import type { RootState } from '../../src/store';
import { entryOf } from '../../src/store/keyed';
import type { ArticleChange, ContentChange } from '../content/changes';

// Cache tags: what each cacheable answer shows, named so that a content change can drop exactly
// the answers that show it from CloudFront (CreateInvalidation with "#tag" items, sent by
// server/edge/purge.ts). The header is named once, here; the distribution's CacheTagConfig
// (.ebextensions/10-cloudfront.config) names the same header.
//
// CloudFront's rules ("Invalidating content by cache tags", CloudFront Developer Guide): a tag is
// ASCII 33–126 without commas, at most 256 characters, case-insensitive; at most 50 per object
// (the rest are not stored). Every tag here is built from an 18-digit id, a section slug or a tag
// slug (lower-case words and hyphens), so each is within the rules by construction, and
// `cacheTagHeader` checks anyway.
//
// What an answer carries:
// - a list a page is about (the front page, a section, a tag, the latest or most-read list)
//   carries that list's tag: any change to an article that was or is in it drops it;
// - an article carries its own `a:<id>`, and for the teasers it shows beside it (related, more
//   from the section, latest, most read) each teaser's `a:<id>`: a correction or an unpublish of
//   any story shown drops the page, while a story newly published enters those side lists when the
//   page's edge lifetime runs out (server/cache-policy.ts), not on every push anywhere;
// - past 50 tags, the coarser set: the article, its section, its tags and `l:all` (every change).

/** The response header CloudFront reads the tags from (CacheTagConfig.HeaderName). */
export const cacheTagHeaderName = 'Cache-Tag';
/** CloudFront stores at most this many tags per object. */
export const maxTagsPerObject = 50;
export const maxTagLength = 256;

export const cacheTag = {
  article: (id: string) => `a:${id}`,
  section: (slug: string) => `s:${slug}`,
  tag: (slug: string) => `t:${slug}`,
  /** Every list of all sections (latest, most read): any public change drops it. */
  all: 'l:all',
  front: 'front',
} as const;

/** ASCII 33–126 except the comma, 1–256 characters. */
export function isCacheTag(tag: string): boolean {
  return tag.length >= 1 && tag.length <= maxTagLength && /^[\x21-\x2b\x2d-\x7e]+$/.test(tag);
}

/**
 * The header's value: the precise tags when there are at most 50, else the coarse ones (which
 * must fit). Throws on a tag outside CloudFront's rules: a programming error, never input.
 */
export function cacheTagValue(precise: Iterable<string>, coarse: Iterable<string> = []): string {
  let tags = [...new Set(precise)];
  if (tags.length > maxTagsPerObject) tags = [...new Set(coarse)];
  if (tags.length > maxTagsPerObject) throw new Error(`${tags.length} cache tags; CloudFront keeps ${maxTagsPerObject}`);
  for (const tag of tags) if (!isCacheTag(tag)) throw new Error(`not a CloudFront cache tag: ${JSON.stringify(tag)}`);
  return tags.join(',');
}

/** The header for an answer, as a record to spread into its headers. */
export function cacheTagHeader(precise: Iterable<string>, coarse: Iterable<string> = []): Record<string, string> {
  return { [cacheTagHeaderName]: cacheTagValue(precise, coarse) };
}

export const frontTags = () => cacheTagHeader([cacheTag.front]);
export const sectionTags = (page: Pick<SectionPage, 'section'>) => cacheTagHeader([cacheTag.section(page.section)]);
export const tagTags = (page: Pick<TagPage, 'tag'>) => cacheTagHeader([cacheTag.tag(page.tag)]);
/** The latest and the most-read lists. */
export const allListTags = () => cacheTagHeader([cacheTag.all]);

/** An article answer (its page, or /api's) and the teasers shown beside it. */
export function articleTags(page: ArticleWithTeasers, beside: readonly (readonly Pick<Headline, 'id'>[])[] = []): Record<string, string> {
  const { article } = page;
  const shown = [page.related, page.moreFromSection, ...beside].flat().map((teaser) => cacheTag.article(teaser.id));
  const coarse = [cacheTag.article(article.id), cacheTag.section(article.section), ...article.tags.map(cacheTag.tag), cacheTag.all];
  return cacheTagHeader([cacheTag.article(article.id), ...shown], coarse);
}

/**
 * A server-rendered page's tags, from the state it rendered (server/page-state.ts): what it
 * shows, whatever the route. Empty for what cannot be tagged (a 404 that a story may replace).
 */
export function pageTags(cache: CacheClass, state: RootState, articleId?: string): Record<string, string> {
  switch (cache) {
    case 'front':
      return frontTags();
    case 'section':
      return cacheTagHeader(Object.keys(state.sections).map(cacheTag.section));
    case 'tag':
      return cacheTagHeader(Object.keys(state.tags).map(cacheTag.tag));
    case 'article': {
      const article = articleId === undefined ? undefined : entryOf(state.articles, articleId);
      const teasers = articleId === undefined ? undefined : entryOf(state.articleTeasers, articleId);
      if (article === undefined || teasers === undefined) return {};
      return articleTags({ article, ...teasers }, [state.latest.items ?? [], state.mostRead.items ?? []]);
    }
    case 'notFound':
      return {};
  }
}

/** The tags an article's state reaches: the lists it is in. */
function listTags(state: ArticleChange['now']): string[] {
  return state === null ? [] : [cacheTag.section(state.section), ...state.tags.map(cacheTag.tag)];
}

/**
 * A change to what readers have seen (a correction, an edit or an unpublish of a story that was
 * public), or one the feed cannot describe: the sender never holds it for its budget
 * (server/edge/purge.ts).
 */
export function takesBack(change: ContentChange): boolean {
  return change.kind === 'everything' || change.was?.status === 'published';
}

/**
 * What a change drops at the edge, as CreateInvalidation items: "#tag"s for an article's change
 * (its own page and every list it was or is in), "/*" when the feed cannot say what changed. A
 * draft that stays a draft touches nothing readers see: no items.
 */
export function purgeItems(change: ContentChange): string[] {
  if (change.kind === 'everything') return ['/*'];
  const { was, now } = change;
  if (was?.status !== 'published' && now?.status !== 'published') return [];
  const tags = new Set([cacheTag.article(change.id), cacheTag.front, cacheTag.all, ...listTags(was), ...listTags(now)]);
  return [...tags].map((tag) => `#${tag}`);
}
