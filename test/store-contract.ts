// What every content store answers through the one reader, checked against the seed's own
// articles: counts, the front page, section pages and their cursors, page sizes, drafts, the
// latest list. The SQLite and PostgreSQL tests run all of it, the newsroom API's test the part a
// reader answers alone (describeReaderContract), so the three stores cannot drift apart.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Article, Teaser } from '../src/content';
import { maxSectionPageSize, moreFromSectionSize, relatedSize, sectionPageSize, trendingTagsSize } from '../src/content';
import { sections, type SectionSlug } from '../src/sections';
import { rankByTags, relatedCandidatesPerTag, trendingWindowArticles } from '../server/content/article-teasers';
import { generateArticles, type GenerateOptions } from '../server/content/seed';
import type { ContentCache } from '../server/content/cache';
import type { ChangeFeed, ContentChange } from '../server/content/changes';
import type { ContentReader, ViewsStore, WriteResult } from '../server/content/source';
import type { ArticleStore } from '../server/content/store';
import { minuteOf, mostReadWindowMinutes } from '../server/content/views-window';
import { until, type ContractWrites } from './invalidation-contract';

/** A store as a worker reads it: the reader over the content cache, and the store underneath. */
export interface ContractSubject {
  reader: ContentReader;
  cache: ContentCache;
  store: ArticleStore & {
    readonly changes: ChangeFeed;
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

/**
 * Registers the contract's tests for a store seeded with `seeded` (at most 1000 articles, so sport
 * fits a page); with `writes`, also the ordering of the CMS's writes and the revocation of previews.
 */
export function describeStoreContract(subject: () => ContractSubject, seeded: GenerateOptions, writes?: ContractWrites): void {
  if (writes !== undefined) describe('ordered writes and preview revocation', () => orderedWriteTests(subject, seeded, writes));
  contractTests(() => subject().reader, seeded, subject);
}

/**
 * The parts of the contract a reader answers alone, for a store read only through another
 * Kiosk's /api (the newsroom API): everything but drafts, counts, views and published ids, which
 * it does not have.
 */
export function describeReaderContract(reader: () => ContentReader, seeded: GenerateOptions): void {
  contractTests(reader, seeded, null);
}

function contractTests(store: () => ContentReader, seeded: GenerateOptions, subject: (() => ContractSubject) | null): void {
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

  if (subject !== null) {
    test('counts published articles only', async () => {
      assert.equal(await subject().store.count(), published.length);
      assert.equal(await subject().store.countAll(), generated.length);
    });
  }

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
    assert.equal(ids.length, 1 + 3 * sections.length, 'the lead and three teasers a section');
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
      if (subject !== null) assert.deepEqual(await store().articleAnyStatus(draft.id), draft);
    }
    if (subject !== null) assert.deepEqual(await store().articleAnyStatus(published[0]!.id), published[0]);
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

  if (subject !== null) {
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
  }
}

/**
 * The CMS's writes are ordered by its own modifiedAt, decided in the write's transaction: an older
 * version never replaces a newer one, a refused or repeated write commits nothing (no feed hears
 * of it), If-Match is checked against the stored version, and unpublishing revokes the article's
 * preview links. The articles are new ones, removed afterwards, so the store is left as seeded.
 */
function orderedWriteTests(subject: () => ContractSubject, seeded: GenerateOptions, writes: ContractWrites): void {
  const template = [...generateArticles(seeded)].find((a) => a.status === 'published' && a.section !== 'sport')!;
  const ids: string[] = [];
  let serial = 0;
  const at = (minute: number) => new Date(Date.UTC(2099, 0, 5, 12, minute)).toISOString();

  function story(minute: number, fields: Partial<Article> = {}): Article {
    return {
      ...template,
      id: `2099010512${String(minute).padStart(2, '0')}${String(900_000 + serial).padStart(6, '0')}`,
      publishedAt: at(minute),
      updatedAt: at(minute),
      ...fields,
    };
  }
  function newStory(fields: Partial<Article> = {}): Article {
    serial += 1;
    const article = story(0, fields);
    ids.push(article.id);
    return article;
  }
  const upsert = (article: Article, modifiedAt: string, ifMatch?: string[]) =>
    Promise.resolve(writes.writer().upsert(article, ifMatch === undefined ? { modifiedAt } : { modifiedAt, ifMatch }));
  const unpublish = (id: string, updatedAt: string, modifiedAt: string, ifMatch?: string[]) =>
    Promise.resolve(writes.writer().unpublish(id, updatedAt, ifMatch === undefined ? { modifiedAt } : { modifiedAt, ifMatch }));
  const stored = async (id: string) => (await subject().store.articleAnyStatus(id))!;

  /** Every change the subject's feed hears of the article from now on (what other workers would hear). */
  function listen(id: string) {
    const feed = subject().store.changes;
    const heard: ContentChange[] = [];
    const stop = feed.subscribe((change) => heard.push(change));
    return { feed, stop, of: () => heard.filter((c) => c.kind === 'article' && c.id === id) };
  }

  /**
   * Writes the article moved to sport, then checks the feed heard that and the `committed` writes
   * before it, and nothing else: a refused write that committed would be one more.
   */
  async function heardOnly(listener: ReturnType<typeof listen>, article: Article, committed: number, markerModifiedAt: string): Promise<void> {
    try {
      assert.equal((await upsert({ ...article, section: 'sport' }, markerModifiedAt)).outcome, 'updated');
      await until(listener.feed, () => listener.of().some((c) => c.kind === 'article' && c.now?.section === 'sport'), 'the marker write');
      assert.equal(listener.of().length, committed + 1, `the committed writes and the marker alone were heard: ${JSON.stringify(listener.of())}`);
    } finally {
      listener.stop();
    }
  }

  after(async () => {
    for (const id of ids) await writes.remove(id);
  });

  test('a late replay of an older version is refused and changes nothing; the same write again is unchanged; no feed hears either', async () => {
    const wrong = newStory({ title: 'Minister resigns (wrong name)' });
    const right = { ...wrong, title: 'Minister resigns', updatedAt: at(2) };
    const listener = listen(wrong.id);
    assert.deepEqual(await upsert(wrong, at(1)), { outcome: 'created', modifiedAt: at(1), updatedAt: wrong.updatedAt, previewsRevokedBefore: null });
    assert.equal((await upsert(right, at(2))).outcome, 'updated');
    assert.deepEqual(await upsert({ ...wrong, updatedAt: at(3) }, at(1)), { outcome: 'stale', modifiedAt: at(2) } satisfies WriteResult);
    assert.equal((await stored(wrong.id)).title, 'Minister resigns');
    assert.deepEqual(await upsert({ ...right, updatedAt: at(4) }, at(2)), {
      outcome: 'unchanged',
      modifiedAt: at(2),
      updatedAt: at(2),
      previewsRevokedBefore: null,
    } satisfies WriteResult);
    assert.deepEqual(await upsert({ ...right, title: 'Minister resigns, then stays' }, at(2)), { outcome: 'stale', modifiedAt: at(2) } satisfies WriteResult);
    assert.deepEqual(await stored(wrong.id), right);
    await heardOnly(listener, right, 2, at(5));
  });

  test('If-Match: only the stored version lets a write through; none stored matches no list', async () => {
    const article = newStory({ title: 'Council votes on the tram' });
    const listener = listen(article.id);
    assert.deepEqual(await upsert(article, at(1), [at(1)]), { outcome: 'preconditionFailed', modifiedAt: null } satisfies WriteResult);
    assert.equal(await subject().store.articleAnyStatus(article.id), null);
    assert.equal((await upsert(article, at(1))).outcome, 'created');
    const approved = { ...article, title: 'Council approves the tram' };
    assert.deepEqual(await upsert(approved, at(2), [at(0)]), { outcome: 'preconditionFailed', modifiedAt: at(1) } satisfies WriteResult);
    assert.deepEqual(await unpublish(article.id, at(2), at(2), [at(0)]), { outcome: 'preconditionFailed', modifiedAt: at(1) } satisfies WriteResult);
    assert.equal((await stored(article.id)).title, 'Council votes on the tram');
    assert.equal((await stored(article.id)).status, 'published');
    assert.equal((await upsert(approved, at(4), [at(0), at(1)])).outcome, 'updated');
    assert.equal((await stored(article.id)).title, 'Council approves the tram');
    await heardOnly(listener, approved, 2, at(5));
  });

  test('unpublishing: older than the stored version is refused; at its time it takes the article off and revokes its previews; again is unchanged', async () => {
    const article = newStory({ title: 'Ferry strike called off' });
    assert.equal((await upsert(article, at(2))).outcome, 'created');
    assert.equal(await subject().store.previewsRevokedBefore(article.id), null);
    assert.deepEqual(await unpublish(article.id, at(10), at(1)), { outcome: 'stale', modifiedAt: at(2) } satisfies WriteResult);
    assert.equal((await stored(article.id)).status, 'published');
    assert.equal(await subject().store.previewsRevokedBefore(article.id), null);

    const taken = await unpublish(article.id, at(11), at(2));
    assert.deepEqual(taken, { outcome: 'updated', modifiedAt: at(2), updatedAt: at(11), previewsRevokedBefore: at(11) } satisfies WriteResult);
    assert.deepEqual(await stored(article.id), { ...article, status: 'draft', updatedAt: at(11) });
    assert.equal(await subject().store.previewsRevokedBefore(article.id), at(11));
    assert.deepEqual(await unpublish(article.id, at(12), at(2)), {
      outcome: 'unchanged',
      modifiedAt: at(2),
      updatedAt: at(11),
      previewsRevokedBefore: at(11),
    } satisfies WriteResult);
    assert.equal(await subject().store.previewsRevokedBefore(article.id), at(11), 'the same unpublish again revokes nothing more');
    // The published version it took off cannot come back by a replay.
    assert.equal((await upsert(article, at(2))).outcome, 'stale');
    assert.equal((await stored(article.id)).status, 'draft');
    assert.deepEqual(await unpublish('209901051259999999', at(12), at(12)), { outcome: 'notFound' } satisfies WriteResult);
    assert.equal(await subject().store.previewsRevokedBefore('209901051259999999'), null);
  });

  test('a push back to draft revokes previews; publishing again keeps the revocation; saving a draft moves nothing', async () => {
    const article = newStory({ title: 'Embargo broken: the budget leaks' });
    assert.equal((await upsert(article, at(1))).outcome, 'created');
    const drafted = await upsert({ ...article, status: 'draft', updatedAt: at(20) }, at(2));
    assert.equal(drafted.outcome === 'updated' && drafted.previewsRevokedBefore, at(20));
    assert.equal((await upsert({ ...article, status: 'draft', lead: 'Edited in draft.', updatedAt: at(21) }, at(3))).outcome, 'updated');
    assert.equal(await subject().store.previewsRevokedBefore(article.id), at(20));
    assert.equal((await upsert({ ...article, updatedAt: at(22) }, at(4))).outcome, 'updated');
    assert.equal(await subject().store.previewsRevokedBefore(article.id), at(20));
  });

  test('writes racing each other, a new article and then an existing one: the newest version is stored, whatever order they commit in', async () => {
    const article = newStory({ title: 'Race: version 0' });
    const minutes = [7, 3, 9, 1, 8, 2, 6, 4, 5];
    const race = (round: number) =>
      Promise.all(minutes.map((m) => upsert({ ...article, title: `Race ${round}: version ${m}`, updatedAt: at(m + round * 10) }, at(m + round * 10))));
    const first = await race(0);
    assert.equal(first.filter((r) => r.outcome === 'created').length, 1, JSON.stringify(first));
    assert.equal((await stored(article.id)).title, 'Race 0: version 9');
    const second = await race(1);
    assert.ok(
      second.every((r) => r.outcome === 'updated' || r.outcome === 'stale'),
      JSON.stringify(second),
    );
    assert.equal((await stored(article.id)).title, 'Race 1: version 9');
  });
}
