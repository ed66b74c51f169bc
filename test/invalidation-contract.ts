// What a write costs the content cache, held to the same rules on both SQL stores: the change
// feed reports each write exactly, and a write drops exactly the answers that depend on it
// (its own article; the lists it is, was or would be in, down to the oldest article each
// holds) and nothing else, so the rest stay warm. The
// expectations are worked out here from the seed's own articles, not read back from the cache.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Article } from '../src/content';
import { sectionPageSize } from '../src/content';
import { sections } from '../src/sections';
import { trendingWindowArticles } from '../server/content/article-teasers';
import type { ChangeFeed, ContentChange } from '../server/content/changes';
import { headSize } from '../server/content/reader';
import { generateArticles, type GenerateOptions } from '../server/content/seed';
import type { ArticleWriter } from '../server/content/source';
import type { ContractSubject } from './store-contract';

/** How these tests write: through a store's writer, and around it, as an operator would. */
export interface ContractWrites {
  /** A writer on another connection than the subject's store, whose feed hears its commits. */
  writer(): ArticleWriter;
  /** Deletes the article's row outright, outside the store (which never deletes one article). */
  remove(id: string): Promise<void>;
}

/** Waits for `check`, polling the feed as a read would; the ceiling is generous: the machine is shared. */
export async function until(feed: ChangeFeed, check: () => boolean, what: string, withinMs = 15_000): Promise<void> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    feed.poll();
    if (check()) return;
    if (performance.now() > deadline) assert.fail(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function minus(a: readonly string[], b: readonly string[]): string[] {
  const drop = new Set(b);
  return a.filter((x) => !drop.has(x));
}

/** Registers the tests in a suite of their own, which leaves the store as seeded when it is done. */
export function describeInvalidationContract(subject: () => ContractSubject, seeded: GenerateOptions, writes: ContractWrites): void {
  describe('change feed and content cache', () => invalidationTests(subject, seeded, writes));
}

function invalidationTests(subject: () => ContractSubject, seeded: GenerateOptions, writes: ContractWrites): void {
  const published = [...generateArticles(seeded)].filter((a) => a.status === 'published');
  // Every tenth article, so the sample spans sections and tags.
  const sample = published.filter((_, i) => i % 10 === 0);
  const watchedTags = ['football', 'analysis', 'elections', 'film', 'rail'];
  const newsCursor = published.filter((a) => a.section === 'news')[30]!.id;
  const sportCursor = published.filter((a) => a.section === 'sport')[10]!.id;

  /** Reads what a busy worker keeps: the front page, lists, tag pages, a page behind a cursor, article pages. */
  async function warm(): Promise<void> {
    const { reader } = subject();
    await reader.frontPage();
    await reader.latest();
    for (const { slug } of sections) await reader.section(slug);
    for (const tag of watchedTags) await reader.tag(tag);
    await reader.section('news', { cursor: newsCursor, limit: 10 });
    await reader.section('sport', { cursor: sportCursor, limit: 5 });
    for (const article of sample) assert.ok(await reader.articleWithTeasers(article.id));
  }

  /** The articles of each list as the stores hold them, newest first: the seed's, with this test's writes applied. */
  function listsOf(articles: readonly Article[]): Map<string, string[]> {
    const lists = new Map<string, string[]>();
    const add = (list: string, id: string) => (lists.get(list) ?? lists.set(list, []).get(list)!).push(id);
    for (const a of [...articles].sort((x, y) => (x.id < y.id ? 1 : -1))) {
      if (a.status !== 'published') continue;
      add('all', a.id);
      add(`section:${a.section}`, a.id);
      for (const tag of a.tags) add(`tag:${tag}`, a.id);
    }
    return lists;
  }

  /**
   * The rule, written out: a list kept to its oldest id (all of it when it holds fewer than it
   * could) is dropped when the changed article is in its scope, before or after, and not older.
   */
  function expectedStale(kept: readonly string[], lists: Map<string, string[]>, id: string, scopes: ReadonlySet<string>): string[] {
    const reaches = (list: string, ids: readonly string[], depth: number) => scopes.has(list) && (ids.length < depth || id >= ids[depth - 1]!);
    return kept.filter((key) => {
      if (/^\d{18}$/.test(key)) return key === id;
      if (key.startsWith('head:')) return reaches(key.slice('head:'.length), lists.get(key.slice('head:'.length)) ?? [], headSize);
      if (key === 'trending') return reaches('all', lists.get('all') ?? [], trendingWindowArticles);
      // A page behind a cursor holds the articles just below it, one more than it shows.
      const older = /^older:(.+):(\d{18}):(\d+)$/.exec(key);
      if (older === null) throw new Error(`no rule for ${key}`);
      const [, list, cursor, limit] = older as unknown as [string, string, string, string];
      return (
        id < cursor &&
        reaches(
          list,
          (lists.get(list) ?? []).filter((x) => x < cursor),
          Number(limit) + 1,
        )
      );
    });
  }

  function scopesOf(...sides: (Pick<Article, 'section' | 'tags' | 'status'> | null)[]): Set<string> {
    const scopes = new Set<string>();
    for (const side of sides) {
      if (side?.status !== 'published') continue;
      scopes.add('all').add(`section:${side.section}`);
      for (const tag of side.tags) scopes.add(`tag:${tag}`);
    }
    return scopes;
  }

  /**
   * Writes, waits until the subject's feed has told its cache, and checks exactly what went.
   * `before` is every article as the store held it before the write (`was` among them).
   */
  async function expectDrops(
    write: () => Promise<unknown>,
    id: string,
    was: Article | null,
    now: Article | null,
    before: readonly Article[],
  ): Promise<{ stale: string[] }> {
    const { cache, store } = subject();
    const heard: ContentChange[] = [];
    const stop = store.changes.subscribe((change) => heard.push(change));
    const kept = cache.snapshot();
    assert.deepEqual(kept.stale, [], 'everything warm before the write');
    try {
      await write();
      await until(store.changes, () => heard.some((c) => c.kind === 'article' && c.id === id), `the change of ${id}`);
    } finally {
      stop();
    }
    // What the cache kept was read before the write: its lists are the lists as they were.
    const stale = expectedStale(kept.fresh, listsOf(before), id, scopesOf(was, now));
    const after = cache.snapshot();
    assert.deepEqual(after.stale, stale, 'the write made exactly these kept answers stale');
    assert.deepEqual(after.fresh, minus(kept.fresh, stale), 'everything else read from the store stays');
    return { stale };
  }

  test('the change feed says what each write changed: the article, what it was and what it is', async () => {
    const reader = subject().store;
    const heard: ContentChange[] = [];
    const stop = reader.changes.subscribe((change) => heard.push(change));
    const template = published[7]!;
    const article = { ...template, id: '209901021200000001', publishedAt: '2099-01-02T12:00:00.000Z', updatedAt: '2099-01-02T12:00:00.000Z' };
    const changesOf = () => heard.filter((c) => c.kind === 'everything' || c.id === article.id);
    const latest = () => changesOf().at(-1);
    try {
      assert.equal((await writes.writer().upsert(article, { modifiedAt: article.updatedAt })).outcome, 'created');
      await until(reader.changes, () => changesOf().length >= 1, 'the new article');
      assert.deepEqual(latest(), {
        kind: 'article',
        id: article.id,
        now: { section: template.section, tags: template.tags, status: 'published' },
        was: null,
      });
      const moved = { ...article, section: 'sport' as const, tags: ['football', 'analysis'], updatedAt: '2099-01-02T12:05:00.000Z' };
      assert.equal((await writes.writer().upsert(moved, { modifiedAt: moved.updatedAt })).outcome, 'updated');
      await until(reader.changes, () => changesOf().length >= 2, 'the update');
      assert.deepEqual(latest(), {
        kind: 'article',
        id: article.id,
        now: { section: 'sport', tags: ['football', 'analysis'], status: 'published' },
        was: { section: template.section, tags: template.tags, status: 'published' },
      });
      assert.equal((await writes.writer().unpublish(article.id, '2099-01-02T12:10:00.000Z', { modifiedAt: '2099-01-02T12:10:00.000Z' })).outcome, 'updated');
      await until(reader.changes, () => changesOf().length >= 3, 'the unpublishing');
      assert.deepEqual(latest(), {
        kind: 'article',
        id: article.id,
        now: { section: 'sport', tags: ['football', 'analysis'], status: 'draft' },
        was: { section: 'sport', tags: ['football', 'analysis'], status: 'published' },
      });
      await writes.remove(article.id);
      await until(reader.changes, () => changesOf().length >= 4, 'the removal');
      assert.deepEqual(latest(), { kind: 'article', id: article.id, now: null, was: { section: 'sport', tags: ['football', 'analysis'], status: 'draft' } });
      assert.equal(changesOf().filter((c) => c.kind === 'everything').length, 0, 'four writes of one article are four precise changes, none "everything"');
    } finally {
      stop();
    }
  });

  const base = published[3]!;
  const pushed: Article = {
    ...base,
    id: '209901031200000001',
    section: 'sport',
    tags: ['football', 'analysis'],
    title: 'Late winner sends the city into the final',
    publishedAt: '2099-01-03T12:00:00.000Z',
    updatedAt: '2099-01-03T12:00:00.000Z',
    status: 'published',
  };

  test('a push of a new article drops its lists; the article pages that do not show them read nothing, the others each stale list once', async () => {
    const { reader, cache } = subject();
    cache.clear();
    await warm();
    const sportBefore = (await reader.section('sport'))!.items;
    const { stale } = await expectDrops(
      () => Promise.resolve(writes.writer().upsert(pushed, { modifiedAt: pushed.updatedAt })),
      pushed.id,
      null,
      pushed,
      published,
    );
    assert.ok(stale.includes('head:all') && stale.includes('head:section:sport') && stale.includes('head:tag:football'), stale.join());
    assert.ok(cache.snapshot().fresh.includes(`older:section:sport:${sportCursor}:5`), 'a page of sport behind a cursor is older than the push: it stays');

    const loads = () => cache.stats().loads;
    const showsStale = (a: Article) => stale.includes(`head:section:${a.section}`) || a.tags.some((tag) => stale.includes(`head:tag:${tag}`));
    const untouched = sample.filter((a) => !showsStale(a));
    assert.ok(untouched.length > sample.length / 2, 'most article pages do not depend on the push');
    const before = loads();
    for (const a of untouched) await reader.articleWithTeasers(a.id);
    assert.equal(loads() - before, 0, 'the next pass over the other articles reads nothing from the store');
    const refill = loads();
    for (const a of sample) await reader.articleWithTeasers(a.id);
    assert.ok(loads() - refill <= stale.length, `the pages that depended on it read each stale list once at most (${loads() - refill} reads)`);
    for (const a of sample.filter((a) => a.section === 'sport' && showsStale(a))) {
      const page = (await reader.articleWithTeasers(a.id))!;
      assert.ok(page.moreFromSection.some((t) => t.id === pushed.id) || page.related.some((t) => t.id === pushed.id), `the push is on page ${a.id}`);
    }

    // And readers see the push everywhere it belongs.
    assert.equal((await reader.frontPage()).lead.id, pushed.id);
    const sportAfter = (await reader.section('sport'))!.items;
    assert.equal(sportAfter[0]!.id, pushed.id);
    assert.ok(
      sportAfter.slice(1).every((teaser, i) => teaser === sportBefore[i]),
      'the list read again keeps the teasers it held as they were: only the new one is made and written out',
    );
    assert.equal((await reader.tag('football'))!.items[0]!.id, pushed.id);
    assert.equal((await reader.latest())[0]!.id, pushed.id);
    assert.equal((await reader.articleWithTeasers(pushed.id))!.article.title, pushed.title);
  });

  // The oldest news story of the sample: news has more stories than a kept list holds, so the
  // newest of news, and of everything, do not reach back to it.
  const old = [...sample].reverse().find((a) => a.section === 'news')!;
  const corrected = { ...old, title: `${old.title} (corrected)`, updatedAt: '2099-01-03T13:00:00.000Z' };
  const afterCorrection = published.map((a) => (a.id === old.id ? corrected : a));

  test('an update of an old article drops that article and only the lists that reach back to it', async () => {
    const { reader, cache } = subject();
    cache.clear();
    await warm();
    assert.ok(published.filter((a) => a.section === 'news' && a.id > old.id).length >= headSize, 'the seed has enough news');
    const { stale } = await expectDrops(() => Promise.resolve(writes.writer().upsert(corrected, { modifiedAt: corrected.updatedAt })), old.id, old, corrected, [
      ...published,
      pushed,
    ]);
    assert.ok(stale.includes(old.id));
    assert.ok(!stale.includes('head:all') && !stale.includes('trending'), 'the newest lists do not reach that far back');
    assert.ok(cache.snapshot().fresh.includes('head:all'), 'the front page reads nothing again');
    assert.equal((await reader.articleWithTeasers(old.id))!.article.title, corrected.title);
  });

  const draftId = '209901031500000001';
  const moved: Article = { ...pushed, section: 'travel', tags: ['rail'], updatedAt: '2099-01-03T14:00:00.000Z' };

  test('moving an article to another section and tags drops the lists it left and the lists it joined', async () => {
    const { reader, cache } = subject();
    cache.clear();
    await warm();
    const { stale } = await expectDrops(() => Promise.resolve(writes.writer().upsert(moved, { modifiedAt: moved.updatedAt })), pushed.id, pushed, moved, [
      ...afterCorrection,
      pushed,
    ]);
    for (const key of ['head:section:sport', 'head:tag:football', 'head:section:travel', 'head:tag:rail']) assert.ok(stale.includes(key), key);
    assert.equal(
      (await reader.section('sport'))!.items.some((t) => t.id === pushed.id),
      false,
    );
    assert.equal((await reader.section('travel'))!.items[0]!.id, pushed.id);
  });

  // Whatever these tests got to, the store is as seeded again for the tests that follow.
  after(async () => {
    for (const id of [pushed.id, draftId]) await writes.remove(id);
    // Later than the correction, which it takes back: an older modifiedAt would be refused.
    await writes.writer().upsert(old, { modifiedAt: '2099-01-04T00:00:00.000Z' });
  });

  test('an editor saving a draft drops nothing; unpublishing drops what showed the article', async () => {
    const { reader, cache } = subject();
    cache.clear();
    await warm();
    const version = reader.version();
    const draft = { ...pushed, id: draftId, status: 'draft' as const, title: 'Embargoed until noon' };
    await expectDrops(() => Promise.resolve(writes.writer().upsert(draft, { modifiedAt: draft.updatedAt })), draft.id, null, draft, [
      ...afterCorrection,
      moved,
    ]);
    assert.equal(reader.version(), version, 'pages rendered before are still good');
    cache.clear();
    await warm();
    const unpublished = { ...moved, status: 'draft' as const };
    await expectDrops(
      () => Promise.resolve(writes.writer().unpublish(pushed.id, '2099-01-03T16:00:00.000Z', { modifiedAt: '2099-01-03T16:00:00.000Z' })),
      pushed.id,
      moved,
      unpublished,
      [...afterCorrection, moved],
    );
    assert.equal(await reader.articleWithTeasers(pushed.id), null);
    assert.notEqual((await reader.frontPage()).lead.id, pushed.id);
    assert.equal(
      (await reader.section('travel', { limit: sectionPageSize }))!.items.some((t) => t.id === pushed.id),
      false,
    );
  });
}
