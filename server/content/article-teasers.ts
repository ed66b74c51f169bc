import type { Article, ArticleWithTeasers, Teaser } from '../../src/content';
import { moreFromSectionSize, relatedSize } from '../../src/content';
import { serializeState } from '../../src/page-contract';
import { jsonOf, ownNumbers, sharedWithJson, type NumberRoom } from './cache';

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
 * Int32Array, not Float64Array: nine digits fit, and what is read from it is a small integer (a
 * Smi) wherever it is written, so a ranking (RelatedRanking) holds Smis whether it was ranked
 * afresh or brought up to date. Read from a Float64Array, the halves an update wrote turned
 * the kept ranking's elements into doubles, and every function reading rankings met two kinds
 * of array (1,200 rankings of four tags brought up to date after each of 190 pushes, the median
 * push: 0.70–0.72 µs a ranking before, 0.49–0.55 µs with this and the other changes of
 * 2026-11-28 in updatedRanking: no length set on `shifts`, no closure per new id).
 */
export interface RankList {
  readonly ids: readonly string[];
  readonly high: Int32Array;
  readonly low: Int32Array;
}

export function rankList(ids: readonly string[]): RankList {
  const high = new Int32Array(ids.length);
  const low = new Int32Array(ids.length);
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

/** How many of a list's newest ids the ranking can look at: relatedCandidatesPerTag, and one more in case the article is among them. */
const rankWindow = relatedCandidatesPerTag + 1;

/** How many earlier reads of a list a read says it follows (see KeptList.since). */
const sinceDepth = 8;

let lastVersion = 0;

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
  /** Which read of a list this is: no two reads in a worker have the same. */
  readonly version: number;
  /**
   * The earlier reads of the same list whose rank ids are this one's but for ids put in front
   * (new stories), each as its version and how many ids came in front since, newest read first:
   * what lets a ranking from an earlier read be brought up to date instead of worked out again.
   * Empty after anything else (a story left the list, an older one entered it).
   */
  readonly since: readonly number[];
}

/** Whether two values parsed from JSON would be written as the same text: the same keys in the same order, the same values. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (key !== others[i] || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * A list's teasers as read now (`rows`, newest first), as the cache keeps them: frozen, each with
 * its JSON text. A teaser the read before (`previous`) holds unchanged, field by field, is that
 * read's object and text, so a list read again after a push freezes and writes out only what is
 * new or changed, not every teaser it holds; any other is the one object kept for its story in
 * every list that holds it (cache.ts, sharedWithJson) where that one is the same; `from` says, per teaser, where the read before held
 * it (-1 where it is new or changed).
 */
export function keptTeasers(
  rows: readonly Teaser[],
  previous?: { readonly teasers: readonly Teaser[]; readonly json: readonly string[] } | null,
): { teasers: readonly Teaser[]; json: readonly string[]; from: readonly number[] } {
  const teasers: Teaser[] = [];
  const json: string[] = [];
  const from: number[] = [];
  const old = previous?.teasers ?? [];
  let p = 0;
  for (const row of rows) {
    // Both newest first: the read before is walked once beside this one.
    while (p < old.length && old[p]!.id > row.id) p += 1;
    const same = p < old.length && old[p]!.id === row.id && sameJson(old[p], row);
    // Not in the read before: the teaser kept for the story in another list where it is the same.
    const teaser = same ? old[p]! : sharedWithJson(row, serializeState(row));
    teasers.push(teaser);
    json.push(same ? previous!.json[p]! : jsonOf(teaser)!);
    from.push(same ? p : -1);
  }
  return { teasers: Object.freeze(teasers), json, from };
}

/** How many ids `now` has in front of `old`, where it is `old` with ids put in front (and as many fewer at its end): -1 where not. */
function prependedTo(old: readonly string[], now: readonly string[]): number {
  if (old.length === 0) return now.length === 0 ? 0 : -1;
  const d = now.indexOf(old[0]!);
  if (d < 0 || now.length !== Math.min(rankWindow, d + old.length)) return -1;
  for (let j = 1; d + j < now.length; j += 1) if (now[d + j] !== old[j]) return -1;
  return d;
}

