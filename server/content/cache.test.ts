// The content cache's own rules, with loads that are plain functions so a test can hold one open
// or make it fail on cue (the stores' tests run the same cache over real SQLite and PostgreSQL:
// test/invalidation-contract.ts): reads that race a change, several keys read at once, the bound
// in heap bytes, the change feed as the one way in, stand-ins only while the store fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entryBytes, heapBytes, type ContentCache, type Dependency } from './cache';
import { ChangeHub, type ContentChange } from './changes';
import { ContentUnavailable } from './failure';
import { testCache } from '../../test/content-cache';

const cache = testCache;

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const onArticle = (id: string) => (): Dependency => ({ article: id });
const changeOf = (id: string): ContentChange => ({
  kind: 'article',
  id,
  now: { section: 'news', tags: [], status: 'published' },
  was: { section: 'news', tags: [], status: 'published' },
});

test('a read that began before a change is not trusted after it, and nobody who came after it waits on it', async () => {
  const c = cache();
  const first = deferred<string>();
  let loads = 0;
  const load = () => (++loads === 1 ? first.promise : Promise.resolve('after'));
  const early = c.read('article:1', load, onArticle('1'));
  c.apply(changeOf('1'));
  const late = c.read('article:1', load, onArticle('1'));
  first.resolve('before');
  assert.deepEqual(await early, { value: 'before', fresh: false }, 'the early reader gets what it asked for, marked untrusted');
  assert.deepEqual(await late, { value: 'after', fresh: true }, 'the late reader read again');
  assert.equal(loads, 2);
  assert.equal((await c.read('article:1', load, onArticle('1')))?.value, 'after');
  assert.equal(loads, 2, 'and what it read is kept');
});

test('several keys at once: the missing ones in one load, the kept ones not again, a key being read is waited for', async () => {
  const c = cache();
  const calls: string[][] = [];
  const loadMany = (keys: string[]) => {
    calls.push(keys);
    return Promise.resolve(keys.map((key) => `value of ${key}`));
  };
  await c.read(
    'a',
    () => Promise.resolve('value of a'),
    () => null,
  );
  const slow = deferred<string>();
  const pending = c.read(
    'b',
    () => slow.promise,
    () => null,
  );
  const many = c.readMany(['a', 'b', 'c', 'd'], loadMany, () => null);
  slow.resolve('value of b');
  await pending;
  assert.deepEqual(
    (await many).map((kept) => kept?.value),
    ['value of a', 'value of b', 'value of c', 'value of d'],
  );
  assert.deepEqual(calls, [['c', 'd']]);
});

test('the bound is the heap a value takes: a one-byte string at a byte a character, a two-byte one at two, objects by their slots', async () => {
  assert.equal(heapBytes('abc'), 24 + 3);
  assert.equal(heapBytes('a\u20acc'), 24 + 6, 'one character past U+00FF makes the whole string two bytes a character');
  assert.equal(heapBytes({ a: 'x', b: 1 }), 24 + 16 + 25);
  assert.equal(heapBytes(['x', 'y']), 32 + 16 + 50);
  // The least recently read go once the bound is passed.
  const c = cache({ maxBytes: 3 * entryBytes('x'.repeat(1_000)) });
  const load = (key: string) => () => Promise.resolve(key.slice(0, 1).repeat(1_000));
  for (const key of ['a', 'b', 'c', 'd']) await c.read(key, load(key), () => null);
  assert.deepEqual(c.snapshot().fresh, ['b', 'c', 'd']);
  assert.equal(c.stats().bytes, 3 * entryBytes('x'.repeat(1_000)));
});

test('while the store fails: the kept answer within staleMs, then ContentUnavailable; the store is asked again once it answers', async () => {
  let now = 0;
  const c = cache({ staleMs: 100, now: () => now });
  let failing = false;
  const load = () => (failing ? Promise.reject(new Error('down')) : Promise.resolve('good'));
  await c.read('article:1', load, onArticle('1'));
  c.apply(changeOf('1'));
  failing = true;
  now = 100;
  assert.deepEqual(await c.read('article:1', load, onArticle('1')), { value: 'good', fresh: false });
  now = 101;
  await assert.rejects(c.read('article:1', load, onArticle('1')), ContentUnavailable);
  failing = false;
  assert.deepEqual(await c.read('article:1', load, onArticle('1')), { value: 'good', fresh: true });
});

