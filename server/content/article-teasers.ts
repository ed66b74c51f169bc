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
export function rankLists(lists: readonly RankList[], limit: number, skip = '', perList = Number.POSITIVE_INFINITY, counts?: number[]): string[] {
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
    for (const id of byShared[n - 1]!.slice(0, limit - ranked.length)) {
      ranked.push(id);
      // How many of the lists hold each, for whoever asked.
      counts?.push(n);
    }
  }
  return ranked;
}

/** rankLists over plain lists of candidate ids (the article already left out). */
export function rankByTags(candidates: readonly (readonly string[])[], limit: number): string[] {
  return rankLists(candidates.map(rankList), limit);
}

/** A tag's list as the ranking reads it: its first ids, and where each is, worked out once per list kept. */
interface Candidates {
  readonly rank: RankList;
  readonly head: readonly Teaser[];
  readonly at: ReadonlyMap<string, number>;
}

const candidatesOf = new WeakMap<readonly Teaser[], Candidates>();

/**
 * The content cache hands every page the same frozen list until it changes, and a push makes
 * hundreds of pages be put together again from the same few lists: their ids, as numbers, and
 * where each id is are worked out once per list.
 */
function candidatesIn(list: readonly Teaser[]): Candidates {
  let found = candidatesOf.get(list);
  if (found === undefined) {
    // Enough whether or not the article is among them.
    const head = list.slice(0, relatedCandidatesPerTag + 1);
    found = { rank: rankList(head.map((t) => t.id)), head, at: new Map(head.map((t, i) => [t.id, i])) };
    if (Object.isFrozen(list)) candidatesOf.set(list, found);
  }
  return found;
}

/** Whether `id` is among the relatedCandidatesPerTag ids of the list the page of `skip` ranks. */
function candidate(list: Candidates, id: string, skip: string): boolean {
  const at = list.at.get(id);
  if (at === undefined || id === skip) return false;
  const skipAt = list.at.get(skip);
  return (skipAt !== undefined && skipAt < at ? at - 1 : at) < relatedCandidatesPerTag;
}

/** The ids that are candidates in one list and not the other, for the page of `skip`. */
function candidatesChanged(before: Candidates, now: Candidates, skip: string): string[] {
  const changed: string[] = [];
  for (const id of now.rank.ids) if (candidate(now, id, skip) !== candidate(before, id, skip)) changed.push(id);
  for (const id of before.rank.ids) if (!now.at.has(id) && candidate(before, id, skip)) changed.push(id);
  return changed;
}

const changesOf = new WeakMap<Candidates, { now: Candidates; changed: readonly string[] }>();

/**
 * candidatesChanged, worked out once per pair of lists for every page that is not itself among
 * their first ids (a push sends hundreds of pages from the same list to the same new one).
 */
function changedFor(before: Candidates, now: Candidates, skip: string): readonly string[] {
  if (before.at.has(skip) || now.at.has(skip)) return candidatesChanged(before, now, skip);
  const kept = changesOf.get(before);
  if (kept?.now === now) return kept.changed;
  const changed = candidatesChanged(before, now, '');
  changesOf.set(before, { now, changed });
  return changed;
}

/** The teaser of `id` in the first list whose head holds it. */
function teaserIn(lists: readonly Candidates[], id: string): Teaser {
  for (const list of lists) {
    const at = list.at.get(id);
    if (at !== undefined) return list.head[at]!;
  }
  throw new Error(`${id} is in none of the lists`);
}

/** The related stories chosen by tags, and how many of the article's tags each shares with it. */
interface ByTags {
  readonly ids: readonly string[];
  readonly counts: readonly number[];
}

/** What each page's related stories were chosen from: where a change can start from next time. */
const byTagsOf = new WeakMap<ArticleWithTeasers, ByTags>();

/** Whether one of `teasers` is the story `id`: a few against a few, a loop beats a set here. */
function holds(teasers: readonly Teaser[], id: string): boolean {
  for (let i = 0; i < teasers.length; i += 1) if (teasers[i]!.id === id) return true;
  return false;
}

const sectionFirstOf = new WeakMap<readonly Teaser[], Teaser[]>();

/**
 * A section's newest moreFromSectionSize stories: "more from the section" on every page of the
 * section that shows none of them already, one list for all of them (kept with the section's
 * list, so its text in the embedded state is written once, not once per page a push changes).
 */
function sectionFirst(sectionList: readonly Teaser[]): Teaser[] {
  let first = sectionFirstOf.get(sectionList);
  if (first === undefined) {
    // Frozen like every answer the content cache hands out (the pages that share it are).
    first = sectionList.slice(0, moreFromSectionSize);
    Object.freeze(first);
    if (Object.isFrozen(sectionList)) sectionFirstOf.set(sectionList, first);
  }
  return first;
}

