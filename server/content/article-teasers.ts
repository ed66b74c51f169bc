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
 * A list of ids, newest first, as the ranking walks it: each id (eighteen digits, so order by
 * text is order by number) also as two numbers of nine digits, compared without touching the text.
 */
export interface RankList {
  readonly ids: readonly string[];
  readonly high: Float64Array;
  readonly low: Float64Array;
}

export function rankList(ids: readonly string[]): RankList {
  const high = new Float64Array(ids.length);
  const low = new Float64Array(ids.length);
  ids.forEach((id, i) => {
    high[i] = Number(id.slice(0, 9));
    low[i] = Number(id.slice(9));
  });
  return { ids, high, low };
}

/**
 * Most tags in common first, newer first among equals. `lists` holds, per tag of the article,
 * the ids of that tag's newest published articles, newest first; the first `perList` of each
 * other than `skip` (the article itself) are the candidates. Walking the lists together meets
 * each id once per list that holds it, newest first, so the counting needs no map and the
 * ranking no sort: this runs whenever a change makes an article page be put together again (a
 * push rebuilds every page that shares a tag with it), so ids are compared as numbers.
 */
export function rankLists(lists: readonly RankList[], limit: number, skip = '', perList = Number.POSITIVE_INFINITY): string[] {
  const k = lists.length;
  const at = new Int32Array(k);
  const taken = new Int32Array(k);
  const [skipHigh, skipLow] = skip === '' ? [-1, -1] : [Number(skip.slice(0, 9)), Number(skip.slice(9))];
  // byShared[n - 1]: ids in n of the lists, newest first; no more than limit of each are needed.
  const byShared: string[][] = lists.map(() => []);
  for (;;) {
    let newest = -1;
    let newestHigh = -1;
    let newestLow = -1;
    for (let i = 0; i < k; i += 1) {
      const { high, low } = lists[i]!;
      let j = at[i]!;
      if (j < high.length && high[j] === skipHigh && low[j] === skipLow) at[i] = j += 1;
      if (j >= high.length || taken[i]! >= perList) continue;
      if (high[j]! > newestHigh || (high[j] === newestHigh && low[j]! > newestLow)) {
        newest = i;
        newestHigh = high[j]!;
        newestLow = low[j]!;
      }
    }
    if (newest < 0) break;
    let shared = 0;
    for (let i = 0; i < k; i += 1) {
      const j = at[i]!;
      if (taken[i]! < perList && lists[i]!.high[j] === newestHigh && lists[i]!.low[j] === newestLow) {
        at[i] = j + 1;
        taken[i] = taken[i]! + 1;
        shared += 1;
      }
    }
    const bucket = byShared[shared - 1]!;
    if (bucket.length < limit) bucket.push(lists[newest]!.ids[at[newest]! - 1]!);
    // Nothing can rank above a full bucket of ids every list holds.
    if (shared === k && bucket.length === limit) break;
  }
  const ranked: string[] = [];
  for (let n = byShared.length; n > 0 && ranked.length < limit; n -= 1) ranked.push(...byShared[n - 1]!.slice(0, limit - ranked.length));
  return ranked;
}

/** rankLists over plain lists of candidate ids (the article already left out). */
export function rankByTags(candidates: readonly (readonly string[])[], limit: number): string[] {
  return rankLists(candidates.map(rankList), limit);
}

/** A tag's list as the ranking reads it: its first ids and its teasers by id, worked out once per list kept. */
interface Candidates {
  readonly rank: RankList;
  readonly byId: ReadonlyMap<string, Teaser>;
}

const candidatesOf = new WeakMap<readonly Teaser[], Candidates>();

/**
 * The content cache hands every page the same frozen list until it changes, and a push rebuilds
 * hundreds of pages from the same few lists: their ids, as numbers, and their teasers by id are
 * worked out once per list.
 */
function candidatesIn(list: readonly Teaser[]): Candidates {
  let found = candidatesOf.get(list);
  if (found === undefined) {
    // Enough whether or not the article is among them.
    const head = list.slice(0, relatedCandidatesPerTag + 1);
    found = { rank: rankList(head.map((t) => t.id)), byId: new Map(head.map((t) => [t.id, t])) };
    if (Object.isFrozen(list)) candidatesOf.set(list, found);
  }
  return found;
}

/**
 * The page of `article`: `tagLists` holds, per tag of the article, that tag's newest published
 * teasers, newest first (at least relatedCandidatesPerTag + 1 of them where the tag has that
 * many); `sectionList` the section's newest (at least sectionListForArticle).
 */
export function articlePage(article: Article, tagLists: readonly (readonly Teaser[])[], sectionList: readonly Teaser[]): ArticleWithTeasers {
  const lists = tagLists.map(candidatesIn);
  const byTags = rankLists(
    lists.map(({ rank }) => rank),
    relatedSize,
    article.id,
    relatedCandidatesPerTag,
  ).map((id) => lists.find(({ byId }) => byId.has(id))!.byId.get(id)!);
  const related = byTags;
  const taken = new Set(byTags.map((t) => t.id));
  taken.add(article.id);
  const moreFromSection: Teaser[] = [];
  for (const t of sectionList.slice(0, sectionListForArticle)) {
    if (taken.has(t.id)) continue;
    if (related.length < relatedSize) related.push(t);
    else if (moreFromSection.length < moreFromSectionSize) moreFromSection.push(t);
    else break;
    taken.add(t.id);
  }
  return { article, related, moreFromSection };
}

/** A tag page's section of trending tags: the tags most carried by the newest stories. */
export const trendingWindowArticles = 200;