test('"everything changed" makes every kept answer stale; a draft saved drops nothing', async () => {
  const c = cache();
  await c.read('article:1', () => Promise.resolve('a'), onArticle('1'));
  const version = c.version;
  c.apply({ kind: 'article', id: '9', now: { section: 'news', tags: [], status: 'draft' }, was: { section: 'news', tags: [], status: 'draft' } });
  assert.equal(c.version, version);
  assert.deepEqual(c.snapshot(), { fresh: ['article:1'], stale: [] });
  c.apply({ kind: 'everything' });
  assert.ok(c.version > version);
  assert.deepEqual(c.snapshot(), { fresh: [], stale: ['article:1'] });
});

test("changes come in through the store's feed, which the cache asks to catch up before every read", async () => {
  const feed = new ChangeHub(() => pending.splice(0).forEach((change) => feed.emit(change)));
  const pending: ContentChange[] = [];
  const c = cache({ changes: feed });
  let value = 'before';
  const load = () => Promise.resolve(value);
  assert.equal(await c.get('article:1', load, onArticle('1')), 'before');
  value = 'after';
  pending.push(changeOf('1'));
  assert.equal(await c.get('article:1', load, onArticle('1')), 'after', 'the read itself brought the feed up to date');
  c.close();
  pending.push(changeOf('1'));
  value = 'unheard';
  feed.poll();
  assert.deepEqual(c.snapshot(), { fresh: [], stale: [] }, 'closed: nothing kept, nothing heard');
});

test("the worker's counters: one store read per statement, one per kept answer read again after a change, and what was counted before the metrics existed", async () => {
  const c = cache();
  await c.read('article:1', () => Promise.resolve('one'), onArticle('1'));
  await c.readMany(
    ['article:2', 'article:3'],
    (keys) => Promise.resolve(keys.map((key) => `value of ${key}`)),
    (_, key) => ({ article: key.slice('article:'.length) }),
  );
  const counts = { contentStoreReads: 5, contentRebuilt: 7, contentPreviousServed: 1 };
  c.countInto(counts);
  assert.deepEqual(
    counts,
    { contentStoreReads: 7, contentRebuilt: 7, contentPreviousServed: 1 },
    'two statements so far (three keys), nothing read again, added to what was there',
  );
  c.apply(changeOf('1'));
  assert.equal(await c.get('article:1', () => Promise.resolve('one, corrected'), onArticle('1')), 'one, corrected');
  assert.deepEqual(counts, { contentStoreReads: 8, contentRebuilt: 8, contentPreviousServed: 1 }, 'the change cost one read of what it dropped');
  assert.equal(await c.get('article:2', () => Promise.resolve('unused'), onArticle('2')), 'value of article:2');
  assert.deepEqual(counts, { contentStoreReads: 8, contentRebuilt: 8, contentPreviousServed: 1 }, 'what the change did not touch costs nothing');
  assert.equal(c.stats().loads, 8);
});

test('a memo is handed out while it says it was worked out from the reads kept now; once one is read again, update is handed the memo before, and compute runs where update cannot', async () => {
  const c = cache();
  const onTag = (): Dependency => ({ list: 'tag:x', from: null });
  const push = (id: string): ContentChange => ({ kind: 'article', id, now: { section: 'news', tags: ['x'], status: 'published' }, was: null });
  await c.get('article:1', async () => 'one', onArticle('1'));
  await c.get('head:tag:x', async () => ['1', '2'], onTag);
  let computed = 0;
  const handed: unknown[] = [];
  // As a ranking does, the memo names the read it was worked out from (here, the list itself).
  type Memo = { n: number; from: unknown };
  const memo = (updated?: number) => {
    const list = c.fresh<string[]>('head:tag:x');
    return c.memo<Memo>(
      'article:1',
      (kept) => kept.from === list,
      () => ({ n: (computed += 1), from: list }),
      (previous) => {
        handed.push(previous);
        return updated === undefined ? undefined : { n: updated, from: list };
      },
    );
  };
  const first = memo();
  assert.equal(first.n, 1);
  assert.equal(memo(99), first, 'worked out from the read kept now: the same object, neither worked out nor updated');
  assert.deepEqual(handed, [], 'no memo before it: update not asked');
  assert.deepEqual([c.stats().memoComputed, c.stats().memoUpdated], [1, 0]);

  c.apply(push('3'));
  assert.deepEqual(c.previous('head:tag:x'), ['1', '2'], 'the read before is there to compare with while stale');
  assert.equal(c.fresh('head:tag:x'), undefined);
  await c.get('head:tag:x', async () => ['3', '1', '2'], onTag);
  const second = memo(10);
  assert.equal(second.n, 10, "update's answer");
  assert.equal(handed[0], first, 'update is handed the memo before');
  assert.equal(memo(), second, 'then kept');
  assert.deepEqual([c.stats().memoComputed, c.stats().memoUpdated], [1, 1]);

  c.apply(push('4'));
  await c.get('head:tag:x', async () => ['4', '3', '1', '2'], onTag);
  assert.equal(memo(undefined).n, 2, 'update could not: worked out again');
  assert.equal(handed[1], second);
  assert.deepEqual([c.stats().memoComputed, c.stats().memoUpdated], [2, 1]);

  c.apply(push('1'));
  await c.get('article:1', async () => 'one, corrected', onArticle('1'));
  await c.get('head:tag:x', async () => ['4', '3', '1', '2'], onTag);
  assert.equal(memo(50).n, 3, 'the entry read again: no memo before it, worked out afresh');
  assert.equal(handed.length, 2, 'update not asked without a memo');
});

