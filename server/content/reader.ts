import { isDeepStrictEqual } from 'node:util';
import type { Article, ArticleWithTeasers, FrontPage, Headline, SectionPage, TagPage, Teaser } from '../../src/content';
import { clampPageSize, latestListSize, maxSectionPageSize, mostReadSize, sectionPageSize, trendingTagsSize } from '../../src/content';
import { apiPath, assertCursor } from '../../src/api-paths';
import { articleIdPattern, isSectionSlug, sections, type SectionSlug } from '../../src/sections';
import { isTagSlug } from '../../src/tags';
import { articlePage, articlePageAgain, relatedCandidatesPerTag, sectionListForArticle, trendingWindowArticles } from './article-teasers';
import type { ContentCache, Dependency, Inputs, Previous } from './cache';
import type { ContentReader } from './source';
import { listKey, type ArticleList, type ArticleStore, type PageStore } from './store';

// The site's content from a SQL store, through the content cache. The store is read for a few
// kinds of thing only, each kept with what it depends on:
//   article:<id>           one published article                 depends on that article
//   head:<list>            a list's newest headSize teasers      on the list, down to its last id
//   trending               the trending tags                     on the newest 200, down to the oldest
//   older:<list>:<c>:<n>   a page behind a cursor                on the list, between its ids
// Every page is put together from those and kept until one of them changes: the front page from
// the heads of everything and of each section; a section's or a tag's first page from its head;
// an article page from the article, the heads of its tags (related stories, ranked as the page
// is put together, never on a read) and the head of its section. So a CMS push costs the lists
// it enters and the pages made from them, and every other answer stays warm. A list read again
// keeps the teasers the push left alone as the same objects, and an article page is put
// together again from what it was (articlePageAgain): ranked again only where the push moved a
// related story, and the same page where nothing on it changed; at once, without a read, when
// the first page after the push has read its lists again already.

/** Enough for the longest first page (maxSectionPageSize + 1 tells whether there is a next) and the related candidates. */
export const headSize = Math.max(maxSectionPageSize, relatedCandidatesPerTag, sectionListForArticle) + 1;

const frontPageTeasersPerSection = 3;

function isTagList(list: ArticleList): boolean {
  return list !== 'all' && 'tag' in list;
}

/**
 * A list read again after a change: each teaser the change left as it was is the object kept
 * before, so the pages that show it can stay as they were (articlePageAgain) and its text in the
 * embedded state is not written again.
 */
function sameWhereUnchanged(rows: Teaser[], previous: readonly Teaser[] | null): Teaser[] {
  if (previous === null) return rows;
  const before = new Map(previous.map((t) => [t.id, t]));
  return rows.map((row) => {
    const was = before.get(row.id);
    return was !== undefined && isDeepStrictEqual(was, row) ? was : row;
  });
}

function headline({ id, section, title, publishedAt }: Teaser): Headline {
  return { id, section, title, publishedAt };
}

/** A first page of `limit` from a list's head: one more than the page tells whether there is a next. */
function firstPage(head: readonly Teaser[], limit: number): { items: Teaser[]; nextCursor: string | null } {
  const items = head.slice(0, limit);
  return { items, nextCursor: head.length > limit && items.length > 0 ? items.at(-1)!.id : null };
}

/** An article page after a change to one of its lists: from what it was, where the change allows. */
function pageAgain(
  previous: Previous<ArticleWithTeasers>,
  article: Article,
  tagLists: readonly Teaser[][],
  sectionList: readonly Teaser[],
): ArticleWithTeasers {
  const tagListsBefore = article.tags.map((tag) => previous.input<Teaser[] | null>(`head:${listKey({ tag })}`) ?? []);
  return articlePageAgain({ page: previous.value, tagLists: tagListsBefore }, article, tagLists, sectionList);
}

