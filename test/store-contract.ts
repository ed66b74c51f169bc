// What every SQL content store answers, checked against the seed's own articles: counts,
// the front page, section pages and their cursors, page sizes, drafts, the latest list. The
// SQLite and PostgreSQL tests both run it, so the two stores cannot drift apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Article, Teaser } from '../src/content';
import { maxSectionPageSize, moreFromSectionSize, relatedSize, sectionPageSize, trendingTagsSize } from '../src/content';
import { sections, type SectionSlug } from '../src/sections';
import { rankByTags, relatedCandidatesPerTag, trendingWindowArticles } from '../server/content/article-teasers';
import { generateArticles, type GenerateOptions } from '../server/content/seed';
import type { ContentCache } from '../server/content/cache';
import type { ContentReader, ViewsStore } from '../server/content/source';
import type { ArticleStore } from '../server/content/store';
import { minuteOf, mostReadWindowMinutes } from '../server/content/views-window';

/** A store as a worker reads it: the reader over the content cache, and the store underneath. */
export interface ContractSubject {
  reader: ContentReader;
  cache: ContentCache;
  store: ArticleStore & {
    countAll(): number | Promise<number>;
    readonly views: ViewsStore;
    publishedIds(): Promise<string[]>;
  };
}

const teaserKeys = ['id', 'image', 'lead', 'publishedAt', 'section', 'title'];
const articleKeys = [...teaserKeys, 'author', 'body', 'status', 'tags', 'updatedAt'].sort();
const imageKeys = ['alt', 'caption', 'credit', 'height', 'src', 'width'];

function keysOf(value: object): string[] {
  return Object.keys(value).sort();
}

function assertNewestFirst(ids: string[]): void {
  for (let i = 1; i < ids.length; i += 1) assert.ok(ids[i - 1]! > ids[i]!, `${ids[i - 1]} before ${ids[i]}`);
}

