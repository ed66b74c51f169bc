import type { Article, ArticleWithTeasers, Teaser } from '../../src/content';
import { moreFromSectionSize, relatedSize } from '../../src/content';

// What an article page shows besides the article, chosen the same way whatever the store (the
// store contract checks SQLite and PostgreSQL agree): related stories by shared tags, then the
// section's newest; more from the section, never repeating the article or a related story.
// Everything here works on lists the content cache already keeps, so a page is put together
// without reading the store again.

/** Newest published articles per tag the related list looks at: bounds the work per article. */
export const relatedCandidatesPerTag = 50;

/** The section's newest read for the fill and for "more from the section". */
export const sectionListForArticle = relatedSize + moreFromSectionSize + 2;

/**
 * Most tags in common first, newer first among equals. `candidates` holds, per tag of the
 * article, the ids of that tag's newest published articles other than the article itself.
 */
export function rankByTags(candidates: readonly (readonly string[])[], limit: number): string[] {
  const shared = new Map<string, number>();
  for (const ids of candidates) for (const id of ids) shared.set(id, (shared.get(id) ?? 0) + 1);
  return [...shared]
    .sort(([a, n], [b, m]) => m - n || (a < b ? 1 : a > b ? -1 : 0))
    .slice(0, limit)
    .map(([id]) => id);
}

/**
 * The page of `article`: `tagLists` holds, per tag of the article, that tag's newest published
 * teasers (at least relatedCandidatesPerTag + 1 of them where the tag has that many);
 * `sectionList` the section's newest (at least sectionListForArticle).
 */
export function articlePage(article: Article, tagLists: readonly (readonly Teaser[])[], sectionList: readonly Teaser[]): ArticleWithTeasers {
  const byId = new Map<string, Teaser>();
  const candidates = tagLists.map((list) => {
    const others = list.filter((t) => t.id !== article.id).slice(0, relatedCandidatesPerTag);
    for (const t of others) byId.set(t.id, t);
    return others.map((t) => t.id);
  });
  const byTags = rankByTags(candidates, relatedSize).map((id) => byId.get(id)!);
  const sectionItems = sectionList.slice(0, sectionListForArticle).filter((t) => t.id !== article.id);
  const taken = new Set(byTags.map((t) => t.id));
  const related = [...byTags, ...sectionItems.filter((t) => !taken.has(t.id))].slice(0, relatedSize);
  for (const t of related) taken.add(t.id);
  const moreFromSection = sectionItems.filter((t) => !taken.has(t.id)).slice(0, moreFromSectionSize);
  return { article, related, moreFromSection };
}

/** A tag page's section of trending tags: the tags most carried by the newest stories. */
export const trendingWindowArticles = 200;