test("a memo's numbers kept on an entry come from the cache's room and go back to it when the entry goes or the memo is worked out again; one not kept has its own", async () => {
  const c = cache();
  const chunks = new Set<ArrayBufferLike>();
  const numbers = (key: string, length: number, current = false) =>
    c.memo<Int32Array>(
      key,
      () => current,
      (room) => {
        const made = room(length);
        made[0] = length;
        return made;
      },
    );
  await c.get('article:1', async () => 'one', onArticle('1'));
  await c.get('article:2', async () => 'two', onArticle('2'));
  const first = numbers('article:1', 40);
  const second = numbers('article:2', 40);
  chunks.add(first.buffer).add(second.buffer);
  assert.equal(chunks.size, 1, 'views of one chunk, not an array each');
  assert.deepEqual(c.memoNumbers(), { made: 2, inUse: 2 });

  const loose = numbers('article:9', 40);
  assert.notEqual(loose.buffer, first.buffer, "no entry keeps it: its own numbers, never the room's");
  assert.deepEqual(c.memoNumbers(), { made: 2, inUse: 2 });

  // A change drops article 1's entry: its memo's view goes back and is the next one handed out, zeroed.
  c.apply(changeOf('1'));
  await c.get('article:1', async () => 'one, corrected', onArticle('1'));
  assert.deepEqual(c.memoNumbers(), { made: 2, inUse: 1 });
  const again = numbers('article:1', 40);
  assert.equal(again.buffer, first.buffer);
  assert.equal(again.byteOffset, first.byteOffset, 'the view given back, handed out again');
  assert.equal(again[0], 40, 'written afresh by compute');
  assert.deepEqual(c.memoNumbers(), { made: 2, inUse: 2 });

  // Worked out again over the memo before (not current, no update): the one before goes back first.
  numbers('article:2', 40);
  assert.deepEqual(c.memoNumbers(), { made: 2, inUse: 2 }, 'the view before reused, none made');
  numbers('article:2', 44);
  assert.deepEqual(c.memoNumbers(), { made: 3, inUse: 2 }, 'another length: a view made, the one of 40 given back');
  c.clear();
  assert.deepEqual(c.memoNumbers(), { made: 3, inUse: 0 }, 'every entry gone: every view back');
});

test('what follows the changes (the last good copies) hears each public one from the cache, after its entries are dropped; a draft saved tells it nothing', async () => {
  const feed = new ChangeHub();
  const c = cache({ changes: feed });
  await c.read('article:1', () => Promise.resolve('a'), onArticle('1'));
  const heard: { change: ContentChange; keptThen: string[] }[] = [];
  const stop = c.follow((change) => heard.push({ change, keptThen: c.snapshot().fresh }));
  feed.emit({ kind: 'article', id: '9', now: { section: 'news', tags: [], status: 'draft' }, was: null });
  assert.equal(heard.length, 0, 'a draft is no change a reader can see');
  feed.emit(changeOf('1'));
  assert.equal(heard.length, 1);
  assert.deepEqual(heard[0]!.keptThen, [], 'told after article:1 was dropped');
  feed.emit({ kind: 'everything' });
  assert.equal(heard.at(-1)!.change.kind, 'everything');
  stop();
  feed.emit(changeOf('1'));
  assert.equal(heard.length, 2, 'stopped');
  c.close();
});

const onList = (list: string) => (): Dependency => ({ list, from: null });

