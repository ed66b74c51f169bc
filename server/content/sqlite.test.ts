import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { Teaser } from '../../src/content';
import { maxSectionPageSize, sectionPageSize } from '../../src/content';
import { articleIdPattern, sections, type SectionSlug } from '../../src/sections';
import {
  generateArticles,
  isEmptyStore,
  leadLength,
  newestPublishedAt,
  seedStore,
  StoreNotEmptyError,
  titleLength,
} from './seed';
import { openSqliteStore, queries, type SqliteStore } from './sqlite';

const teaserKeys = ['id', 'image', 'lead', 'publishedAt', 'section', 'title'];
const articleKeys = [...teaserKeys, 'author', 'body', 'status', 'updatedAt'].sort();
const imageKeys = ['alt', 'caption', 'credit', 'height', 'src', 'width'];
const small = { published: 600, drafts: 20 } as const;

const dir = mkdtempSync(join(tmpdir(), 'kiosk-content-'));
const smallPath = join(dir, 'small.sqlite');
const generated = [...generateArticles(small)];
const published = generated.filter((a) => a.status === 'published');
const drafts = generated.filter((a) => a.status === 'draft');
const publishedIds = new Set(published.map((a) => a.id));
let store: SqliteStore;

before(async () => {
  await seedStore(smallPath, small);
  store = openSqliteStore(smallPath, { readonly: true });
});

