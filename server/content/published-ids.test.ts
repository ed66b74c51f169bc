import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContentCache } from './cache';
import { ChangeHub, everythingChanged } from './changes';
import { IdSet, type PublishedIds } from './published-ids';

const options = { name: 'test store', isOutage: () => false, maxEntries: 10, maxBytes: 1_000_000, staleMs: 0, freshMs: Infinity, backoffMs: 0 };

/** The published ids as a worker keeps them: in the content cache, which hears `hub` once for both. */
function publishedOver(hub: ChangeHub, load: () => Promise<string[]>): PublishedIds & { cache: ContentCache } {
  const cache = new ContentCache({ ...options, changes: hub, publishedIds: load });
  return Object.assign(cache.published!, { cache });
}

const state = (status: 'published' | 'draft') => ({ section: 'news' as const, tags: [], status });

test('published ids follow the change feed: published, unpublished and removed articles, without reading the list again', async () => {
  const hub = new ChangeHub();
  let reads = 0;
  const ids = publishedOver(hub, async () => {
    reads += 1;
    return ['a', 'b'];
  });
  assert.equal(ids.ready, false);
  assert.equal(reads, 0, 'nothing is read before the first read is asked for');
  await ids.firstRead;
  assert.ok(ids.ready && ids.has('a') && ids.has('b'));
  hub.emit({ kind: 'article', id: 'c', now: state('published'), was: null });
  hub.emit({ kind: 'article', id: 'a', now: state('draft'), was: state('published') });
  hub.emit({ kind: 'article', id: 'b', now: null, was: state('published') });
  hub.emit({ kind: 'article', id: 'd', now: state('draft'), was: null });
  assert.deepEqual(
    ['a', 'b', 'c', 'd'].filter((id) => ids.has(id)),
    ['c'],
  );
  // Heard twice (the feed allows it): the same.
  hub.emit({ kind: 'article', id: 'c', now: state('published'), was: null });
  assert.equal(ids.size, 1);
  assert.equal(reads, 1, 'the list was read once, never per change');
  ids.cache.close();
});

test('"everything changed" reads the whole list again; a change heard during a read is not lost', async () => {
  const hub = new ChangeHub();
  let list = ['a'];
  let release!: () => void;
  let hold = false;
  const ids = publishedOver(hub, async () => {
    const snapshot = [...list];
    if (hold) await new Promise<void>((resolve) => (release = resolve));
    return snapshot;
  });
  await ids.firstRead;
  list = ['a', 'x'];
  hold = true;
  hub.emit(everythingChanged);
  // While that read is under way (it read ['a', 'x']), 'y' is published and 'x' unpublished.
  list = ['a', 'y'];
  hub.emit({ kind: 'article', id: 'y', now: state('published'), was: null });
  hub.emit({ kind: 'article', id: 'x', now: state('draft'), was: state('published') });
  hold = false;
  release();
  for (let i = 0; i < 20 && !(ids.has('y') && !ids.has('x')); i += 1) await new Promise((r) => setImmediate(r));
  await ids.reload();
  assert.ok(ids.has('a') && ids.has('y') && !ids.has('x'), 'the read that raced the changes was followed by another');
  ids.cache.close();
});

test('a failed read is tried again, and until one succeeds nothing is taken on trust', async () => {
  const hub = new ChangeHub();
  let fail = true;
  const ids = publishedOver(hub, async () => {
    if (fail) throw new Error('the store is down');
    return ['a'];
  });
  await ids.firstRead;
  assert.equal(ids.ready, false);
  assert.equal(ids.has('a'), false);
  fail = false;
  await ids.reload();
  assert.ok(ids.ready && ids.has('a'));
  ids.cache.close();
});

test('the content cache is the one subscriber to the feed: the published ids hear changes through it', async () => {
  const hub = new ChangeHub();
  let subscribers = 0;
  const counted = {
    subscribe(listener: Parameters<ChangeHub['subscribe']>[0]) {
      subscribers += 1;
      return hub.subscribe(listener);
    },
    poll: () => hub.poll(),
  };
  const cache = new ContentCache({ ...options, changes: counted, publishedIds: () => Promise.resolve(['a']) });
  const ids = cache.published!;
  await ids.firstRead;
  hub.emit({ kind: 'article', id: 'b', now: state('published'), was: null });
  assert.ok(ids.has('a') && ids.has('b'));
  assert.equal(subscribers, 1);
  cache.close();
});

test('the published ids as numbers answer as a set of strings would, through thousands of additions and deletions', () => {
  // A seeded generator (32-bit arithmetic, its high bits used): the same run every time, half additions.
  let seed = 37;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return (seed >>> 16) % n;
  };
  // Ids that share their first nine digits, and ones that differ there only; odd ones beside.
  const pool = [
    ...Array.from({ length: 300 }, (_, i) => `2026112${String(random(3)).padStart(2, '0')}${String(i * 7_919).padStart(9, '0')}`),
    '000000000000000000',
    '999999999999999999',
    '000000001000000000',
    'a',
    'b',
    '12345',
  ];
  const first = pool.filter((_, i) => i % 3 === 0);
  const ids = new IdSet([...first, ...first.slice(0, 5)]);
  const expected = new Set(first);
  assert.equal(ids.size, expected.size, 'an id read twice is held once');
  let [added, deleted] = [0, 0];
  for (let step = 0; step < 5_000; step += 1) {
    const id = pool[random(pool.length)]!;
    if (random(2) === 0) {
      ids.add(id);
      expected.add(id);
      added += 1;
    } else {
      ids.delete(id);
      expected.delete(id);
      deleted += 1;
    }
    if (step % 250 === 0) for (const one of pool) assert.equal(ids.has(one), expected.has(one), `${one} after ${step} steps`);
    assert.equal(ids.size, expected.size);
  }
  for (const one of pool) assert.equal(ids.has(one), expected.has(one), one);
  assert.ok(deleted > 2_000 && added > 2_000, `both kinds of step ran (${added} additions, ${deleted} deletions)`);
  assert.equal(new IdSet().has('000000000000000000'), false);
});