/** The page, its stories by tags known: filled from the section, then more from the section. */
function assemble(article: Article, lists: readonly Candidates[], byTags: ByTags, sectionList: readonly Teaser[]): ArticleWithTeasers {
  const related = byTags.ids.map((id) => teaserIn(lists, id));
  const first = related.length === relatedSize ? sectionFirst(sectionList) : null;
  let moreFromSection: Teaser[];
  if (first !== null && !holds(first, article.id) && !related.some((t) => holds(first, t.id))) moreFromSection = first;
  else {
    const more: Teaser[] = [];
    // The section's list holds each id once.
    const end = Math.min(sectionList.length, sectionListForArticle);
    for (let i = 0; i < end; i += 1) {
      const t = sectionList[i]!;
      if (t.id === article.id || holds(related, t.id)) continue;
      if (related.length < relatedSize) related.push(t);
      else if (more.length < moreFromSectionSize) more.push(t);
      else break;
    }
    moreFromSection = more;
  }
  const page = { article, related, moreFromSection };
  byTagsOf.set(page, byTags);
  return page;
}

/**
 * The page of `article`: `tagLists` holds, per tag of the article, that tag's newest published
 * teasers, newest first (at least relatedCandidatesPerTag + 1 of them where the tag has that
 * many); `sectionList` the section's newest (at least sectionListForArticle).
 */
export function articlePage(article: Article, tagLists: readonly (readonly Teaser[])[], sectionList: readonly Teaser[]): ArticleWithTeasers {
  const lists = tagLists.map(candidatesIn);
  const counts: number[] = [];
  const ids = rankLists(
    lists.map(({ rank }) => rank),
    relatedSize,
    article.id,
    relatedCandidatesPerTag,
    counts,
  );
  return assemble(article, lists, { ids, counts }, sectionList);
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** The page put together again: ranking only where the change moved a related story's count. */
function byTagsAgain(
  was: ByTags,
  tagListsBefore: readonly (readonly Teaser[])[],
  article: Article,
  tagLists: readonly (readonly Teaser[])[],
  sectionList: readonly Teaser[],
): ArticleWithTeasers {
  const lists = tagLists.map(candidatesIn);
  const moved = new Set<string>();
  tagLists.forEach((list, i) => {
    if (list !== tagListsBefore[i]) for (const id of changedFor(candidatesIn(tagListsBefore[i]!), lists[i]!, article.id)) moved.add(id);
  });
  if (moved.size === 0) return assemble(article, lists, was, sectionList);
  const ids = [...was.ids];
  const counts = [...was.counts];
  for (const id of moved) {
    if (was.ids.includes(id)) return articlePage(article, tagLists, sectionList);
    let count = 0;
    for (const list of lists) if (candidate(list, id, article.id)) count += 1;
    if (count === 0) continue;
    // Most tags in common first, newer first among equals.
    let at = 0;
    while (at < ids.length && (counts[at]! > count || (counts[at] === count && ids[at]! > id))) at += 1;
    ids.splice(at, 0, id);
    counts.splice(at, 0, count);
    if (ids.length > relatedSize) {
      ids.pop();
      counts.pop();
    }
  }
  return assemble(article, lists, { ids, counts }, sectionList);
}

/**
 * The page of `article` again, after its lists changed: as articlePage(article, tagLists,
 * sectionList) would put it together, worked out from `before` (the page and the tag lists it
 * was made from) without ranking again where the change allows, and `before.page` itself when
 * nothing on it changed. Ranking depends only on the candidates whose count of shared tags a
 * change moved; one that was not among the related stories and now ranks above the last of
 * them is put in its place; one that was among them sends it back to the ranking.
 * article-teasers.test.ts checks it against articlePage for any run of changes.
 */
export function articlePageAgain(
  before: { readonly page: ArticleWithTeasers; readonly tagLists: readonly (readonly Teaser[])[] },
  article: Article,
  tagLists: readonly (readonly Teaser[])[],
  sectionList: readonly Teaser[],
): ArticleWithTeasers {
  const was = byTagsOf.get(before.page);
  if (was === undefined || before.page.article !== article || before.tagLists.length !== tagLists.length) return articlePage(article, tagLists, sectionList);
  const page = byTagsAgain(was, before.tagLists, article, tagLists, sectionList);
  if (!sameItems(page.related, before.page.related) || !sameItems(page.moreFromSection, before.page.moreFromSection)) return page;
  // The same stories (one the section filled in may now be one the tags chose).
  byTagsOf.set(before.page, byTagsOf.get(page)!);
  return before.page;
}

/** A tag page's section of trending tags: the tags most carried by the newest stories. */
export const trendingWindowArticles = 200;