export function readArticles(store: ArticleStore, cache: ContentCache): ContentReader {
  /**
   * Lists' newest teasers, those not kept read in one statement. A tag no published article
   * carries is not kept: a crawl of made-up tags cannot fill the cache.
   */
  async function heads(inputs: Inputs, lists: readonly ArticleList[]): Promise<(Teaser[] | null)[]> {
    const keys = lists.map((list) => `head:${listKey(list)}`);
    const byKey = new Map(keys.map((key, i) => [key, lists[i]!]));
    const unique = [...byKey.keys()];
    const found = await inputs.getMany<Teaser[]>(
      unique,
      async (keys, previous) => {
        const wanted = keys.map((key) => byKey.get(key)!);
        const found = await store.newest(wanted, headSize);
        return found.map((rows, i) => (rows.length === 0 && isTagList(wanted[i]!) ? null : sameWhereUnchanged(rows, previous[i] ?? null)));
      },
      (rows, key): Dependency => ({ list: key.slice('head:'.length), from: rows.length === headSize ? rows.at(-1)!.id : null }),
    );
    return keys.map((key) => found[unique.indexOf(key)]!);
  }

  async function head(inputs: Inputs, list: ArticleList): Promise<Teaser[] | null> {
    return (await heads(inputs, [list]))[0]!;
  }

  /** A page behind a cursor: kept when it has articles, until one between its ids changes. */
  async function olderPage(list: ArticleList, cursor: string, limit: number) {
    const key = listKey(list);
    const rows = await cache.get(
      `older:${key}:${cursor}:${limit}`,
      async () => {
        const found = await store.teasers(list, limit + 1, cursor);
        return found.length === 0 ? null : found;
      },
      (found): Dependency => ({ list: key, from: found.length > limit ? found.at(-1)!.id : null, below: cursor }),
    );
    return firstPage(rows ?? [], limit);
  }

  async function listPage(list: { section: SectionSlug } | { tag: string }, cursor: string | undefined, limit: number) {
    if (cursor !== undefined) return olderPage(list, cursor, limit);
    return cache.derive(`first:${listKey(list)}:${limit}`, async (inputs) => {
      const rows = await head(inputs, list);
      return rows === null ? null : firstPage(rows, limit);
    });
  }

  const reader: ContentReader = {
    frontPage(): Promise<FrontPage> {
      store.changes.poll();
      return cache
        .derive('front', async (inputs) => {
          const [[all, ...bySection], trending] = await Promise.all([
            heads(inputs, ['all', ...sections.map(({ slug }) => ({ section: slug }))]),
            inputs.get(
              'trending',
              () => store.trendingTags(trendingWindowArticles, trendingTagsSize),
              ({ oldestId }): Dependency => ({ list: 'all', from: oldestId }),
            ),
          ]);
          const lead = all?.[0];
          if (lead === undefined) throw new Error(`the ${store.name} has no published articles; run \`npm run seed\``);
          return {
            lead,
            sections: sections.map(({ slug }, i) => ({
              section: slug,
              teasers: (bySection[i] ?? []).filter((t) => t.id !== lead.id).slice(0, frontPageTeasersPerSection),
            })),
            trendingTags: trending?.tags ?? [],
          };
        })
        .then((front) => front!);
    },

    async section(slug, options = {}): Promise<SectionPage | null> {
      const { cursor } = options;
      // The API validates shapes first; this guards against callers that forgot.
      assertCursor(cursor);
      if (!isSectionSlug(slug)) return null;
      store.changes.poll();
      const page = await listPage({ section: slug }, cursor, clampPageSize(options.limit, sectionPageSize));
      return page && { section: slug, ...page };
    },

    async tag(slug, options = {}): Promise<TagPage | null> {
      const { cursor } = options;
      assertCursor(cursor);
      if (!isTagSlug(slug)) return null;
      store.changes.poll();
      const page = await listPage({ tag: slug }, cursor, clampPageSize(options.limit, sectionPageSize));
      // A tag no published article carries has no page; past its last article, an empty page.
      return page && { tag: slug, ...page };
    },

    async latest(limit = latestListSize): Promise<Headline[]> {
      const n = clampPageSize(limit, latestListSize);
      store.changes.poll();
      return (await cache.derive(`latest:${n}`, async (inputs) => ((await head(inputs, 'all')) ?? []).slice(0, n).map(headline)))!;
    },

    async article(id): Promise<Article | null> {
      return (await reader.articleWithTeasers(id))?.article ?? null;
    },

    async articleWithTeasers(id): Promise<ArticleWithTeasers | null> {
      if (!articleIdPattern.test(id)) return null;
      store.changes.poll();
      const articleKey = `article:${id}`;
      return cache.derive(
        `page:${id}`,
        async (inputs, previous) => {
          const article = await inputs.get(
            articleKey,
            () => store.article(id),
            (): Dependency => ({ article: id }),
          );
          if (article === null) return null;
          // Its tags' lists (for related stories) and its section's, read together where not kept.
          const lists = [...article.tags.map((tag): ArticleList => ({ tag })), { section: article.section }];
          const [sectionList, ...tagLists] = await heads(inputs, lists).then((found) => [found.pop() ?? [], ...found.map((list) => list ?? [])]);
          if (previous === null) return articlePage(article, tagLists, sectionList!);
          return pageAgain(previous, article, tagLists, sectionList!);
        },
        // Most pages a push changes find the article and its lists read again already: put
        // together at once from them, unless the article itself changed (its lists may have).
        (previous, now) => {
          const article = now<Article>(articleKey);
          if (article === undefined || article !== previous.input(articleKey)) return undefined;
          return pageAgain(
            previous,
            article,
            article.tags.map((tag) => now<Teaser[]>(`head:${listKey({ tag })}`) ?? []),
            now<Teaser[]>(`head:${listKey({ section: article.section })}`) ?? [],
          );
        },
      );
    },

    async mostRead(limit = mostReadSize): Promise<Headline[]> {
      const n = clampPageSize(limit, mostReadSize);
      return cache.direct('most read', () => store.mostRead(n));
    },

    async articleAnyStatus(id): Promise<Article | null> {
      if (!articleIdPattern.test(id)) return null;
      return cache.direct('draft', () => store.articleAnyStatus(id));
    },

    async previewsRevokedBefore(id): Promise<string | null> {
      if (!articleIdPattern.test(id)) return null;
      return cache.direct('preview revocation', () => store.previewsRevokedBefore(id));
    },

    version() {
      // The page cache asks before any content is read: the feed must be up to date first.
      store.changes.poll();
      return cache.version;
    },
  };
  return reader;
}

