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
 * article, the ids of that tag's newest published articles other than the article itself,
 * newest first. Walking the lists together meets each id once per list that holds it, newest
 * first, so the counting needs no map and the ranking no sort: this runs whenever a change
 * makes an article page be put together again.
 */
export function rankByTags(candidates: readonly (readonly string[])[], limit: number): string[] {
  const at = candidates.map(() => 0);
  // byShared[n - 1]: ids in n of the lists, newest first; no more than limit of each are needed.
  const byShared: string[][] = candidates.map(() => []);
  for (;;) {
    let newest: string | undefined;
    for (let i = 0; i < candidates.length; i += 1) {
      const id = candidates[i]![at[i]!];
      if (id !== undefined && (newest === undefined || id > newest)) newest = id;
    }
    if (newest === undefined) break;
    let shared = 0;
    for (let i = 0; i < candidates.length; i += 1) {
      if (candidates[i]![at[i]!] === newest) {
        at[i]! += 1;
        shared += 1;
      }
    }
    const bucket = byShared[shared - 1]!;
    if (bucket.length < limit) bucket.push(newest);
  }
  const ranked: string[] = [];
  for (let n = byShared.length; n > 0 && ranked.length < limit; n -= 1) ranked.push(...byShared[n - 1]!.slice(0, limit - ranked.length));
  return ranked;
}

/**
 * The page of `article`: `tagLists` holds, per tag of the article, that tag's newest published
 * teasers, newest first (at least relatedCandidatesPerTag + 1 of them where the tag has that
 * many); `sectionList` the section's newest (at least sectionListForArticle).
 */
export function articlePage(article: Article, tagLists: readonly (readonly Teaser[])[], sectionList: readonly Teaser[]): ArticleWithTeasers {
  // A push rebuilds every page whose lists it changes: this runs for each of them, so the
  // candidates' teasers are found by id, not by searching the lists again for each one.
  const teasers = new Map<string, Teaser>();
  const candidates = tagLists.map((list) => {
    const ids: string[] = [];
    for (const t of list) {
      if (ids.length === relatedCandidatesPerTag) break;
      if (t.id !== article.id) {
        ids.push(t.id);
        teasers.set(t.id, t);
      }
    }
    return ids;
  });
  const byTags = rankByTags(candidates, relatedSize).map((id) => teasers.get(id)!);
  const sectionItems = sectionList.slice(0, sectionListForArticle).filter((t) => t.id !== article.id);
  const taken = new Set(byTags.map((t) => t.id));
  const related = [...byTags, ...sectionItems.filter((t) => !taken.has(t.id))].slice(0, relatedSize);
  for (const t of related) taken.add(t.id);
  const moreFromSection = sectionItems.filter((t) => !taken.has(t.id)).slice(0, moreFromSectionSize);
  return { article, related, moreFromSection };
}

/** A tag page's section of trending tags: the tags most carried by the newest stories. */
export const trendingWindowArticles = 200;