/** Registers the contract's tests for a store seeded with `seeded` (at most 1000 articles, so sport fits a page). */
export function describeStoreContract(subject: () => ContractSubject, seeded: GenerateOptions): void {
  const store = () => subject().reader;
  const generated = [...generateArticles(seeded)];
  const published = generated.filter((a) => a.status === 'published');
  const drafts = generated.filter((a) => a.status === 'draft');
  const publishedIds = new Set(published.map((a) => a.id));

  function assertTeaser(teaser: Teaser): void {
    assert.deepEqual(keysOf(teaser), teaserKeys);
    assert.deepEqual(keysOf(teaser.image), imageKeys);
    assert.ok(publishedIds.has(teaser.id), `${teaser.id} is a published article`);
  }

  /** Follows nextCursor to the end; returns the pages in order. */
  async function walkSection(slug: SectionSlug, limit: number): Promise<Teaser[][]> {
    const pages: Teaser[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await store().section(slug, { cursor, limit });
      assert.ok(page, `section ${slug} exists`);
      pages.push(page.items);
      if (page.nextCursor === null) return pages;
      assert.equal(page.nextCursor, page.items.at(-1)?.id, 'the cursor is the last item on the page');
      cursor = page.nextCursor;
    }
  }

  test('counts published articles only', async () => {
    assert.equal(await subject().store.count(), published.length);
    assert.equal(await subject().store.countAll(), generated.length);
  });

  test('has published articles in every section', async () => {
    for (const { slug } of sections) {
      const page = await store().section(slug);
      assert.ok(page && page.items.length > 0, `${slug} has articles`);
    }
  });

  test('front page: newest lead, then 3 per section in section order, no repeats', async () => {
    const front = await store().frontPage();
    assert.equal(front.lead.id, published[0]?.id);
    assertTeaser(front.lead);
    assert.deepEqual(
      front.sections.map((s) => s.section),
      sections.map((s) => s.slug),
    );
    const ids = [front.lead.id];
    for (const { section, teasers } of front.sections) {
      assert.equal(teasers.length, 3, `${section} has 3 teasers`);
      const expected = published.filter((a) => a.section === section && a.id !== front.lead.id).slice(0, 3);
      assert.deepEqual(
        teasers.map((t) => t.id),
        expected.map((a) => a.id),
      );
      for (const teaser of teasers) {
        assertTeaser(teaser);
        assert.equal(teaser.section, section);
      }
      ids.push(...teasers.map((t) => t.id));
    }
    assert.equal(ids.length, 37);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('section pages: cursor pagination covers the section exactly once, newest first', async () => {
    for (const { slug } of sections) {
      const expected = published.filter((a) => a.section === slug).map((a) => a.id);
      const pages = await walkSection(slug, 7);
      const ids = pages.flat().map((t) => t.id);
      assert.deepEqual(ids, expected, `${slug} pages concatenate to the whole section`);
      assertNewestFirst(ids);
      assert.ok(pages.slice(0, -1).every((p) => p.length === 7));
      pages.flat().forEach(assertTeaser);
    }
  });

  test('a page that ends exactly at the last article has no next cursor', async () => {
    const size = published.filter((a) => a.section === 'sport').length;
    assert.ok(size <= maxSectionPageSize, 'sport fits one page of the small seed');
    const page = await store().section('sport', { limit: size });
    assert.equal(page?.items.length, size);
    assert.equal(page?.nextCursor, null);
  });

  test('section page size: default, clamped to 1..max', async () => {
    const sizeOf = async (limit?: number) => (await store().section('news', { limit }))?.items.length;
    assert.equal(await sizeOf(), sectionPageSize);
    assert.equal(await sizeOf(0), 1);
    assert.equal(await sizeOf(-5), 1);
    assert.equal(await sizeOf(2.7), 2);
    assert.equal(await sizeOf(Number.NaN), sectionPageSize);
    assert.equal(await sizeOf(1000), maxSectionPageSize);
    assert.equal(await sizeOf(Number.POSITIVE_INFINITY), maxSectionPageSize);
  });

  test('unknown section is null; a malformed cursor is a RangeError', async () => {
    assert.equal(await store().section('weather' as SectionSlug), null);
    await assert.rejects(store().section('news', { cursor: 'abc' }), RangeError);
    await assert.rejects(store().section('news', { cursor: '1 OR 1=1' }), RangeError);
    const beyond = await store().section('news', { cursor: '000000000000000000' });
    assert.deepEqual(beyond, { section: 'news', items: [], nextCursor: null });
  });

  test('article: published only, with exactly the Article fields', async () => {
    const sample = published[42]!;
    const article = await store().article(sample.id);
    assert.deepEqual(article, sample);
    assert.deepEqual(keysOf(article), articleKeys);
    assert.equal(await store().article('999999999999999999'), null);
    assert.equal(await store().article('not-an-id'), null);
  });

  test('drafts stay off every public listing but are there for preview', async () => {
    const draftIds = new Set(drafts.map((a) => a.id));
    const front = await store().frontPage();
    const listed = [front.lead, ...front.sections.flatMap((s) => s.teasers), ...(await store().latest(maxSectionPageSize))];
    for (const { slug } of sections) listed.push(...(await walkSection(slug, maxSectionPageSize)).flat());
    assert.equal(listed.filter((t) => draftIds.has(t.id)).length, 0);
    for (const draft of drafts) {
      assert.equal(await store().article(draft.id), null);
      assert.deepEqual(await store().articleAnyStatus(draft.id), draft);
    }
    assert.deepEqual(await store().articleAnyStatus(published[0]!.id), published[0]);
  });

  /** What the related list must be, worked out from the seed's own articles. */
  function expectedTeasers(article: Article) {
    const candidates = article.tags.map((tag) =>
      published
        .filter((a) => a.id !== article.id && a.tags.includes(tag))
        .slice(0, relatedCandidatesPerTag)
        .map((a) => a.id),
    );
    const byTags = rankByTags(candidates, relatedSize);
    const sectionIds = published.filter((a) => a.section === article.section && a.id !== article.id).map((a) => a.id);
    const related = [...byTags, ...sectionIds.filter((id) => !byTags.includes(id))].slice(0, relatedSize);
    const more = sectionIds.filter((id) => !related.includes(id)).slice(0, moreFromSectionSize);
    return { related, more };
  }

  test('articles carry tags; a tag page lists its published articles newest first, once each, by cursor', async () => {
    const tagged = published.filter((a) => a.tags.length > 0);
    assert.ok(tagged.length > published.length * 0.9, 'the seed tags nearly every article');
    const tag = 'elections';
    const expected = published.filter((a) => a.tags.includes(tag)).map((a) => a.id);
    assert.ok(expected.length > 7, `${tag} spans several pages of 7`);
    const ids: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await store().tag(tag, { cursor, limit: 7 });
      assert.ok(page, 'the tag has a page');
      assert.equal(page.tag, tag);
      page.items.forEach(assertTeaser);
      ids.push(...page.items.map((t) => t.id));
      if (page.nextCursor === null) break;
      assert.equal(page.nextCursor, page.items.at(-1)?.id);
      cursor = page.nextCursor;
    }
    assert.deepEqual(ids, expected);
    assert.equal(await store().tag('no-such-tag'), null);
    assert.equal(await store().tag('Not A Tag'), null);
    await assert.rejects(store().tag(tag, { cursor: 'abc' }), RangeError);
  });

  test('an article with its teasers: related by shared tags then section, more from the section, no repeats', async () => {
    for (const sample of [published[3]!, published[42]!, published[published.length - 1]!]) {
      const page = await store().articleWithTeasers(sample.id);
      assert.ok(page);
      assert.deepEqual(page.article, sample);
      const expected = expectedTeasers(sample);
      assert.deepEqual(
        page.related.map((t) => t.id),
        expected.related,
      );
      assert.deepEqual(
        page.moreFromSection.map((t) => t.id),
        expected.more,
      );
      assert.ok(page.moreFromSection.every((t) => t.section === sample.section));
      [...page.related, ...page.moreFromSection].forEach(assertTeaser);
      const all = [sample.id, ...page.related.map((t) => t.id), ...page.moreFromSection.map((t) => t.id)];
      assert.equal(new Set(all).size, all.length, 'nothing twice on one page');
    }
    assert.equal(await store().articleWithTeasers(drafts[0]!.id), null);
    assert.equal(await store().articleWithTeasers('999999999999999999'), null);
  });

  test('the front page names the tags most carried by the newest stories', async () => {
    const counts = new Map<string, number>();
    for (const a of published.slice(0, trendingWindowArticles)) for (const tag of a.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    const expected = [...counts]
      .sort(([a, n], [b, m]) => m - n || (a < b ? -1 : 1))
      .slice(0, trendingTagsSize)
      .map(([tag]) => tag);
    assert.deepEqual((await store().frontPage()).trendingTags, expected);
  });

  test('most read: views ranked by their running totals over the last hour, published articles only', async () => {
    const now = minuteOf(Date.now());
    const views = subject().store.views;
    const [a, b, c, d, e] = published.slice(100, 105).map((x) => x.id) as [string, string, string, string, string];
    const draft = drafts[0]!.id;
    const unknown = '999999999999999999';
    assert.deepEqual(
      await views.record(
        now - 1,
        new Map([
          [a, 5],
          [b, 9],
          [draft, 50],
          [unknown, 40],
        ]),
      ),
      new Map(),
      'all written',
    );
    await views.record(
      now,
      new Map([
        [a, 6],
        [c, 2],
      ]),
    );
    // The window's first minute counts; the one before it leaves, however many views it had.
    await views.record(now - mostReadWindowMinutes + 1, new Map([[e, 1]]));
    await views.record(now - mostReadWindowMinutes, new Map([[d, 1_000]]));
    assert.equal((await views.ranked(1))[0], d, 'a minute counts until it is taken out of the totals');
    await views.expire(now);
    await views.expire(now);
    // The store ranks what it is given (the counter refuses views of anything but a published
    // article before they get here); most read leaves out whatever is not published.
    assert.deepEqual(await views.ranked(10), [draft, unknown, a, b, c, e], 'totals: 50, 40, 11, 9, 2, 1; d left with its minute, once');
    const ranked = (await store().mostRead(10)).map((h) => h.id);
    assert.deepEqual(ranked, [a, b, c, e]);
    for (const h of await store().mostRead(10)) assert.deepEqual(keysOf(h), ['id', 'publishedAt', 'section', 'title']);
    assert.equal((await store().mostRead(2)).length, 2);
  });

  test('published ids: every published article, no draft', async () => {
    const ids = await subject().store.publishedIds();
    assert.equal(ids.length, published.length);
    assert.deepEqual(new Set(ids), publishedIds);
  });

  test('latest: newest published across sections, clamped', async () => {
    const latest = await store().latest();
    assert.deepEqual(
      latest.map((t) => t.id),
      published.slice(0, 15).map((a) => a.id),
    );
    for (const headline of latest) {
      assert.deepEqual(keysOf(headline), ['id', 'publishedAt', 'section', 'title']);
      assert.ok(publishedIds.has(headline.id));
    }
    assert.equal((await store().latest(3)).length, 3);
    assert.equal((await store().latest(0)).length, 1);
    assert.equal((await store().latest(10_000)).length, maxSectionPageSize);
  });
}