/** A list read as `teasers`; `previous`, the read of the same list before it, if one is kept. */
export function keptList(teasers: readonly Teaser[], json: readonly string[], previous?: KeptList | null): KeptList {
  const head = teasers.slice(0, rankWindow);
  const rank = rankList(head.map((t) => t.id));
  const since: number[] = [];
  const d = previous ? prependedTo(previous.rank.ids, rank.ids) : -1;
  if (d >= 0) {
    since.push(previous!.version, d);
    for (let i = 0; i + 1 < previous!.since.length && since.length < 2 * sinceDepth; i += 2) since.push(previous!.since[i]!, previous!.since[i + 1]! + d);
  }
  // A whole number of 32 bits, as a ranking (an Int32Array) holds it.
  lastVersion = (lastVersion + 1) | 0;
  return { teasers, json, rank, version: lastVersion, since };
}

/** How many ids came in front of `list` since its read `version` and nothing else changed its rank ids; -1 where unknown. */
function prependedSince(list: KeptList, version: number): number {
  if (list.version === version) return 0;
  for (let i = 0; i + 1 < list.since.length; i += 2) if (list.since[i] === version) return list.since[i + 1]!;
  return -1;
}

/**
 * An article page's related stories by tags, as rankLists ranks them from its tags' lists, with
 * what lets the ranking be brought up to date when a list only gained new stories in front
 * (updatedRanking). Numbers only, in one Int32Array (the cache keeps one per article page, a
 * view of the few it keeps for memos: one object whose numbers the garbage collector does not
 * visit, where an array of them was two objects and ~40 slots to mark; cache.ts, MemoNumbers):
 * a header of the number of lists k, of ranked ids, and the
 * article id's two halves (RankList's numbers); the version of each tag list it was ranked from
 * (KeptList.version), in the article's order of tags; the article's position among each list's
 * rank ids (-1 where not there); then per ranked id, best first, its two halves and its position
 * among each list's rank ids (-1 where not there); then zeros up to room for relatedSize ranked
 * ids. Always that long, so that bringing it up to date writes over it in place: a push brings
 * ~1,500 rankings up to date, and a new array for each was most of what a push left for the old
 * generation's collector (about 0.35 KB a ranking; docs/performance.md). Its holder reads it in
 * the same synchronous step it got it (reader.ts), so no reader sees it change under it.
 */
export type RelatedRanking = Int32Array;

const header = 4;

/** Where ranked id `r` of a ranking of `k` lists begins. */
function slot(k: number, r: number): number {
  return header + 2 * k + r * (2 + k);
}

/** A ranking's length: room for relatedSize ranked ids. */
function rankingLength(k: number): number {
  return slot(k, relatedSize);
}

/** `source`'s first `used` numbers written over `ranking`, the rest of it zeros: `ranking`, brought up to date in place. */
function writtenOver(ranking: RelatedRanking, source: readonly number[], used: number): RelatedRanking {
  for (let x = 0; x < used; x += 1) ranking[x] = source[x]!;
  ranking.fill(0, used);
  return ranking;
}

function positionIn({ high, low }: RankList, idHigh: number, idLow: number): number {
  for (let j = 0; j < high.length; j += 1) if (high[j] === idHigh && low[j] === idLow) return j;
  return -1;
}

/** Where an id is among a list's first `front` (the ids new in front of it): -1 where not, the rest of the list not looked at. */
function frontPosition({ high, low }: RankList, front: number, idHigh: number, idLow: number): number {
  for (let j = 0; j < front; j += 1) if (high[j] === idHigh && low[j] === idLow) return j;
  return -1;
}

/** Whether the id at `at` of a list is among its candidates: the first relatedCandidatesPerTag other than the article (at `self`). */
function counted(at: number, self: number): boolean {
  return at >= 0 && at - (self >= 0 && self < at ? 1 : 0) < relatedCandidatesPerTag;
}

/** How many lists count ranked id `r` of `ranking` among their candidates. */
function sharedBy(ranking: RelatedRanking, r: number): number {
  const k = ranking[0]!;
  const at = slot(k, r) + 2;
  let shared = 0;
  for (let i = 0; i < k; i += 1) if (counted(ranking[at + i]!, ranking[header + k + i]!)) shared += 1;
  return shared;
}

function halves(id: string): [number, number] {
  return [Number(id.slice(0, 9)), Number(id.slice(9))];
}

/**
 * The related stories of the page of `articleId` ranked from scratch: `tagLists` holds, per tag
 * of the article, that tag's newest published teasers (at least relatedCandidatesPerTag + 1 of
 * them where the tag has that many). Its numbers from `room` (the content cache's, where it keeps
 * the ranking).
 */