/**
 * The site's content from the newsroom API, through the same cache: each answer kept by its
 * path, for CONTENT_FRESH_S (the API cannot say what changed), and standing in when it fails.
 */
export function readPages(store: PageStore, cache: ContentCache): ContentReader {
  const byTime = (): null => null;
  const reader: ContentReader = {
    async frontPage(): Promise<FrontPage> {
      return (await cache.get(apiPath.front(), () => store.frontPage(), byTime))!;
    },

    async section(slug, options = {}): Promise<SectionPage | null> {
      const { cursor } = options;
      assertCursor(cursor);
      // Only a well-formed slug or id is ever put into the API's URL.
      if (!isSectionSlug(slug)) return null;
      const limit = clampPageSize(options.limit, sectionPageSize);
      return cache.get(apiPath.section(slug, { limit, cursor }), () => store.section(slug, limit, cursor), byTime);
    },

    async tag(slug, options = {}): Promise<TagPage | null> {
      const { cursor } = options;
      assertCursor(cursor);
      if (!isTagSlug(slug)) return null;
      const limit = clampPageSize(options.limit, sectionPageSize);
      return cache.get(apiPath.tag(slug, { limit, cursor }), () => store.tag(slug, limit, cursor), byTime);
    },

    async latest(limit = latestListSize): Promise<Headline[]> {
      const n = clampPageSize(limit, latestListSize);
      return (await cache.get(apiPath.latest(n), () => store.latest(n), byTime))!;
    },

    async mostRead(limit = mostReadSize): Promise<Headline[]> {
      const n = clampPageSize(limit, mostReadSize);
      return (await cache.get(apiPath.mostRead(n), () => store.mostRead(n), byTime))!;
    },

    async article(id): Promise<Article | null> {
      return (await reader.articleWithTeasers(id))?.article ?? null;
    },

    async articleWithTeasers(id): Promise<ArticleWithTeasers | null> {
      if (!articleIdPattern.test(id)) return null;
      return cache.get(apiPath.article(id), () => store.articleWithTeasers(id), byTime);
    },

    async articleAnyStatus(): Promise<Article | null> {
      throw new Error('drafts are not available from the newsroom API: previews are off with CONTENT_API_URL');
    },

    async previewsRevokedBefore(): Promise<string | null> {
      throw new Error('drafts are not available from the newsroom API: previews are off with CONTENT_API_URL');
    },

    version: () => null,
  };
  return reader;
}
