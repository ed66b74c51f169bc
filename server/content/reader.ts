import type { Article, ArticleWithTeasers, ContentClient, FrontPage, Headline, SectionPage, TagPage, Teaser } from '../../src/content';
import { clampPageSize, latestListSize, maxSectionPageSize, mostReadSize, sectionPageSize, trendingTagsSize } from '../../src/content';
import { assertCursor } from '../../src/api-paths';
import { serializeState } from '../../src/page-contract';
import { articleIdPattern, isSectionSlug, sections, type SectionSlug } from '../../src/sections';
import { isTagSlug } from '../../src/tags';
import {
  keptList,
  keptTeasers,
  pageTeasers,
  rankedFrom,
  relatedRanking,
  updatedRanking,
  relatedCandidatesPerTag,
  sectionListForArticle,
  trendingWindowArticles,
  type KeptList,
  type RelatedRanking,
} from './article-teasers';
import { frozenWithJson, keepJson, parsedWithJson, type CacheReads, type ContentCache, type Dependency, type PageReads } from './cache';
import type { StoreFailures } from './failure';
import { deepFreeze } from './freeze';
import type { ContentReader } from './source';
import { listKey, type ArticleList, type ArticleStore } from './store';
import { mostReadFreshMs, rankedIds } from './views-window';

// The site's content from any store (SQLite, PostgreSQL, the newsroom API: store.ts's one
// contract), through the content cache (what it keeps and what drops it: the rule at the top of
// cache.ts). The store is read for a few kinds of thing only, under these keys:
//   <id>                   one published article, as its JSON text   depends on that article
//   head:<list>            a list's newest headSize teasers           on the list, down to its last id
//   trending               the trending tags                          on the newest 200, down to the oldest
//   older:<list>:<c>:<n>   a page behind a cursor                     on the list, between its ids
// Every page is put together per request from those: the front page from the heads of
// everything and of each section; a section's or a tag's first page from its head; an article
// page from the article, the heads of its tags (related stories: their ranking kept beside the
// article, cache.memo) and the head of its section (walked per request). So a CMS push costs the
// handful of entries it touches, read again once by the next request that needs them, and every
// other answer stays warm; a list that only gained new stories in front is read as those stories
// put in front of the head it kept (headsFromFront), and a page whose tags' lists only gained
// them brings its ranking up to date in a few comparisons instead of ranking again (updatedRanking). With
// the breaking-news cache on, a page's render reads through noting(), which tells the cache
// which of these entries the page was put together from.

/** Enough for the longest first page (maxSectionPageSize + 1 tells whether there is a next) and the related candidates. */
export const headSize = Math.max(maxSectionPageSize, relatedCandidatesPerTag, sectionListForArticle) + 1;

const frontPageTeasersPerSection = 3;

/** The everything list's head, with its headlines (the latest list beside every page) made once. */
interface KeptHead extends KeptList {
  readonly headlines?: readonly Headline[];
  readonly headlinesJson?: readonly string[];
}

function isTagList(list: ArticleList): boolean {
  return list !== 'all' && 'tag' in list;
}

function headline({ id, section, title, publishedAt }: Teaser): Headline {
  return { id, section, title, publishedAt };
}

/**
 * A list's head as read now; `previous`, its read before (kept, current or not), says which ids
 * are new in front, and its teasers (and headlines) that did not change are kept as they were.
 */
function keptHead(list: ArticleList, rows: Teaser[], previous: KeptHead | undefined): KeptHead {
  const { teasers, json, from } = keptTeasers(rows, previous);
  const head = keptList(teasers, json, previous);
  if (list !== 'all') return head;
  const headlines: Headline[] = [];
  const headlinesJson: string[] = [];
  teasers.forEach((teaser, i) => {
    const at = from[i]!;
    const kept = at >= 0 ? previous?.headlines?.[at] : undefined;
    if (kept !== undefined) {
      headlines.push(kept);
      headlinesJson.push(previous!.headlinesJson![at]!);
      return;
    }
    const made = headline(teaser);
    headlinesJson.push(serializeState(made));
    headlines.push(keepJson(deepFreeze(made), headlinesJson.at(-1)!));
  });
  return { ...head, headlines: Object.freeze(headlines), headlinesJson };
}