export function relatedRanking(articleId: string, tagLists: readonly KeptList[], room: NumberRoom = ownNumbers): RelatedRanking {
  const ids = rankLists(
    tagLists.map(({ rank }) => rank),
    relatedSize,
    articleId,
    relatedCandidatesPerTag,
  );
  const k = tagLists.length;
  const [selfHigh, selfLow] = halves(articleId);
  const ranking = room(rankingLength(k));
  ranking.set([k, ids.length, selfHigh, selfLow]);
  tagLists.forEach(({ version, rank }, i) => {
    ranking[header + i] = version;
    ranking[header + k + i] = positionIn(rank, selfHigh, selfLow);
  });
  ids.forEach((id, r) => {
    const at = slot(k, r);
    const [high, low] = halves(id);
    ranking[at] = high;
    ranking[at + 1] = low;
    tagLists.forEach(({ rank }, i) => (ranking[at + 2 + i] = positionIn(rank, high, low)));
  });
  return ranking;
}

/**
 * Per list, how many ids came in front since a ranking's reads, and where the article is in it
 * now: reused, a ranking is updated at a time, and only their first k read (never shortened:
 * setting an array's length is a call into V8's runtime, about 0.1 µs).
 */
const shifts: number[] = [];
const selfAt: number[] = [];

/** The ranking new ids are merged into: reused likewise. */
const merging: number[] = [];

/**
 * `previous` (a ranking of the same article's tags from earlier reads of its lists) brought up
 * to date with `tagLists`, exactly as relatedRanking would rank them, where that can be shown
 * cheaply; undefined where not (then rank from scratch). It can when every list is its earlier
 * read with new ids in front (KeptList.since), each newer than any id the earlier reads held and
 * not the article, and no ranked id left the candidates of a list that counted it. Then no id of
 * before gained a list (the lists only lost old ids off their ends), the ranked ones kept their
 * counts, and one not ranked counts no more than it did, so it still comes after every ranked
 * one: the new ranking is the best relatedSize of the ranked ids and the new ones, most lists
 * first, newer first among equals, a new id (newer than all) first among its equals. Each ranked
 * id's position moves down by the ids in front of it.
 *
 * Written over `previous` in place, and only once it is shown it can be (left as it was where
 * not). A push brings ~1,300 rankings up to date, each on its page's first read after it, among
 * other pages' reads; so the update reads and writes no more than it must: only the lists that
 * gained ids move positions, and the new ids are merged only where the best of them ranks (in
 * about one update of eight a push brings, 2026-11-29). Timed over 6,929 updates of six pushes
 * replayed hot: 0.36–0.37 µs each, against 0.77–0.87 µs for the copy-and-merge it replaced
 * (docs/performance.md).
 */
export function updatedRanking(previous: RelatedRanking, tagLists: readonly KeptList[]): RelatedRanking | undefined {
  const k = previous[0]!;
  if (k !== tagLists.length || previous.length !== rankingLength(k)) return undefined;
  // The newest id of the earlier reads: every id in front now must be newer, so in none of them.
  let oldHigh = -1;
  let oldLow = -1;
  let moved = false;
  for (let i = 0; i < k; i += 1) {
    const { rank } = tagLists[i]!;
    const d = prependedSince(tagLists[i]!, previous[header + i]!);
    // Unknown, or what the list held before is out of sight.
    if (d < 0 || (d >= rank.ids.length && d > 0)) return undefined;
    if (d < rank.ids.length && (rank.high[d]! > oldHigh || (rank.high[d] === oldHigh && rank.low[d]! > oldLow))) {
      oldHigh = rank.high[d]!;
      oldLow = rank.low[d]!;
    }
    shifts[i] = d;
    if (d > 0) moved = true;
  }
  if (moved) {
    if (!stillCounted(previous, tagLists)) return undefined;
    const n = newIds(tagLists, oldHigh, oldLow, previous[2]!, previous[3]!);
    if (n < 0) return undefined;
    shiftPositions(previous, tagLists);
    const ranked = previous[1]!;
    // Merged where the best new id ranks: where the ranking has room, or it counts in as many lists as the last ranked id.
    if (n > 0 && (ranked < relatedSize || freshIds[0]! >= sharedBy(previous, ranked - 1))) writtenOver(previous, merging, merged(previous, n));
  }
  for (let i = 0; i < k; i += 1) previous[header + i] = tagLists[i]!.version;
  return previous;
}

