import type { Article, ArticleWithTeasers, Teaser } from '../../src/content';
import { moreFromSectionSize, relatedSize } from '../../src/content';

// What an article page shows besides the article, chosen the same way whatever the store (the
// store contract checks SQLite and PostgreSQL agree): related stories by shared tags, then the
// section's newest; more from the section, never repeating the article or a related story.
// Everything here works on lists the content cache already keeps (KeptList, worked out once per
// list read), so a request puts its page together without reading the store, in microseconds.

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
 * ranking no sort: this runs for every article page a worker renders, so ids are compared as
 * numbers.
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
  for (let n = byShared.length; n > 0 && ranked.length < limit; n -= 1) {
    for (const id of byShared[n - 1]!.slice(0, limit - ranked.length)) ranked.push(id);
  }
  return ranked;
}

/** rankLists over plain lists of candidate ids (the article already left out). */
export function rankByTags(candidates: readonly (readonly string[])[], limit: number): string[] {
  return rankLists(candidates.map(rankList), limit);
}

/**
 * A list's newest teasers as the content cache keeps them (server/content/reader.ts makes one per
 * list read): frozen and shared by every page that shows them, with what ranking and lookups
 * need worked out once.
 */
export interface KeptList {
  readonly teasers: readonly Teaser[];
  /** Each teaser's JSON text, as the embedded state writes it (counted in the cache's bound). */
  readonly json: readonly string[];
  /** The first relatedCandidatesPerTag + 1 ids (each at its place in `teasers`): enough whether or not the article is among them. */
  readonly rank: RankList;
}

export function keptList(teasers: readonly Teaser[], json: readonly string[]): KeptList {
  const head = teasers.slice(0, relatedCandidatesPerTag + 1);
  return { teasers, json, rank: rankList(head.map((t) => t.id)) };
}

/**
 * What an article page shows besides the article, as places in the lists it was chosen from:
 * each a list's index (its tags' lists in order, then its section's) times `perList` plus the
 * teaser's position in that list. Numbers, not teasers: whoever keeps them keeps no list alive.
 */
export interface ArticleTeaserPlaces {
  readonly related: readonly number[];
  readonly moreFromSection: readonly number[];
}

const perList = 1_000;

/** Where the story `id` is: the first of `lists` whose head holds it. */
function placeOf(lists: readonly KeptList[], id: string): number {
  for (let i = 0; i < lists.length; i += 1) {
    // A few dozen ids, looked at only when the page's stories are worked out again (a list changed).
    const at = lists[i]!.rank.ids.indexOf(id);
    if (at >= 0) return i * perList + at;
  }
  throw new Error(`${id} is in none of the lists`);
}

/**
 * The stories on the page of `articleId`: `tagLists` holds, per tag of the article, that tag's
 * newest published teasers (at least relatedCandidatesPerTag + 1 of them where the tag has that
 * many); `section` the section's newest (at least sectionListForArticle). Related stories by
 * tags, filled from the section, then more from the section, never repeating a story.
 */
export function articleTeaserPlaces(articleId: string, tagLists: readonly KeptList[], section: KeptList | null): ArticleTeaserPlaces {
  const related = rankLists(
    tagLists.map(({ rank }) => rank),
    relatedSize,
    articleId,
    relatedCandidatesPerTag,
  ).map((id) => placeOf(tagLists, id));
  const shown = new Set(related.map((place) => tagLists[Math.floor(place / perList)]!.teasers[place % perList]!.id));
  const more: number[] = [];
  const fromSection = tagLists.length * perList;
  // The section's list holds each id once.
  const end = Math.min(section?.teasers.length ?? 0, sectionListForArticle);
  for (let i = 0; i < end; i += 1) {
    const { id } = section!.teasers[i]!;
    if (id === articleId || shown.has(id)) continue;
    if (related.length < relatedSize) related.push(fromSection + i);
    else if (more.length < moreFromSectionSize) more.push(fromSection + i);
    else break;
  }
  return { related, moreFromSection: more };
}

/** The teasers at `places`, in the lists they were worked out from (its tags', then its section's). */
export function teasersAt(places: readonly number[], tagLists: readonly KeptList[], section: KeptList | null): Teaser[] {
  const teasers: Teaser[] = [];
  for (const place of places) {
    const list = Math.floor(place / perList);
    teasers.push((list < tagLists.length ? tagLists[list]! : section!).teasers[place % perList]!);
  }
  return teasers;
}

/** The page of `article`, as articleTeaserPlaces chooses what it shows. */
export function articlePage(article: Article, tagLists: readonly KeptList[], section: KeptList | null): ArticleWithTeasers {
  const places = articleTeaserPlaces(article.id, tagLists, section);
  return { article, related: teasersAt(places.related, tagLists, section), moreFromSection: teasersAt(places.moreFromSection, tagLists, section) };
}

/** A tag page's section of trending tags: the tags most carried by the newest stories. */
export const trendingWindowArticles = 200;
