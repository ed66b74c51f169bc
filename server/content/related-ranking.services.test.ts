// What a push costs the article pages' related rankings, over a real SQLite store read through
// the worker's own reader: a new story has the pages whose tags' lists it entered bring their
// ranking up to date instead of ranking again, a correction that leaves the lists' ids as they
// were keeps them, an unpublishing ranks again; after each, every page is what ranking from
// scratch over the same lists gives (article-teasers.test.ts proves the rule on random sites).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import type { Article } from '../../src/content';
import { seedTempStore, openSqliteContent } from '../../test/server';
import { articlePage, type KeptList } from './article-teasers';
import { generateArticles } from './seed';

let dir = '';
let dbPath = '';
let ids: string[] = [];

before(async () => {
  ({ dir, dbPath } = await seedTempStore(1500, 0));
  const db = new Database(dbPath, { readonly: true });
  ids = db.prepare<[], string>("SELECT id FROM articles WHERE status = 'published' ORDER BY id").pluck().all();
  db.close();
});

after(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(dir, { recursive: true, force: true });
});

type Content = Awaited<ReturnType<typeof openSqliteContent>>;

/** Every page read as requests read it; each checked against ranking from scratch over the lists the cache keeps. Returns how many rankings were worked out and updated meanwhile. */
async function everyPage(content: Content, all: readonly string[]): Promise<{ computed: number; updated: number }> {
  // The change feed looks at the store once per turn of the event loop, as between requests.
  await new Promise((resolve) => setImmediate(resolve));
  const before = content.cache.stats();
  for (const id of all) {
    const page = (await content.reader.articleWithTeasers(id))!;
    const kept = JSON.parse(content.cache.fresh<string>(id)!) as Article;
    const tagLists = kept.tags.map((tag) => content.cache.fresh<KeptList | null>(`head:tag:${tag}`)).filter((list) => list != null);
    const section = content.cache.fresh<KeptList>(`head:section:${kept.section}`) ?? null;
    const scratch = articlePage({ id } as Article, tagLists, section);
    assert.deepEqual(
      page.related.map((t) => t.id),
      scratch.related.map((t) => t.id),
      `the related stories of ${id}`,
    );
    assert.deepEqual(
      page.moreFromSection.map((t) => t.id),
      scratch.moreFromSection.map((t) => t.id),
      `more from the section of ${id}`,
    );
  }
  const now = content.cache.stats();
  return { computed: now.memoComputed - before.memoComputed, updated: now.memoUpdated - before.memoUpdated };
}

test('a new story: the pages whose tags it carries bring their ranking up to date; a correction keeps them; an unpublishing ranks again; every page as from scratch', async () => {
  const content = await openSqliteContent(dbPath);
  try {
    const first = await everyPage(content, ids);
    assert.equal(first.computed, ids.length, 'each page ranked once');
    assert.deepEqual(await everyPage(content, ids), { computed: 0, updated: 0 }, 'warm: nothing worked out');

    const [template] = [...generateArticles({ published: 1, drafts: 0, seed: 4242 })];
    const story: Article = {
      ...template!,
      id: (BigInt(ids.at(-1)!) + 1n).toString(),
      publishedAt: '2099-01-01T12:00:00.000Z',
      updatedAt: '2099-01-01T12:00:00.000Z',
    };
    await content.writer!.upsert(story, { modifiedAt: story.updatedAt });
    const all = [...ids, story.id];
    const pushed = await everyPage(content, all);
    assert.ok(pushed.updated > 50, `pages whose tags' lists gained the story brought up to date (${pushed.updated})`);
    console.log(`pushed: ${JSON.stringify(pushed)}`);
    assert.ok(
      pushed.computed <= pushed.updated / 10,
      `few ranked again (${pushed.computed}, the new page and those whose ranked story left a list's candidates)`,
    );

    const corrected = { ...story, title: `${story.title}, corrected`, updatedAt: '2099-01-01T12:05:00.000Z' };
    await content.writer!.upsert(corrected, { modifiedAt: corrected.updatedAt });
    const correction = await everyPage(content, all);
    assert.ok(correction.updated > 50, `the lists read again with the same ids: rankings kept (${correction.updated})`);
    console.log(`corrected: ${JSON.stringify(correction)}`);
    assert.equal(correction.computed, 1, 'only the corrected article itself, read again, ranks again');

    await content.writer!.unpublish(story.id, '2099-01-01T12:10:00.000Z', { modifiedAt: '2099-01-01T12:10:00.000Z' });
    const unpublished = await everyPage(content, ids);
    assert.ok(unpublished.computed > 50, `a story gone from the lists: their pages rank again (${unpublished.computed})`);
    console.log(`unpublished: ${JSON.stringify(unpublished)}`);
    assert.equal(unpublished.updated, 0, 'none of them can be brought up to date');
  } finally {
    await content.close();
  }
});