/** A teaser as the store's list reads give it (the same fields in the same order), from an article read whole. */
function teaserOf({ id, section, title, lead, image, publishedAt }: Article): Teaser {
  return { id, section, title, lead, image, publishedAt };
}

function listed(article: Article, list: ArticleList): boolean {
  return list === 'all' || ('section' in list ? article.section === list.section : article.tags.includes(list.tag));
}

/**
 * The stories `entered` (cache.enteredSince) put in front of a list's head as kept before
 * (`previous`), newest first, when each is newer than everything it held: then the head now is
 * them and the head before, to headSize, and only they need reading. Undefined where not.
 */
function newInFront(entered: readonly string[] | undefined, previous: KeptHead | undefined): string[] | undefined {
  if (entered === undefined || previous === undefined) return undefined;
  const newest = previous.teasers[0]?.id ?? '';
  const ids = [...new Set(entered)].sort((a, b) => (a < b ? 1 : -1));
  return ids.every((id) => id > newest) ? ids : undefined;
}

/** Reads a published article (through the cache: keptArticle), null when there is none. */
type StoryReader = (id: string) => Promise<Article | null>;

/**
 * Per list, its head as it is now where only new stories entered it in front since its last read
 * (each story read once for all the lists, through the cache, where its own page finds it),
 * else undefined: that list is read whole. A story not found published, or not in the list,
 * sends its list to the whole read.
 */
async function headsFromFront(
  story: StoryReader,
  fronts: readonly (string[] | undefined)[],
  lists: readonly ArticleList[],
  previous: readonly (KeptHead | undefined)[],
): Promise<(Teaser[] | undefined)[]> {
  const ids = [...new Set(fronts.flatMap((front) => front ?? []))];
  if (ids.length === 0) return fronts.map(() => undefined);
  const articles = new Map(await Promise.all(ids.map(async (id) => [id, await story(id)] as const)));
  return fronts.map((front, i) => {
    if (front === undefined) return undefined;
    const stories = front.map((id) => articles.get(id) ?? null);
    if (stories.some((story) => story === null || !listed(story, lists[i]!))) return undefined;
    return [...stories.map((story) => teaserOf(story!)), ...previous[i]!.teasers].slice(0, headSize);
  });
}

/**
 * Each list's head rows now: put together from its front (headsFromFront) where it can be, the
 * others read whole in one statement, begun at once as before there were fronts (so a store's
 * requests go out in the order they always did); a front that could not be used is read whole after.
 */
async function headRows(
  store: ArticleStore,
  story: StoryReader,
  lists: readonly ArticleList[],
  fronts: readonly (string[] | undefined)[],
  previous: readonly (KeptHead | undefined)[],
): Promise<Teaser[][]> {
  const rows: (Teaser[] | undefined)[] = lists.map(() => undefined);
  const readWhole = async (at: readonly number[]) => {
    if (at.length === 0) return;
    const read = await store.newest(
      at.map((i) => lists[i]!),
      headSize,
    );
    at.forEach((i, n) => (rows[i] = read[n]!));
  };
  const unread = () => lists.flatMap((_, i) => (rows[i] === undefined ? [i] : []));
  const [, fromFront] = await Promise.all([
    readWhole(lists.flatMap((_, i) => (fronts[i] === undefined ? [i] : []))),
    headsFromFront(story, fronts, lists, previous),
  ]);
  fromFront.forEach((found, i) => {
    if (found !== undefined) rows[i] = found;
  });
  await readWhole(unread());
  return rows as Teaser[][];
}

/** A first page of `limit` from a list's head: one more than the page tells whether there is a next. */
function firstPage(head: readonly Teaser[], limit: number): { items: Teaser[]; nextCursor: string | null } {
  const items = head.slice(0, limit);
  return { items, nextCursor: head.length > limit && items.length > 0 ? items.at(-1)!.id : null };
}