after(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function keysOf(value: object): string[] {
  return Object.keys(value).sort();
}

function assertTeaser(teaser: Teaser): void {
  assert.deepEqual(keysOf(teaser), teaserKeys);
  assert.deepEqual(keysOf(teaser.image), imageKeys);
  assert.ok(publishedIds.has(teaser.id), `${teaser.id} is a published article`);
}

function assertNewestFirst(ids: string[]): void {
  for (let i = 1; i < ids.length; i += 1) assert.ok(ids[i - 1]! > ids[i]!, `${ids[i - 1]} before ${ids[i]}`);
}

/** Follows nextCursor to the end; returns the pages in order. */
async function walkSection(slug: SectionSlug, limit: number): Promise<Teaser[][]> {
  const pages: Teaser[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await store.section(slug, { cursor, limit });
    assert.ok(page, `section ${slug} exists`);
    pages.push(page.items);
    if (page.nextCursor === null) return pages;
    assert.equal(page.nextCursor, page.items.at(-1)?.id, 'the cursor is the last item on the page');
    cursor = page.nextCursor;
  }
}

describe('generated articles', () => {
  test('are deterministic for the same options and differ for another seed', () => {
    assert.deepEqual([...generateArticles(small)], generated);
    const other = [...generateArticles({ ...small, seed: 7 })];
    assert.notDeepEqual(
      other.map((a) => a.title),
      generated.map((a) => a.title),
    );
  });

  test('have unique newsroom ids, newest first, matching their publish minute', () => {
    assert.equal(generated.length, 620);
    assert.equal(published.length, 600);
    assert.equal(drafts.length, 20);
    assert.equal(new Set(generated.map((a) => a.id)).size, generated.length);
    assertNewestFirst(generated.map((a) => a.id));
    assert.equal(generated[0]?.publishedAt, new Date(newestPublishedAt).toISOString());
    for (const article of generated) {
      assert.match(article.id, articleIdPattern);
      assert.equal(article.id.slice(0, 12), article.publishedAt.replace(/\D/g, '').slice(0, 12));
      assert.ok(article.updatedAt >= article.publishedAt, `${article.id} updated after publishing`);
    }
    assert.ok(generated.some((a) => a.updatedAt > a.publishedAt), 'some articles were updated later');
  });

  test('interleave drafts with published articles', () => {
    const firstDraft = generated.findIndex((a) => a.status === 'draft');
    const lastDraft = generated.findLastIndex((a) => a.status === 'draft');
    assert.ok(firstDraft > 0 && lastDraft < generated.length - 1);
  });

  test('read like newsroom copy at the default size (10,200 articles)', () => {
    const all = [...generateArticles({ published: 10_000, drafts: 200 })];
    const perSection = new Map<string, number>();
    for (const article of all) {
      perSection.set(article.section, (perSection.get(article.section) ?? 0) + 1);
      assert.deepEqual(keysOf(article), articleKeys);
      assert.ok(article.title.length >= titleLength.min && article.title.length <= titleLength.max, article.title);
      assert.ok(article.lead.length >= leadLength.min && article.lead.length <= leadLength.max, article.lead);
      const copy = article.body.map((b) => (b.type === 'quote' ? `${b.text} ${b.attribution}` : b.text));
      assert.doesNotMatch([article.title, article.lead, article.image.alt, article.image.caption, ...copy].join(' '), /[{}]/);
      assert.deepEqual(article.image, {
        src: `/media/${article.id}.svg`,
        alt: article.image.alt,
        caption: article.image.caption,
        credit: 'Kiosk / Photo desk',
        width: 1200,
        height: 675,
      });
      assert.ok(article.image.alt.length > 10 && article.author.length > 3);
      assert.ok(article.body.length >= 8 && article.body.length <= 15, `${article.id} has ${article.body.length} blocks`);
      assert.equal(article.body[0]?.type, 'paragraph');
      assert.equal(article.body.at(-1)?.type, 'paragraph');
      if (article.body.length >= 11) assert.ok(article.body.some((b) => b.type === 'subheading'), `${article.id} has a subheading`);
      for (const block of article.body) {
        if (block.type === 'paragraph') assert.ok(block.text.split('. ').length >= 2, block.text);
        if (block.type === 'quote') assert.ok(block.attribution.includes(', '), block.attribution);
      }
    }
    assert.equal(perSection.size, sections.length);
    const news = perSection.get('news') ?? 0;
    for (const [slug, count] of perSection) if (slug !== 'news') assert.ok(news > count, `news outnumbers ${slug}`);
    assert.ok(all.some((a) => a.body.some((b) => b.type === 'quote')), 'some articles quote someone');
    assert.ok(new Set(all.map((a) => a.title)).size > 1000, 'headlines vary');
  });
});

describe('sqlite store', () => {
  test('seeding twice with the same options writes identical rows', async () => {
    const again = join(dir, 'again.sqlite');
    await seedStore(again, small);
    const dump = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare('SELECT * FROM articles ORDER BY id').all();
      } finally {
        db.close();
      }
    };
    assert.deepEqual(dump(again), dump(smallPath));
  });

  test('counts published articles only', async () => {
    assert.equal(await store.count(), 600);
    assert.equal(store.countAll(), 620);
  });

  test('has published articles in every section', async () => {
    for (const { slug } of sections) {
      const page = await store.section(slug);
      assert.ok(page && page.items.length > 0, `${slug} has articles`);
    }
  });

  test('front page: newest lead, then 3 per section in section order, no repeats', async () => {
    const front = await store.frontPage();
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
    const page = await store.section('sport', { limit: size });
    assert.equal(page?.items.length, size);
    assert.equal(page?.nextCursor, null);
  });

  test('section page size: default, clamped to 1..max', async () => {
    const sizeOf = async (limit?: number) => (await store.section('news', { limit }))?.items.length;
    assert.equal(await sizeOf(), sectionPageSize);
    assert.equal(await sizeOf(0), 1);
    assert.equal(await sizeOf(-5), 1);
    assert.equal(await sizeOf(2.7), 2);
    assert.equal(await sizeOf(Number.NaN), sectionPageSize);
    assert.equal(await sizeOf(1000), maxSectionPageSize);
    assert.equal(await sizeOf(Number.POSITIVE_INFINITY), maxSectionPageSize);
  });

  test('unknown section is null; a malformed cursor is a RangeError', async () => {
    assert.equal(await store.section('weather' as SectionSlug), null);
    await assert.rejects(store.section('news', { cursor: 'abc' }), RangeError);
    await assert.rejects(store.section('news', { cursor: '1 OR 1=1' }), RangeError);
    const beyond = await store.section('news', { cursor: '000000000000000000' });
    assert.deepEqual(beyond, { section: 'news', items: [], nextCursor: null });
  });

  test('article: published only, with exactly the Article fields', async () => {
    const sample = published[42]!;
    const article = await store.article(sample.id);
    assert.deepEqual(article, sample);
    assert.deepEqual(keysOf(article), articleKeys);
    assert.equal(await store.article('999999999999999999'), null);
    assert.equal(await store.article('not-an-id'), null);
  });

  test('drafts stay off every public listing but are there for preview', async () => {
    const draftIds = new Set(drafts.map((a) => a.id));
    const front = await store.frontPage();
    const listed = [front.lead, ...front.sections.flatMap((s) => s.teasers), ...(await store.latest(maxSectionPageSize))];
    for (const { slug } of sections) listed.push(...(await walkSection(slug, maxSectionPageSize)).flat());
    assert.equal(listed.filter((t) => draftIds.has(t.id)).length, 0);
    for (const draft of drafts) {
      assert.equal(await store.article(draft.id), null);
      assert.deepEqual(await store.articleAnyStatus(draft.id), draft);
    }
    assert.deepEqual(await store.articleAnyStatus(published[0]!.id), published[0]);
  });

  test('latest: newest published across sections, clamped', async () => {
    const latest = await store.latest();
    assert.deepEqual(
      latest.map((t) => t.id),
      published.slice(0, 15).map((a) => a.id),
    );
    for (const headline of latest) {
      assert.deepEqual(keysOf(headline), ['id', 'publishedAt', 'section', 'title']);
      assert.ok(publishedIds.has(headline.id));
    }
    assert.equal((await store.latest(3)).length, 3);
    assert.equal((await store.latest(0)).length, 1);
    assert.equal((await store.latest(10_000)).length, maxSectionPageSize);
  });

  test('every query is answered from an index, without sorting', () => {
    const db = new Database(smallPath, { readonly: true });
    try {
      const params: Record<keyof typeof queries, unknown[]> = {
        latest: [15],
        headlines: [15],
        frontPageSection: ['news', '202611212100010200', 3],
        sectionFirstPage: ['news', 21],
        sectionNextPage: ['news', '202611212100010200', 21],
        publishedArticle: ['202611212100010200'],
        anyArticle: ['202611212100010200'],
        countPublished: [],
        countAll: [],
      };
      for (const [name, sql] of Object.entries(queries) as [keyof typeof queries, string][]) {
        const plan = db
          .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params[name])
          .map((row) => row.detail);
        assert.ok(plan.length > 0, name);
        for (const step of plan) {
          assert.doesNotMatch(step, /^SCAN articles$/, `${name} scans the whole table: ${plan.join('; ')}`);
          assert.doesNotMatch(step, /TEMP B-TREE/, `${name} sorts: ${plan.join('; ')}`);
        }
        if (name !== 'countAll') assert.ok(plan.some((s) => /^SEARCH articles USING/.test(s)), `${name}: ${plan.join('; ')}`);
      }
    } finally {
      db.close();
    }
  });
});

