import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { articleIdPattern, sections } from '../../src/sections';
import { generateArticles, isEmptyStore, leadLength, newestPublishedAt, seedStore, StoreNotEmptyError, titleLength } from './seed';
import { signupsPathFor } from './sqlite-signups';
import { viewsPathFor } from './sqlite-views';
import type { ContentChange } from './changes';
import { changeLogRows, newestOfListsSql, openSqliteStore, queries, type SqliteStore } from './sqlite';
import { contentOver, type Content } from './open';
import { loadConfig } from '../config';
import { describeInvalidationContract } from '../../test/invalidation-contract';
import { describeStoreContract } from '../../test/store-contract';

const teaserKeys = ['id', 'image', 'lead', 'publishedAt', 'section', 'title'];
const articleKeys = [...teaserKeys, 'author', 'body', 'status', 'tags', 'updatedAt'].sort();
const small = { published: 600, drafts: 20 } as const;

const dir = mkdtempSync(join(tmpdir(), 'kiosk-content-'));
const smallPath = join(dir, 'small.sqlite');
const generated = [...generateArticles(small)];
const published = generated.filter((a) => a.status === 'published');
const drafts = generated.filter((a) => a.status === 'draft');
let store: SqliteStore;
let content: Content;
let writer: SqliteStore | undefined;

before(async () => {
  await seedStore(smallPath, small);
  store = openSqliteStore(smallPath, { readonly: true });
  content = contentOver(store, loadConfig({}), {}, { views: store.views });
});

after(async () => {
  writer?.close();
  await content.close();
  rmSync(dir, { recursive: true, force: true });
});

function keysOf(value: object): string[] {
  return Object.keys(value).sort();
}

function assertNewestFirst(ids: string[]): void {
  for (let i = 1; i < ids.length; i += 1) assert.ok(ids[i - 1]! > ids[i]!, `${ids[i - 1]} before ${ids[i]}`);
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
    assert.ok(
      generated.some((a) => a.updatedAt > a.publishedAt),
      'some articles were updated later',
    );
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
      if (article.body.length >= 11)
        assert.ok(
          article.body.some((b) => b.type === 'subheading'),
          `${article.id} has a subheading`,
        );
      for (const block of article.body) {
        if (block.type === 'paragraph') assert.ok(block.text.split('. ').length >= 2, block.text);
        if (block.type === 'quote') assert.ok(block.attribution.includes(', '), block.attribution);
      }
    }
    assert.equal(perSection.size, sections.length);
    const news = perSection.get('news') ?? 0;
    for (const [slug, count] of perSection) if (slug !== 'news') assert.ok(news > count, `news outnumbers ${slug}`);
    assert.ok(
      all.some((a) => a.body.some((b) => b.type === 'quote')),
      'some articles quote someone',
    );
    assert.ok(new Set(all.map((a) => a.title)).size > 1000, 'headlines vary');
  });
});