/** A list's pages from the kept heads (first pages) and kept pages behind a cursor. */
function listReads(store: ArticleStore, cache: CacheReads) {
  const story: StoryReader = async (id) => {
    const json = cache.fresh<string>(id) ?? (await keptArticle(store, cache, id));
    return json === null ? null : (JSON.parse(json) as Article);
  };

  /**
   * Lists' newest teasers, those not kept read in one statement. A tag no published article
   * carries is not kept: a crawl of made-up tags cannot fill the cache.
   */
  async function heads(lists: readonly ArticleList[]): Promise<(KeptHead | null)[]> {
    const keys = lists.map((list) => `head:${listKey(list)}`);
    const byKey = new Map(keys.map((key, i) => [key, lists[i]!]));
    const unique = [...byKey.keys()];
    const found = await cache.readMany<KeptHead>(
      unique,
      async (keys) => {
        const wanted = keys.map((key) => byKey.get(key)!);
        const previous = keys.map((key) => cache.previous<KeptHead>(key));
        const fronts = keys.map((key, i) => newInFront(cache.enteredSince(key), previous[i]));
        const rows = await headRows(store, story, wanted, fronts, previous);
        return rows.map((found, i) => (found.length === 0 && isTagList(wanted[i]!) ? null : keptHead(wanted[i]!, found, previous[i])));
      },
      (head, key): Dependency => ({ list: key.slice('head:'.length), from: head.teasers.length === headSize ? head.teasers.at(-1)!.id : null }),
    );
    return keys.map((key) => found[unique.indexOf(key)]?.value ?? null);
  }

  async function head(list: ArticleList): Promise<KeptHead | null> {
    return (await heads([list]))[0]!;
  }

  /** A page behind a cursor: kept when it has articles, until one between its ids changes. */
  async function olderPage(list: ArticleList, cursor: string, limit: number) {
    const key = listKey(list);
    const rows = await cache.get(
      `older:${key}:${cursor}:${limit}`,
      async () => {
        const found = await store.teasers(list, limit + 1, cursor);
        return found.length === 0 ? null : frozenWithJson(found);
      },
      (found): Dependency => ({ list: key, from: found.length > limit ? found.at(-1)!.id : null, below: cursor }),
    );
    return firstPage(rows ?? [], limit);
  }

  async function listPage(list: { section: SectionSlug } | { tag: string }, cursor: string | undefined, limit: number) {
    if (cursor !== undefined) return olderPage(list, cursor, limit);
    const kept = await head(list);
    return kept === null ? null : firstPage(kept.teasers, limit);
  }

  return { heads, head, page: listPage };
}

type Heads = (lists: readonly ArticleList[]) => Promise<(KeptHead | null)[]>;

/** The front page: the heads of everything and of each section, and the trending tags. */
async function frontPage(store: ArticleStore, cache: CacheReads, heads: Heads): Promise<FrontPage> {
  const [[all, ...bySection], trending] = await Promise.all([
    heads(['all', ...sections.map(({ slug }) => ({ section: slug }))]),
    cache.get(
      'trending',
      () => store.trendingTags(trendingWindowArticles, trendingTagsSize),
      ({ oldestId }): Dependency => ({ list: 'all', from: oldestId }),
    ),
  ]);
  const lead = all?.teasers[0];
  if (lead === undefined) throw new Error(`the ${store.name} has no published articles; run \`npm run seed\``);
  return {
    lead,
    sections: sections.map(({ slug }, i) => ({
      section: slug,
      teasers: (bySection[i]?.teasers ?? []).filter((t) => t.id !== lead.id).slice(0, frontPageTeasersPerSection),
    })),
    trendingTags: trending?.tags ?? [],
  };
}

/**
 * An article as the cache keeps it: its JSON text, one string (its section and tags too: each
 * request parses its own copy before it needs them, so keeping them apart would cost objects only).
 */
async function readArticle(store: ArticleStore, id: string): Promise<string | null> {
  const article = await store.article(id);
  return article && serializeState(article);
}

/**
 * A published article's JSON text through the cache, read when not kept: what its page and a
 * list it entered in front are put together from. (Callers ask cache.fresh first: a page's
 * request then goes on without waiting a turn.) Its key is the id alone, eighteen digits, which
 * no other key is (the others start with a word): the one string the entry keeps for both its key
 * and its dependency (cache.ts, keptDepends), where `article:<id>` was one more object per
 * article kept, 10,000 of a warm worker's heap.
 */
function keptArticle(store: ArticleStore, cache: CacheReads, id: string): Promise<string | null> {
  return cache.get(
    id,
    () => readArticle(store, id),
    (): Dependency => ({ article: id }),
  );
}

