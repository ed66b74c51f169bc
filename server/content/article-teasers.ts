import type { Article, ArticleWithTeasers, SectionPage, Teaser } from '../../src/content';
import { moreFromSectionSize, relatedSize } from '../../src/content';

// What an article page shows besides the article, chosen the same way by every SQL store (the
// store contract checks SQLite and PostgreSQL agree): related stories by shared tags, then the
// section's newest; more from the section, never repeating the article or a related story.

/** Newest published articles per tag the related list looks at: bounds the work per article. */
export const relatedCandidatesPerTag = 50;

/** The section page read for the fill and for "more from the section" (memoised by the stores). */
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

export interface ArticleTeaserReads {
  article(id: string): Promise<Article | null>;
  section(slug: Article['section'], options: { limit: number }): Promise<SectionPage | null>;
  /**
   * At most `limit` published teasers ranked as `rankByTags` ranks, from each tag's
   * `relatedCandidatesPerTag` newest published articles other than `excludeId`. SQLite ranks with
   * rankByTags itself; PostgreSQL in one statement (one round trip instead of two).
   */
  relatedByTags(tags: readonly string[], excludeId: string, limit: number): Promise<Teaser[]>;
}

export async function readArticleWithTeasers(reads: ArticleTeaserReads, id: string): Promise<ArticleWithTeasers | null> {
  const article = await reads.article(id);
  if (!article) return null;
  const [byTags, sectionPage] = await Promise.all([
    article.tags.length === 0 ? Promise.resolve([]) : reads.relatedByTags(article.tags, id, relatedSize),
    reads.section(article.section, { limit: sectionListForArticle }),
  ]);
  const sectionItems = (sectionPage?.items ?? []).filter((t) => t.id !== id);
  const taken = new Set(byTags.map((t) => t.id));
  const related = [...byTags, ...sectionItems.filter((t) => !taken.has(t.id))].slice(0, relatedSize);
  for (const t of related) taken.add(t.id);
  const moreFromSection = sectionItems.filter((t) => !taken.has(t.id)).slice(0, moreFromSectionSize);
  return { article, related, moreFromSection };
}

/** A tag page's section of trending tags: the tags most carried by the newest stories. */
export const trendingWindowArticles = 200;