/** Where the id at `at` of a list is once `d` ids came in front of it, in a list `length` long: -1 where out of sight. */
function movedDown(at: number, d: number, length: number): number {
  return at < 0 || at + d >= length ? -1 : at + d;
}

/**
 * Whether every ranked id of `previous` a list counted is still among its candidates once the
 * list's new ids (`shifts`) came in front; the article's position in each list now into `selfAt`.
 */
function stillCounted(previous: RelatedRanking, tagLists: readonly KeptList[]): boolean {
  const k = previous[0]!;
  const end = slot(k, previous[1]!);
  for (let i = 0; i < k; i += 1) {
    const d = shifts[i]!;
    const self = previous[header + k + i]!;
    const length = tagLists[i]!.rank.ids.length;
    selfAt[i] = d === 0 ? self : movedDown(self, d, length);
    if (d === 0) continue;
    for (let at = slot(k, 0) + 2 + i; at < end; at += 2 + k) {
      if (counted(previous[at]!, self) && !counted(movedDown(previous[at]!, d, length), selfAt[i]!)) return false;
    }
  }
  return true;
}

/** `previous`'s article and ranked ids moved down each list by the ids that came in front of it (`shifts`, `selfAt`). */
function shiftPositions(previous: RelatedRanking, tagLists: readonly KeptList[]): void {
  const k = previous[0]!;
  const end = slot(k, previous[1]!);
  for (let i = 0; i < k; i += 1) {
    const d = shifts[i]!;
    if (d === 0) continue;
    previous[header + k + i] = selfAt[i]!;
    const length = tagLists[i]!.rank.ids.length;
    for (let at = slot(k, 0) + 2 + i; at < end; at += 2 + k) previous[at] = movedDown(previous[at]!, d, length);
  }
}

/**
 * The new ids newIds found, best first, each as `3 + k` numbers: how many lists count it, then as
 * a ranking holds a ranked id, its halves and its position in each list (-1 where not there).
 * Reused, like `shifts`: an array and an object per new id per update were most of what an
 * update allocated.
 */
const freshIds: number[] = [];

/**
 * The ids in front of the lists (each list's first `shifts`) that some list counts, written to
 * freshIds best first; how many, or -1 where one is not newer than every id before
 * (oldHigh/oldLow) or is the article.
 */
function newIds(tagLists: readonly KeptList[], oldHigh: number, oldLow: number, selfHigh: number, selfLow: number): number {
  const k = tagLists.length;
  const stride = 3 + k;
  let n = 0;
  for (let i = 0; i < k; i += 1) {
    const { high, low } = tagLists[i]!.rank;
    for (let j = 0; j < shifts[i]!; j += 1) {
      const h = high[j]!;
      const l = low[j]!;
      if (h < oldHigh || (h === oldHigh && l <= oldLow) || (h === selfHigh && l === selfLow)) return -1;
      if (seenBefore(n, stride, h, l)) continue;
      // In front of each list that holds it (it was in none before, and this is the first list
      // that holds it), counted where among the first candidates (the article, an old id, is behind it).
      const base = n * stride;
      let shared = 0;
      for (let m = 0; m < k; m += 1) {
        const at = m < i ? -1 : m === i ? j : frontPosition(tagLists[m]!.rank, shifts[m]!, h, l);
        freshIds[base + 3 + m] = at;
        if (at >= 0 && at < relatedCandidatesPerTag) shared += 1;
      }
      if (shared === 0) continue;
      freshIds[base] = shared;
      freshIds[base + 1] = h;
      freshIds[base + 2] = l;
      n += 1;
    }
  }
  sortFresh(n, stride);
  return n;
}

/** The first `n` of freshIds, most lists first, newer first among equals (by insertion: a push brings one new id, a few at most). */
function sortFresh(n: number, stride: number): void {
  for (let f = 1; f < n; f += 1) {
    for (let g = f * stride; g > 0 && before(g, g - stride); g -= stride) {
      for (let x = 0; x < stride; x += 1) {
        const value = freshIds[g + x]!;
        freshIds[g + x] = freshIds[g - stride + x]!;
        freshIds[g - stride + x] = value;
      }
    }
  }
}

/** Whether the new id at `a` of freshIds ranks before the one at `b`. */
function before(a: number, b: number): boolean {
  const f = freshIds;
  return f[a]! > f[b]! || (f[a] === f[b] && (f[a + 1]! > f[b + 1]! || (f[a + 1] === f[b + 1] && f[a + 2]! > f[b + 2]!)));
}

