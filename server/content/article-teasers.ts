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
  return { teasers, json, rank, version: (lastVersion += 1), since };
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
 * (updatedRanking). Numbers only, in one array (the cache keeps one per article page, so every
 * array and object counts): the number of lists k and of ranked ids r; the version of each tag
 * list it was ranked from (KeptList.version), in the article's order of tags; the article's own
 * position among each list's rank ids (-1 where not there); then per ranked id, best first, its
 * two halves (RankList's numbers) and its position among each list's rank ids (-1 where not).
 */
export type RelatedRanking = readonly number[];

/** A ranking taken apart: `at` per ranked id then per list (ranked × lists + list); `shared`, how many lists count each. */
interface Unpacked extends Ranked {
  readonly versions: readonly number[];
  readonly self: readonly number[];
}

function pack(versions: readonly number[], self: readonly number[], ranked: Omit<Ranked, 'shared'>): number[] {
  const k = versions.length;
  const packed = [k, ranked.high.length, ...versions, ...self];
  for (let r = 0; r < ranked.high.length; r += 1) {
    packed.push(ranked.high[r]!, ranked.low[r]!);
    for (let i = 0; i < k; i += 1) packed.push(ranked.at[r * k + i]!);
  }
  return packed;
}

function unpack(packed: RelatedRanking): Unpacked {
  const [k, n] = [packed[0]!, packed[1]!];
  const versions = packed.slice(2, 2 + k);
  const self = packed.slice(2 + k, 2 + 2 * k);
  const high: number[] = [];
  const low: number[] = [];
  const at: number[] = [];
  const shared: number[] = [];
  for (let r = 0; r < n; r += 1) {
    const base = 2 + 2 * k + r * (2 + k);
    high.push(packed[base]!);
    low.push(packed[base + 1]!);
    let count = 0;
    for (let i = 0; i < k; i += 1) {
      at.push(packed[base + 2 + i]!);
      if (counted(packed[base + 2 + i]!, self[i]!)) count += 1;
    }
    shared.push(count);
  }
  return { versions, self, high, low, at, shared };
}

function positionIn({ high, low }: RankList, idHigh: number, idLow: number): number {
  for (let j = 0; j < high.length; j += 1) if (high[j] === idHigh && low[j] === idLow) return j;
  return -1;
}

/** Whether the id at `at` of a list is among its candidates: the first relatedCandidatesPerTag other than the article (at `self`). */
function counted(at: number, self: number): boolean {
  return at >= 0 && at - (self >= 0 && self < at ? 1 : 0) < relatedCandidatesPerTag;
}

function halves(id: string): [number, number] {
  return [Number(id.slice(0, 9)), Number(id.slice(9))];
}

/**
 * The related stories of the page of `articleId` ranked from scratch: `tagLists` holds, per tag
 * of the article, that tag's newest published teasers (at least relatedCandidatesPerTag + 1 of
 * them where the tag has that many).
 */
export function relatedRanking(articleId: string, tagLists: readonly KeptList[]): RelatedRanking {
  const ids = rankLists(
    tagLists.map(({ rank }) => rank),
    relatedSize,
    articleId,
    relatedCandidatesPerTag,
  );
  const [selfHigh, selfLow] = halves(articleId);
  const high: number[] = [];
  const low: number[] = [];
  const at: number[] = [];
  for (const id of ids) {
    const [h, l] = halves(id);
    high.push(h);
    low.push(l);
    for (const { rank } of tagLists) at.push(positionIn(rank, h, l));
  }
  return pack(
    tagLists.map((list) => list.version),
    tagLists.map(({ rank }) => positionIn(rank, selfHigh, selfLow)),
    { high, low, at },
  );
}

/**
 * `previous` (a ranking of the same article's tags from earlier reads of its lists) brought up
 * to date with `tagLists`, exactly as relatedRanking would rank them, where that can be shown
 * cheaply; undefined where not (then rank from scratch). It can when every list is its earlier
 * read with new ids in front (KeptList.since), each newer than any id the earlier reads held, and
 * no ranked id left the candidates of a list that counted it. Then no id of before gained a
 * list (the lists only lost old ids off their ends), the ranked ones kept their counts, and one
 * not ranked counts no more than it did, so still comes after every ranked one: the new ranking
 * is the best relatedSize of the ranked ids and the new ones, most lists first, newer first among
 * equals, a new id (newer than all) first among its equals.
 */
export function updatedRanking(packed: RelatedRanking, articleId: string, tagLists: readonly KeptList[]): RelatedRanking | undefined {
  const previous = unpack(packed);
  const moved = shifts(previous, tagLists);
  if (moved === undefined) return undefined;
  const versions = tagLists.map((list) => list.version);
  if (moved.shift.every((d) => d === 0)) return pack(versions, previous.self, previous);
  const { shift } = moved;
  // The article where it is now: further down by the ids in front of it, or out of sight.
  const self = previous.self.map((j, i) => shifted(j, shift[i]!, tagLists[i]!));
  const fresh = newIds(tagLists, moved, halves(articleId), self);
  // The ranked ids of before, where they are now; none may have left a list that counted it.
  const k = tagLists.length;
  const at: number[] = [];
  for (let r = 0; r < previous.high.length; r += 1) {
    for (let i = 0; i < k; i += 1) {
      const j = previous.at[r * k + i]!;
      const now = shifted(j, shift[i]!, tagLists[i]!);
      if (counted(j, previous.self[i]!) && !counted(now, self[i]!)) return undefined;
      at.push(now);
    }
  }
  return fresh && merged(versions, self, { ...previous, at }, fresh);
}

/** Where the id at `at` of a list is once `d` ids came in front of it: -1 where out of sight. */
function shifted(at: number, d: number, list: KeptList): number {
  return at < 0 || at + d >= list.rank.ids.length ? -1 : at + d;
}

/**
 * How many ids came in front of each list since the read `previous` was ranked from, where
 * nothing else changed them, and the newest id those reads held (every id in front must be newer,
 * so it was in none of them).
 */
function shifts(previous: Unpacked, tagLists: readonly KeptList[]): { shift: number[]; oldHigh: number; oldLow: number } | undefined {
  if (previous.versions.length !== tagLists.length) return undefined;
  const shift: number[] = [];
  let oldHigh = -1;
  let oldLow = -1;
  for (let i = 0; i < tagLists.length; i += 1) {
    const { rank } = tagLists[i]!;
    const d = prependedSince(tagLists[i]!, previous.versions[i]!);
    // Unknown, or what the list held before is out of sight.
    if (d < 0 || (d >= rank.ids.length && d > 0)) return undefined;
    if (d < rank.ids.length && (rank.high[d]! > oldHigh || (rank.high[d] === oldHigh && rank.low[d]! > oldLow))) {
      oldHigh = rank.high[d]!;
      oldLow = rank.low[d]!;
    }
    shift.push(d);
  }
  return { shift, oldHigh, oldLow };
}

/** Ids as a ranking holds them: each one's halves, how many lists count it, where it is in each (id × lists + list). */
interface Ranked {
  readonly high: readonly number[];
  readonly low: readonly number[];
  readonly shared: readonly number[];
  readonly at: readonly number[];
}

/** The ids in front of the lists (each list's first `shift`), where each is newer than every id before and not the article. */
function newIds(
  tagLists: readonly KeptList[],
  { shift, oldHigh, oldLow }: { shift: readonly number[]; oldHigh: number; oldLow: number },
  [selfHigh, selfLow]: [number, number],
  self: readonly number[],
): Ranked | undefined {
  const high: number[] = [];
  const low: number[] = [];
  for (let i = 0; i < tagLists.length; i += 1) {
    const rank = tagLists[i]!.rank;
    for (let j = 0; j < shift[i]!; j += 1) {
      const h = rank.high[j]!;
      const l = rank.low[j]!;
      if (h < oldHigh || (h === oldHigh && l <= oldLow) || (h === selfHigh && l === selfLow)) return undefined;
      let seen = false;
      for (let n = 0; n < high.length && !seen; n += 1) seen = high[n] === h && low[n] === l;
      if (!seen) {
        high.push(h);
        low.push(l);
      }
    }
  }
  // Each in front of the lists that hold it, counted where among their first candidates.
  const shared: number[] = [];
  const at: number[] = [];
  for (let n = 0; n < high.length; n += 1) {
    let count = 0;
    for (let i = 0; i < tagLists.length; i += 1) {
      const rank = tagLists[i]!.rank;
      let j = shift[i]! - 1;
      while (j >= 0 && !(rank.high[j] === high[n] && rank.low[j] === low[n])) j -= 1;
      at.push(j);
      if (counted(j, self[i]!)) count += 1;
    }
    shared.push(count);
  }
  return { high, low, shared, at };
}

/** The best relatedSize of the ranked ids of before and the new ones: most lists first, newer first among equals. */
function merged(versions: number[], self: number[], old: Ranked, fresh: Ranked): RelatedRanking {
  const k = versions.length;
  const pick = (x: number): [Ranked, number] => (x < old.high.length ? [old, x] : [fresh, x - old.high.length]);
  const order: number[] = [];
  for (let x = 0; x < old.high.length + fresh.high.length; x += 1) {
    const [from, at] = pick(x);
    // A new id no list counts (past every list's candidates) is no candidate.
    if (from.shared[at]! > 0) order.push(x);
  }
  const key = (x: number) => {
    const [from, at] = pick(x);
    return [from.shared[at]!, from.high[at]!, from.low[at]!] as const;
  };
  order.sort((x, y) => {
    const [a, b] = [key(x), key(y)];
    return b[0] - a[0] || b[1] - a[1] || b[2] - a[2];
  });
  const high: number[] = [];
  const low: number[] = [];
  const at: number[] = [];
  for (const x of order.slice(0, relatedSize)) {
    const [from, n] = pick(x);
    high.push(from.high[n]!);
    low.push(from.low[n]!);
    for (let i = 0; i < k; i += 1) at.push(from.at[n * k + i]!);
  }
  return pack(versions, self, { high, low, at });
}

/** Whether `ranking` was ranked from exactly these reads of the lists: its places point into them. */
export function rankedFrom(ranking: RelatedRanking, tagLists: readonly KeptList[]): boolean {
  return ranking[0] === tagLists.length && tagLists.every((list, i) => list.version === ranking[2 + i]);
}

/**
 * What the page of `articleId` shows besides the article: the related stories `ranking` (ranked
 * from `tagLists`) says, filled from the section's newest (`section`, at least
 * sectionListForArticle), then more from the section, never repeating a story. The section's
 * part is walked per request (a few dozen numbers compared): it changes with every story the
 * section gets, the ranking only with the tags' lists.
 */
export function pageTeasers(
  articleId: string,
  ranking: RelatedRanking,
  tagLists: readonly KeptList[],
  section: KeptList | null,
): { related: Teaser[]; moreFromSection: Teaser[] } {
  const [k, ranked] = [ranking[0]!, ranking[1]!];
  const first = 2 + 2 * k;
  const related: Teaser[] = [];
  for (let r = 0; r < ranked; r += 1) {
    // Its teaser from the first list that holds it.
    const base = first + r * (2 + k) + 2;
    let i = 0;
    while (ranking[base + i]! < 0) i += 1;
    related.push(tagLists[i]!.teasers[ranking[base + i]!]!);
  }
  const moreFromSection: Teaser[] = [];
  if (section === null) return { related, moreFromSection };
  const [selfHigh, selfLow] = halves(articleId);
  const { high, low } = section.rank;
  // The section's list holds each id once.
  const end = Math.min(high.length, sectionListForArticle);
  for (let i = 0; i < end; i += 1) {
    const h = high[i]!;
    const l = low[i]!;
    if (h === selfHigh && l === selfLow) continue;
    let shown = false;
    for (let r = 0; r < ranked && !shown; r += 1) shown = ranking[first + r * (2 + k)] === h && ranking[first + r * (2 + k) + 1] === l;
    if (shown) continue;
    if (related.length < relatedSize) related.push(section.teasers[i]!);
    else if (moreFromSection.length < moreFromSectionSize) moreFromSection.push(section.teasers[i]!);
    else break;
  }
  return { related, moreFromSection };
}

/** The page of `article` put together from scratch: the ranking worked out afresh, as updatedRanking must agree with. */
export function articlePage(article: Article, tagLists: readonly KeptList[], section: KeptList | null): ArticleWithTeasers {
  return { article, ...pageTeasers(article.id, relatedRanking(article.id, tagLists), tagLists, section) };
}

/** A tag page's section of trending tags: the tags most carried by the newest stories. */
export const trendingWindowArticles = 200;