/**
 * Whether a reader who comes while `key`'s read is in flight (begun by a first reader, held open
 * here) waits on that read rather than being handed the list as it was.
 */
async function meanwhileWaits(c: ContentCache, key: string): Promise<boolean> {
  const held = deferred<string[]>();
  const first = c.read(key, () => held.promise, onList('all'));
  const meanwhile = c.read(key, () => Promise.reject(new Error('not asked')), onList('all'));
  const waited = (await settledNow(meanwhile)) === 'still waiting';
  held.resolve(['new']);
  await Promise.all([first, meanwhile]);
  return waited;
}

/** What `promise` settles to within a turn of the event loop, or 'still waiting'. */
function settledNow<T>(promise: Promise<T>): Promise<T | 'still waiting'> {
  return Promise.race([promise, new Promise<'still waiting'>((resolve) => setImmediate(() => resolve('still waiting')))]);
}

test('a list a change dropped: the first reader waits for its read, a reader who comes meanwhile gets the version before (not fresh), and the mark moves with each', async () => {
  const c = cache();
  await c.read('head:all', () => Promise.resolve(['2', '1']), onList('all'));
  const beforeChange = c.mark;
  c.apply(changeOf('3'));
  assert.equal(c.mark, beforeChange + 1, 'a change moves the mark');
  const again = deferred<string[]>();
  let loads = 0;
  const load = () => (loads++, again.promise);
  const first = c.read('head:all', load, onList('all'));
  const meanwhile = await settledNow(c.read('head:all', load, onList('all')));
  assert.deepEqual(meanwhile, { value: ['2', '1'], fresh: false }, 'handed the list before the change at once, marked not fresh');
  const many = await settledNow(
    c.readMany(
      ['head:all'],
      () => Promise.reject(new Error('not asked')),
      () => ({ list: 'all', from: null }),
    ),
  );
  assert.deepEqual(many, [{ value: ['2', '1'], fresh: false }], 'readMany hands it out the same way');
  assert.equal(c.mark, beforeChange + 3, 'and so does each hand-out');
  assert.equal(c.stats().previousServed, 2);
  again.resolve(['3', '2', '1']);
  assert.deepEqual(await first, { value: ['3', '2', '1'], fresh: true }, 'the first reader waited for the read');
  const kept = await c.read('head:all', load, onList('all'));
  assert.deepEqual({ value: kept?.value, fresh: kept?.fresh }, { value: ['3', '2', '1'], fresh: true });
  assert.equal(loads, 1, 'one read');
  assert.equal(c.mark, beforeChange + 3, 'the read itself moves nothing');
});

test('a list that only had stories put into it says which (enteredSince); any other change, or one that came while it was read, and it says nothing', async () => {
  const c = cache();
  const enters = (id: string, tags: string[] = ['x']): ContentChange => ({
    kind: 'article',
    id,
    now: { section: 'news', tags, status: 'published' },
    was: null,
  });
  const head = (value: string) => () => Promise.resolve(value);
  const onTag = (): Dependency => ({ list: 'tag:x', from: null });
  await c.read('head:tag:x', head('v1'), onTag);
  assert.equal(c.enteredSince('head:tag:x'), undefined, 'fresh: nothing to say');
  c.apply(enters('201'));
  c.apply(enters('202', ['x', 'y']));
  assert.deepEqual(c.enteredSince('head:tag:x'), ['201', '202'], 'two stories put into the list');
  c.apply(enters('203', ['y']));
  assert.deepEqual(c.enteredSince('head:tag:x'), ['201', '202'], 'a story of another list does not reach it');
  c.apply({
    kind: 'article',
    id: '201',
    now: { section: 'news', tags: ['x'], status: 'published' },
    was: { section: 'news', tags: ['x'], status: 'published' },
  });
  assert.equal(c.enteredSince('head:tag:x'), undefined, 'an edit of a listed story: read it whole');
  await c.read('head:tag:x', head('v2'), onTag);
  c.apply({
    kind: 'article',
    id: '202',
    now: { section: 'news', tags: ['y'], status: 'published' },
    was: { section: 'news', tags: ['x', 'y'], status: 'published' },
  });
  assert.equal(c.enteredSince('head:tag:x'), undefined, 'a story that left it');
  // A story put in while the list was being read: what the read saw of it is unknown, so a later
  // story put in cannot make it "the read before with stories in front".
  const slow = deferred<string>();
  const reading = c.read('head:tag:x', () => slow.promise, onTag);
  c.apply(enters('204'));
  slow.resolve('v3');
  assert.equal((await reading)?.fresh, false);
  c.apply(enters('205'));
  assert.equal(c.enteredSince('head:tag:x'), undefined, 'kept while a change came: read it whole');
  await c.read('head:tag:x', head('v4'), onTag);
  c.apply({ kind: 'everything' });
  assert.equal(c.enteredSince('head:tag:x'), undefined, 'everything changed');
});