/** Whether the first `n` of freshIds hold the id of halves h and l already. */
function seenBefore(n: number, stride: number, h: number, l: number): boolean {
  for (let f = 0; f < n; f += 1) if (freshIds[f * stride + 1] === h && freshIds[f * stride + 2] === l) return true;
  return false;
}

/**
 * The best relatedSize of `ranking`'s ranked ids and the first `n` of freshIds: most lists
 * first, a new id first among its equals, worked out in `merging`; how many of its numbers that is.
 */
function merged(ranking: RelatedRanking, n: number): number {
  const k = ranking[0]!;
  const ranked = ranking[1]!;
  const stride = 3 + k;
  const out = merging;
  let o = 0;
  for (; o < slot(k, 0); o += 1) out[o] = ranking[o]!;
  let [r, f, count] = [0, 0, 0];
  for (; count < relatedSize && (r < ranked || f < n); count += 1) {
    if (f < n && (r >= ranked || freshIds[f * stride]! >= sharedBy(ranking, r))) {
      for (let x = 1; x < stride; x += 1) out[o++] = freshIds[f * stride + x]!;
      f += 1;
    } else {
      const at = slot(k, r);
      for (let x = 0; x < 2 + k; x += 1) out[o++] = ranking[at + x]!;
      r += 1;
    }
  }
  out[1] = count;
  return o;
}

/** Whether `ranking` was ranked from exactly these reads of the lists: its positions point into them. */
export function rankedFrom(ranking: RelatedRanking, tagLists: readonly KeptList[]): boolean {
  if (ranking[0] !== tagLists.length) return false;
  for (let i = 0; i < tagLists.length; i += 1) if (tagLists[i]!.version !== ranking[header + i]) return false;
  return true;
}

/** Which of a section's first sectionListForArticle ids a page leaves out: reused, a page is put together at a time. */
const leftOut = new Uint8Array(sectionListForArticle);

/**
 * What an article page shows besides the article: the related stories `ranking` (ranked from
 * `tagLists`) says, filled from the section's newest (`section`, at least
 * sectionListForArticle), then more from the section, never repeating a story. The section's
 * part is walked per request (a few dozen numbers compared): it changes with every story the
 * section gets, the ranking only with the tags' lists.
 */
export function pageTeasers(
  ranking: RelatedRanking,
  tagLists: readonly KeptList[],
  section: KeptList | null,
): { related: Teaser[]; moreFromSection: Teaser[] } {
  const k = ranking[0]!;
  const ranked = ranking[1]!;
  const first = slot(k, 0);
  const related: Teaser[] = [];
  for (let at = first + 2; at < first + ranked * (2 + k); at += 2 + k) {
    // Its teaser from the first list that holds it.
    let i = 0;
    while (ranking[at + i]! < 0) i += 1;
    related.push(tagLists[i]!.teasers[ranking[at + i]!]!);
  }
  const moreFromSection: Teaser[] = [];
  if (section === null) return { related, moreFromSection };
  const { high, low } = section.rank;
  // The section's list holds each id once; the article and the related stories are left out,
  // marked first (a few dozen comparisons of numbers in typed arrays).
  const end = Math.min(high.length, sectionListForArticle);
  leftOut.fill(0, 0, end);
  // The article (its halves at 2 and 3), then each ranked id.
  for (let r = -1; r < ranked; r += 1) {
    const at = r < 0 ? 2 : first + r * (2 + k);
    const h = ranking[at]!;
    const l = ranking[at + 1]!;
    for (let j = 0; j < end; j += 1) {
      if (low[j] === l && high[j] === h) {
        leftOut[j] = 1;
        break;
      }
    }
  }
  for (let j = 0; j < end; j += 1) {
    if (leftOut[j] === 1) continue;
    if (related.length < relatedSize) related.push(section.teasers[j]!);
    else if (moreFromSection.length < moreFromSectionSize) moreFromSection.push(section.teasers[j]!);
    else break;
  }
  return { related, moreFromSection };
}

/** The page of `article` put together from scratch: the ranking worked out afresh, as updatedRanking must agree with. */
export function articlePage(article: Article, tagLists: readonly KeptList[], section: KeptList | null): ArticleWithTeasers {
  return { article, ...pageTeasers(relatedRanking(article.id, tagLists), tagLists, section) };
}

/** A tag page's section of trending tags: the tags most carried by the newest stories. */
export const trendingWindowArticles = 200;