/** An article's page: the article, and its related stories and more from its section, from its tags' and its section's heads. */
async function articleWithTeasers(store: ArticleStore, cache: CacheReads, heads: Heads, id: string): Promise<ArticleWithTeasers | null> {
  if (!articleIdPattern.test(id)) return null;
  const json = cache.fresh<string>(id) ?? (await keptArticle(store, cache, id));
  if (json === null) return null;
  // This request's own copy: the text it was parsed from is what its embedded state writes.
  const article = parsedWithJson<Article>(json);
  // Its tags' lists (for related stories) and its section's: at once where every one is kept,
  // else read together where not.
  const lists = [...article.tags.map((tag): ArticleList => ({ tag })), { section: article.section }];
  const keys = lists.map((list) => `head:${listKey(list)}`);
  let found: (KeptHead | null | undefined)[] = keys.map((listKey) => cache.fresh<KeptHead>(listKey));
  if (found.includes(undefined)) found = await heads(lists);
  const section = found.pop() ?? null;
  const tagLists = found.filter((list) => list != null);
  // Its related stories, ranked again only when one of its tags' lists was read again, and then
  // brought up to date from the ranking before where the lists only gained new stories in front.
  // The section's part is put together per request (pageTeasers): a section's new story costs
  // its pages nothing kept.
  const ranking = cache.memo(
    id,
    (kept: RelatedRanking) => rankedFrom(kept, tagLists),
    (room) => relatedRanking(id, tagLists, room),
    (previous) => updatedRanking(previous, tagLists),
  );
  return { article, ...pageTeasers(ranking, tagLists, section) };
}

/** The public pages' reads, through `cache` (the cache, or a view of it that notes what a page reads). */
function publicReads(store: ArticleStore, cache: CacheReads): ContentClient {
  const lists = listReads(store, cache);
  const client: ContentClient = {
    frontPage: () => frontPage(store, cache, lists.heads),

    async section(slug, options = {}): Promise<SectionPage | null> {
      const { cursor } = options;
      // The API validates shapes first; this guards against callers that forgot.
      assertCursor(cursor);
      if (!isSectionSlug(slug)) return null;
      const page = await lists.page({ section: slug }, cursor, clampPageSize(options.limit, sectionPageSize));
      return page && { section: slug, ...page };
    },

    async tag(slug, options = {}): Promise<TagPage | null> {
      const { cursor } = options;
      assertCursor(cursor);
      if (!isTagSlug(slug)) return null;
      const page = await lists.page({ tag: slug }, cursor, clampPageSize(options.limit, sectionPageSize));
      // A tag no published article carries has no page; past its last article, an empty page.
      return page && { tag: slug, ...page };
    },

    async latest(limit = latestListSize): Promise<Headline[]> {
      const n = clampPageSize(limit, latestListSize);
      return (await lists.head('all'))?.headlines?.slice(0, n) ?? [];
    },

    async article(id): Promise<Article | null> {
      return (await client.articleWithTeasers(id))?.article ?? null;
    },

    articleWithTeasers: (id) => articleWithTeasers(store, cache, lists.heads, id),

    async mostRead(limit = mostReadSize): Promise<Headline[]> {
      const n = clampPageSize(limit, mostReadSize);
      // One ranking per worker for every list length, read again every few seconds.
      const ranking = await cache.get(
        'most-read',
        () => store.mostRead(rankedIds),
        () => null,
        mostReadFreshMs,
      );
      return ranking?.slice(0, n) ?? [];
    },
  };
  return client;
}

export function readArticles(store: ArticleStore, cache: ContentCache, failures: StoreFailures): ContentReader {
  return {
    ...publicReads(store, cache),

    noting: (reads: PageReads) => publicReads(store, cache.noting(reads)),

    // Never kept: an editor's preview reads the store each time, its failure mapped as a write's is.
    async articleAnyStatus(id): Promise<Article | null> {
      if (!articleIdPattern.test(id)) return null;
      return failures.answer('draft', () => store.articleAnyStatus(id));
    },

    async previewsRevokedBefore(id): Promise<string | null> {
      if (!articleIdPattern.test(id)) return null;
      return failures.answer('preview revocation', () => store.previewsRevokedBefore(id));
    },

    version() {
      return cache.version;
    },
  };
}