describe('seedStore and isEmptyStore', () => {
  test('isEmptyStore: missing file, empty schema, then seeded', async () => {
    const path = join(dir, 'fresh', 'kiosk.sqlite');
    assert.equal(isEmptyStore(path), true);
    assert.equal(existsSync(path), false, 'asking does not create the file');
    await seedStore(path, { published: 5, drafts: 1 });
    assert.equal(isEmptyStore(path), false);
    const blank = join(dir, 'blank.sqlite');
    openSqliteStore(blank).close();
    assert.equal(isEmptyStore(blank), true);
  });

  test('refuses a store with articles unless reset, and reports progress', async () => {
    const path = join(dir, 'refuse.sqlite');
    await seedStore(path, { published: 30, drafts: 2 });
    await assert.rejects(seedStore(path, { published: 10, drafts: 0 }), StoreNotEmptyError);
    const lines: string[] = [];
    const result = await seedStore(path, { published: 1500, drafts: 0, reset: true, log: (line) => lines.push(line) });
    assert.equal(result.inserted, 1500);
    assert.deepEqual(lines.slice(0, 3), [
      'seed: reset, deleted 32 articles',
      'seed: 1000/1500 articles (66%)',
      'seed: 1500/1500 articles (100%)',
    ]);
    assert.match(lines.at(-1) ?? '', /^seed: wrote 1500 articles \(1500 published, 0 drafts\) in \d+ ms$/);
    const reopened = openSqliteStore(path, { readonly: true });
    try {
      assert.equal(await reopened.count(), 1500);
    } finally {
      reopened.close();
    }
  });

  test('opening a missing store read-only fails loudly', () => {
    assert.throws(() => openSqliteStore(join(dir, 'nope.sqlite'), { readonly: true }));
    const blank = join(dir, 'no-table.sqlite');
    new Database(blank).close();
    assert.throws(() => openSqliteStore(blank, { readonly: true }), /no articles table/);
  });

  test('full default seed: 10,000 published + 200 drafts', async (t) => {
    const path = join(dir, 'full.sqlite');
    const started = performance.now();
    const { inserted, ms } = await seedStore(path);
    t.diagnostic(`seeded ${inserted} articles in ${ms} ms (${Math.round(performance.now() - started)} ms wall)`);
    assert.equal(inserted, 10_200);
    const full = openSqliteStore(path, { readonly: true });
    try {
      assert.equal(await full.count(), 10_000);
      assert.equal(full.countAll(), 10_200);
      const front = await full.frontPage();
      assert.equal(front.sections.flatMap((s) => s.teasers).length, 36);
    } finally {
      full.close();
    }
  });
});
