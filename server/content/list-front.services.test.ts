// A list a change only put new stories in front of is not read whole again: the worker reads
// those stories and puts them in front of the head it kept (reader.ts, headsFromFront; the rule
// at the top of cache.ts). Over a real SQLite store, through the worker's own reader: after each
// kind of change every list's head, teasers and their JSON text, is what a worker that never kept
// anything reads, and a plain new story sends no list to the whole read.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Article } from '../../src/content';
import { sections } from '../../src/sections';
import { seedTempStore, openSqliteContent } from '../../test/server';
import { generateArticles } from './seed';
import type { KeptList } from './article-teasers';
import type { ArticleList } from './store';

let dir = '';
let dbPath = '';

before(async () => {
  ({ dir, dbPath } = await seedTempStore(600, 0));
});

after(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(dir, { recursive: true, force: true });
});

type Content = Awaited<ReturnType<typeof openSqliteContent>>;

/** Counts the lists each whole read asks the store for. */
function countWholeReads(content: Content): { lists: ArticleList[] } {
  const seen = { lists: [] as ArticleList[] };
  const store = content.store;
  const newest = store.newest.bind(store);
  store.newest = (lists, limit) => {
    seen.lists.push(...lists);
    return newest(lists, limit);
  };
  return seen;
}

/** Every section's, tag's and the latest list's head, as `content` keeps them once read: ids and the JSON text pages write. */
async function heads(content: Content, tags: readonly string[]): Promise<Record<string, { ids: string[]; json: readonly string[] }>> {
  // The change feed looks at the store once per turn of the event loop, as between requests.
  await new Promise((resolve) => setImmediate(resolve));
  const out: Record<string, { ids: string[]; json: readonly string[] }> = {};
  const keep = (key: string) => {
    const head = content.cache.fresh<KeptList | null>(key);
    if (head) out[key] = { ids: head.teasers.map((t) => t.id), json: head.json };
  };
  await content.reader.latest();
  keep('head:all');
  for (const { slug } of sections) {
    await content.reader.section(slug);
    keep(`head:section:${slug}`);
  }
  for (const tag of tags) {
    await content.reader.tag(tag);
    keep(`head:tag:${tag}`);
  }
  return out;
}

/** What a worker that has kept nothing reads now. */
async function fromScratch(tags: readonly string[]) {
  const fresh = await openSqliteContent(dbPath);
  try {
    return await heads(fresh, tags);
  } finally {
    await fresh.close();
  }
}

test('a list that only gained new stories in front is read as those stories, not whole; after every kind of change each head is what a fresh read gives', async () => {
  const content = await openSqliteContent(dbPath);
  try {
    const templates = [...generateArticles({ published: 6, drafts: 0, seed: 777 })];
    const tags = [...new Set(templates.flatMap((t) => t.tags))];
    const whole = countWholeReads(content);
    await heads(content, tags);
    assert.deepEqual(await heads(content, tags), await fromScratch(tags), 'warm, as read afresh');
    const newestId = content.cache.fresh<KeptList>('head:all')!.teasers[0]!.id;
    let serial = 0;
    const story = (template: Article, stamp: string): Article => {
      serial += 1;
      return { ...template, id: (BigInt(newestId) + BigInt(serial)).toString(), publishedAt: stamp, updatedAt: stamp };
    };

    // A new story: every list it entered gains it in front; none is read whole.
    const first = story(templates[0]!, '2099-01-01T12:00:00.000Z');
    await content.writer!.upsert(first, { modifiedAt: first.updatedAt });
    whole.lists.length = 0;
    const afterFirst = await heads(content, tags);
    assert.deepEqual(whole.lists, [], 'no list read whole after a new story');
    assert.equal(afterFirst['head:all']!.ids[0], first.id, 'the new story leads the latest list');
    assert.equal(afterFirst[`head:section:${first.section}`]!.ids[0], first.id);
    for (const tag of first.tags) assert.equal(afterFirst[`head:tag:${tag}`]!.ids[0], first.id, `it leads #${tag}`);
    assert.deepEqual(afterFirst, await fromScratch(tags), 'after a new story, as read afresh');

    // Two at once, read after both.
    const second = story(templates[1]!, '2099-01-01T12:01:00.000Z');
    const third = story(templates[2]!, '2099-01-01T12:02:00.000Z');
    await content.writer!.upsert(second, { modifiedAt: second.updatedAt });
    await content.writer!.upsert(third, { modifiedAt: third.updatedAt });
    whole.lists.length = 0;
    const afterTwo = await heads(content, tags);
    assert.deepEqual(whole.lists, [], 'no list read whole after two new stories');
    assert.equal(afterTwo['head:all']!.ids.slice(0, 3).join(), [third.id, second.id, first.id].join());
    assert.deepEqual(afterTwo, await fromScratch(tags), 'after two new stories, as read afresh');

    // A correction of a listed story: its lists are read whole (its teaser may have changed).
    const corrected = { ...first, title: `${first.title} (corrected)`, updatedAt: '2099-01-01T13:00:00.000Z' };
    await content.writer!.upsert(corrected, { modifiedAt: corrected.updatedAt });
    whole.lists.length = 0;
    const afterCorrection = await heads(content, tags);
    assert.ok(whole.lists.length > 0, 'a correction: its lists read whole');
    assert.deepEqual(afterCorrection, await fromScratch(tags), 'after a correction, as read afresh');

    // An unpublishing, then a story older than the lists' newest (backdated), then a new story
    // retagged into one more list: each as read afresh.
    await content.writer!.unpublish(second.id, '2099-01-01T14:00:00.000Z', { modifiedAt: '2099-01-01T14:00:00.000Z' });
    assert.deepEqual(await heads(content, tags), await fromScratch(tags), 'after an unpublishing, as read afresh');
    const backdated = { ...templates[3]!, id: (BigInt(newestId) - 1n).toString() } as Article;
    await content.writer!.upsert(backdated, { modifiedAt: '2099-01-01T15:00:00.000Z' });
    whole.lists.length = 0;
    assert.deepEqual(await heads(content, tags), await fromScratch(tags), 'after a backdated story, as read afresh');
    assert.ok(whole.lists.length > 0, "a story older than a list's newest: its lists read whole");
    const retagged = { ...third, tags: [...new Set([...third.tags, ...templates[4]!.tags])], updatedAt: '2099-01-01T16:00:00.000Z' };
    await content.writer!.upsert(retagged, { modifiedAt: retagged.updatedAt });
    assert.deepEqual(await heads(content, tags), await fromScratch(tags), 'after a retag, as read afresh');
  } finally {
    await content.close();
  }
});