test('an article a change dropped is never handed out as it was: everyone waits for its read', async () => {
  const c = cache();
  await c.read('article:1', () => Promise.resolve('published'), onArticle('1'));
  c.apply(changeOf('1'));
  const again = deferred<string | null>();
  const first = c.read('article:1', () => again.promise, onArticle('1'));
  let settled = false;
  const meanwhile = c.read('article:1', () => Promise.reject(new Error('not asked')), onArticle('1')).then((kept) => ((settled = true), kept));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, false, 'the reader who came meanwhile waits');
  again.resolve(null);
  assert.equal(await first, null, 'unpublished: nothing');
  assert.equal(await meanwhile, null, 'nothing for the one who waited either');
  assert.equal(c.stats().previousServed, 0);
});

test('a list kept longer than staleMs, or dropped by time rather than a change, is not handed out while read again', async () => {
  let now = 0;
  const c = cache({ staleMs: 100, now: () => now });
  await c.read('head:all', () => Promise.resolve(['1']), onList('all'));
  c.apply(changeOf('2'));
  now = 101;
  assert.equal(await meanwhileWaits(c, 'head:all'), true, 'too old to stand in: the reader waits');
  const timed = cache({ freshMs: 10, now: () => now });
  await timed.read('most-read', () => Promise.resolve(['1']), onList('all'));
  now += 11;
  assert.equal(await meanwhileWaits(timed, 'most-read'), true, 'expired by time: the reader waits');
  assert.equal(c.stats().previousServed + timed.stats().previousServed, 0);
});

test('a page put together from a list handed out as it was before a change is not kept, though the list is current by then', async () => {
  const c = cache();
  await c.read('head:all', () => Promise.resolve(['1']), onList('all'));
  c.apply(changeOf('2'));
  const again = deferred<string[]>();
  const first = c.read('head:all', () => again.promise, onList('all'));
  const reads = c.startPage();
  const page = c.noting(reads);
  assert.deepEqual(await settledNow(page.get('head:all', () => Promise.reject(new Error('not asked')), onList('all'))), ['1']);
  again.resolve(['2', '1']);
  await first;
  assert.equal(reads.vouched, false);
  assert.equal(c.keepPage('page:/', { html: 'old list' }, reads, 60_000), false, 'not kept');
  const later = c.startPage();
  assert.deepEqual(await c.noting(later).get('head:all', () => Promise.reject(new Error('not asked')), onList('all')), ['2', '1']);
  assert.equal(c.keepPage('page:/', { html: 'new list' }, later, 60_000), true, 'a page from the read kept');
});

test('an answer is current until its age reaches the bound, on a clock that reads fractions; a bound of 0 keeps none current, none keeps it until a change', async () => {
  let now = 1_000.75;
  const reads = { timed: 0, never: 0, feed: 0 };
  const timed = cache({ freshMs: 10, now: () => now });
  const never = cache({ freshMs: 0, now: () => now });
  const feed = cache({ now: () => now });
  const readAll = () =>
    Promise.all([
      timed.get(
        'most-read',
        () => Promise.resolve(`timed ${(reads.timed += 1)}`),
        () => null,
      ),
      never.get(
        'most-read',
        () => Promise.resolve(`never ${(reads.never += 1)}`),
        () => null,
      ),
      feed.get(
        'article:1',
        () => Promise.resolve(`feed ${(reads.feed += 1)}`),
        () => ({ article: '1' }),
      ),
    ]);
  await readAll();
  now += 9.5;
  await readAll();
  assert.deepEqual(reads, { timed: 1, never: 2, feed: 1 }, '9.5 ms later: within 10 ms; a bound of 0 read again');
  now += 1;
  await readAll();
  assert.deepEqual(reads, { timed: 2, never: 3, feed: 1 }, '10.5 ms after it was read: read again');
  now += 1e9;
  await readAll();
  assert.equal(reads.feed, 1, 'no bound: only a change drops it');
  feed.apply(changeOf('1'));
  await readAll();
  assert.equal(reads.feed, 2);
});