const subject = () => ({ reader: content.reader, cache: content.cache, store });

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

  const writes = {
    writer: () => (writer ??= openSqliteStore(smallPath)),
    async remove(id: string) {
      const db = new Database(smallPath);
      try {
        db.prepare('DELETE FROM articles WHERE id = ?').run(id);
      } finally {
        db.close();
      }
    },
  };
  describeStoreContract(subject, small, writes);
  describeInvalidationContract(subject, small, writes);

  test('a reader that missed more changes than the log keeps hears "everything", then precise changes again', async () => {
    const path = join(dir, 'change-log.sqlite');
    await seedStore(path, small);
    const reader = openSqliteStore(path, { readonly: true });
    const writer = openSqliteStore(path);
    const heard: ContentChange[] = [];
    reader.changes.subscribe((change) => heard.push(change));
    try {
      const db = new Database(path);
      try {
        // An operator's bulk edit, twice: more changes than the log keeps once a writer prunes it.
        db.exec('UPDATE articles SET updated_at = updated_at');
        db.exec('UPDATE articles SET updated_at = updated_at');
      } finally {
        db.close();
      }
      assert.ok(2 * generated.length > changeLogRows);
      writer.unpublish(published[0]!.id, '2099-01-01T00:00:00.000Z', { modifiedAt: '2099-01-01T00:00:00.000Z' });
      reader.changes.poll();
      assert.deepEqual(heard, [{ kind: 'everything' }]);
      writer.unpublish(published[1]!.id, '2099-01-01T00:00:00.000Z', { modifiedAt: '2099-01-01T00:00:00.000Z' });
      await new Promise((resolve) => setImmediate(resolve));
      reader.changes.poll();
      assert.deepEqual(
        heard.slice(1).map((c) => (c.kind === 'article' ? [c.id, c.was?.status, c.now?.status] : c.kind)),
        [[published[1]!.id, 'published', 'draft']],
      );
    } finally {
      reader.close();
      writer.close();
    }
  });

  test('newsletter sign-ups: recorded unconfirmed in a file of their own, a second adds letters and keeps the first time', async () => {
    await store.signups.signup('reader@example.com', ['sport', 'morning'], '2026-11-22T08:00:00.000Z');
    await store.signups.signup('reader@example.com', ['business', 'sport'], '2026-11-22T09:00:00.000Z');
    const db = new Database(signupsPathFor(smallPath), { readonly: true });
    try {
      assert.deepEqual(db.prepare('SELECT address, newsletters, signed_up_at, confirmed FROM newsletter_signups').all(), [
        { address: 'reader@example.com', newsletters: 'business,morning,sport', signed_up_at: '2026-11-22T08:00:00.000Z', confirmed: 0 },
      ]);
    } finally {
      db.close();
    }
    for (const [file, where] of [
      [smallPath, 'the content file'],
      [viewsPathFor(smallPath), 'the views file'],
    ] as const) {
      if (!existsSync(file)) continue;
      const other = new Database(file, { readonly: true });
      try {
        assert.equal(other.prepare("SELECT 1 FROM sqlite_master WHERE name = 'newsletter_signups'").get(), undefined, `not in ${where}`);
      } finally {
        other.close();
      }
    }
  });

  test('every query is answered from an index, without sorting', () => {
    const db = new Database(smallPath, { readonly: true });
    try {
      const params: Record<keyof typeof queries | 'newestOfLists', unknown[]> = {
        latest: [51],
        latestNextPage: ['202611212100010200', 21],
        sectionFirstPage: ['news', 21],
        sectionNextPage: ['news', '202611212100010200', 21],
        publishedArticle: ['202611212100010200'],
        anyArticle: ['202611212100010200'],
        previewsRevokedBefore: ['202611212100010200'],
        countPublished: [],
        countAll: [],
        tagFirstPage: ['elections', 21],
        tagNextPage: ['elections', '202611212100010200', 21],
        publishedHeadline: ['202611212100010200'],
        trendingTags: [200, 6],
        trendingOldest: [199],
        newestOfLists: [51, 'news', 51, 'elections', 51],
        publishedIds: [],
      };
      // Counting the tags of the newest 200 stories groups and orders at most a thousand rows,
      // once per change among them (the content cache keeps it): the one query allowed to sort.
      const sorts = new Set<string>(['trendingTags']);
      const all = { ...queries, newestOfLists: newestOfListsSql(['all', 'section', 'tag']) };
      for (const [name, sql] of Object.entries(all) as [keyof typeof all, string][]) {
        const plan = db
          .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params[name])
          .map((row) => row.detail);
        assert.ok(plan.length > 0, name);
        for (const step of plan) {
          assert.doesNotMatch(step, /^SCAN articles$/, `${name} scans the whole table: ${plan.join('; ')}`);
          if (!sorts.has(name)) assert.doesNotMatch(step, /TEMP B-TREE/, `${name} sorts: ${plan.join('; ')}`);
        }
        if (name !== 'countAll')
          assert.ok(
            plan.some((s) => /^SEARCH (articles|a) USING/.test(s)),
            `${name}: ${plan.join('; ')}`,
          );
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
    assert.deepEqual(lines.slice(0, 3), ['seed: reset, deleted 32 articles', 'seed: 1000/1500 articles (66%)', 'seed: 1500/1500 articles (100%)']);
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
    const opened = contentOver(full, loadConfig({}), {}, {});
    try {
      assert.equal(await full.count(), 10_000);
      assert.equal(full.countAll(), 10_200);
      const front = await opened.reader.frontPage();
      assert.equal(front.sections.flatMap((s) => s.teasers).length, 3 * sections.length);
    } finally {
      await opened.close();
    }
  });
});
