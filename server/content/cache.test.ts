// The content cache's own rules, with loads that are plain functions so a test can hold one open
// or make it fail on cue (the stores' tests run the same cache over real SQLite and PostgreSQL:
// test/invalidation-contract.ts): reads that race a change, several keys read at once, put-
// together answers and the entries they came from, stand-ins only while the store fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContentCache, type Dependency } from './cache';
import type { ContentChange } from './changes';
import { ContentUnavailable } from './failure';

function cache(overrides: Partial<ConstructorParameters<typeof ContentCache>[0]> = {}): ContentCache {
  return new ContentCache({
    name: 'test store',
    isOutage: () => true,
    maxEntries: 100,
    maxBytes: 1_000_000,
    staleMs: 60_000,
    freshMs: Infinity,
    backoffMs: 0,
    ...overrides,
  });
}

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

test('a put-together answer is kept until an entry it came from changes or leaves the cache', async () => {
  const c = cache({ maxEntries: 3 });
  let computed = 0;
  const page = () =>
    c.derive('page:1', async (inputs) => {
      computed += 1;
      const [article, list] = await Promise.all([
        inputs.get('article:1', () => Promise.resolve('the article'), onArticle('1')),
        inputs.get(
          'head:all',
          () => Promise.resolve(['1', '2']),
          (): Dependency => ({ list: 'all', from: null }),
        ),
      ]);
      return { article, list };
    });
  await page();
  await page();
  assert.equal(computed, 1);
  c.apply(changeOf('2'));
  await page();
  assert.equal(computed, 2, 'a change in a list it read drops it');
  // Two other entries: the least recently used goes, and the page with it unless it was read since.
  await c.read(
    'x',
    () => Promise.resolve('x'),
    () => null,
  );
  await page();
  await c.read(
    'y',
    () => Promise.resolve('y'),
    () => null,
  );
  assert.equal(computed, 2, 'reading the page kept its entries recent');
  await c.read(
    'z',
    () => Promise.resolve('z'),
    () => null,
  );
  await c.read(
    'w',
    () => Promise.resolve('w'),
    () => null,
  );
  await page();
  assert.equal(computed, 3, 'its entries were evicted, so was it');
});

test('while the store fails: the kept answer within staleMs, then ContentUnavailable; nothing put together from a stand-in is kept', async () => {
  let now = 0;
  const c = cache({ staleMs: 100, now: () => now });
  let failing = false;
  const load = () => (failing ? Promise.reject(new Error('down')) : Promise.resolve('good'));
  await c.read('article:1', load, onArticle('1'));
  c.apply(changeOf('1'));
  failing = true;
  now = 100;
  assert.deepEqual(await c.read('article:1', load, onArticle('1')), { value: 'good', fresh: false });
  let computed = 0;
  const page = () =>
    c.derive('page:1', async (inputs) => {
      computed += 1;
      return inputs.get('article:1', load, onArticle('1'));
    });
  await page();
  await page();
  assert.equal(computed, 2, 'not kept: the next read asks the store again');
  now = 101;
  await assert.rejects(c.read('article:1', load, onArticle('1')), ContentUnavailable);
  failing = false;
  assert.equal(await page(), 'good');
  await page();
  assert.equal(computed, 3, 'kept again once the store answers');
});

test('"everything changed" makes every kept answer stale and drops every put-together one; a draft saved drops nothing', async () => {
  const c = cache();
  await c.read('article:1', () => Promise.resolve('a'), onArticle('1'));
  await c.derive('page:1', (inputs) => inputs.get('article:1', () => Promise.resolve('a'), onArticle('1')));
  const version = c.version;
  c.apply({ kind: 'article', id: '9', now: { section: 'news', tags: [], status: 'draft' }, was: { section: 'news', tags: [], status: 'draft' } });
  assert.equal(c.version, version);
  assert.deepEqual(c.snapshot(), { fresh: ['article:1'], stale: [], derived: ['page:1'], changed: [] });
  c.apply({ kind: 'everything' });
  assert.ok(c.version > version);
  assert.deepEqual(c.snapshot(), { fresh: [], stale: ['article:1'], derived: [], changed: [] });
});

test('a put-together answer whose input changed is put together again from what it was and what its inputs held; a read again is handed what was kept', async () => {
  const c = cache();
  let list = ['2', '1'];
  const loads: (string[] | null)[] = [];
  const seen: { value: unknown; list: unknown }[] = [];
  const page = () =>
    c.derive<{ list: string[] }>('page:1', async (inputs, previous) => {
      seen.push({ value: previous?.value ?? null, list: previous?.input('head:all') ?? null });
      const now = await inputs.get(
        'head:all',
        (kept: string[] | null) => {
          loads.push(kept);
          return Promise.resolve([...list]);
        },
        (): Dependency => ({ list: 'all', from: null }),
      );
      // Left as it was when the list it shows did not change.
      if (previous !== null && JSON.stringify(previous.value.list) === JSON.stringify(now)) return previous.value;
      return { list: now! };
    });
  const first = await page();
  assert.deepEqual(seen, [{ value: null, list: null }]);
  c.apply(changeOf('1'));
  assert.deepEqual(c.snapshot().changed, ['page:1']);
  const second = await page();
  assert.equal(second, first, 'unchanged: the same answer');
  assert.deepEqual(seen[1], { value: first, list: ['2', '1'] });
  assert.deepEqual(loads, [null, ['2', '1']], 'the list read again was handed what was kept');
  assert.deepEqual(c.snapshot(), { fresh: ['head:all'], stale: [], derived: ['page:1'], changed: [] });
  list = ['3', '2', '1'];
  c.apply(changeOf('3'));
  const third = await page();
  assert.deepEqual(third, { list: ['3', '2', '1'] });
  assert.equal(seen[2]!.value, first);
  assert.equal(await page(), third, 'current again: one lookup');
  assert.equal(seen.length, 3);
});

test('put together again without reading: when every input is kept and fresh, `again` runs instead of the full computation; else the full one', async () => {
  const c = cache();
  let list = ['2', '1'];
  let computed = 0;
  const againSaw: { value: unknown; before: unknown; now: unknown }[] = [];
  const head = (inputs: Parameters<Parameters<ContentCache['derive']>[1]>[0]) =>
    inputs.get(
      'head:all',
      () => Promise.resolve([...list]),
      (): Dependency => ({ list: 'all', from: null }),
    );
  const page = () =>
    c.derive<{ list: string[] }>(
      'page:1',
      async (inputs) => {
        computed += 1;
        return { list: (await head(inputs))! };
      },
      (previous, now) => {
        againSaw.push({ value: previous.value, before: previous.input('head:all'), now: now('head:all') });
        const shown = now<string[]>('head:all')!;
        return shown.length > 3 ? undefined : { list: shown };
      },
    );
  // The other reader of the list: a page made from it too, read first after each change.
  const other = () => c.derive('page:2', async (inputs) => ({ list: await head(inputs) }));
  const first = await page();
  await other();
  assert.equal(computed, 1);

  list = ['3', '2', '1'];
  c.apply(changeOf('3'));
  await other(); // reads the list again
  const second = await page();
  assert.equal(computed, 1, 'the full computation did not run');
  assert.deepEqual(second, { list: ['3', '2', '1'] });
  assert.deepEqual(againSaw, [{ value: first, before: ['2', '1'], now: ['3', '2', '1'] }]);
  assert.ok(Object.isFrozen(second), 'frozen like every answer');
  assert.equal(await page(), second, 'current again: one lookup');
  assert.deepEqual(c.snapshot().changed, []);

  // The list not read again yet: the full computation reads it.
  list = ['4', '3', '2', '1'];
  c.apply(changeOf('4'));
  assert.deepEqual(await page(), { list: ['4', '3', '2', '1'] });
  assert.equal(computed, 2);
  assert.equal(againSaw.length, 1, 'not asked while an input was stale');

  // `again` declines (undefined): the full computation, with the list kept.
  list = ['5', '4', '3', '2', '1'];
  c.apply(changeOf('5'));
  await other();
  assert.deepEqual(await page(), { list: ['5', '4', '3', '2', '1'] });
  assert.equal(againSaw.length, 2);
  assert.equal(computed, 3);
});

test("the worker's counters: one store read per statement, one rebuild per answer put together again, and what was counted before the metrics existed", async () => {
  const c = cache();
  await c.read('article:1', () => Promise.resolve('one'), onArticle('1'));
  await c.readMany(
    ['article:2', 'article:3'],
    (keys) => Promise.resolve(keys.map((key) => `value of ${key}`)),
    (_, key) => ({ article: key.slice('article:'.length) }),
  );
  const page = () => c.derive('page:1', async (inputs) => `page of ${await inputs.get('article:1', () => Promise.resolve('one, corrected'), onArticle('1'))}`);
  assert.equal(await page(), 'page of one');
  assert.equal(await page(), 'page of one', 'kept: not put together again');
  const counts = { contentStoreReads: 5, contentRebuilt: 7 };
  c.countInto(counts);
  assert.deepEqual(
    counts,
    { contentStoreReads: 7, contentRebuilt: 7 },
    'two statements so far (three keys), nothing put together again, added to what was there',
  );
  c.apply(changeOf('1'));
  assert.equal(await page(), 'page of one, corrected');
  assert.deepEqual(counts, { contentStoreReads: 8, contentRebuilt: 8 }, 'the change cost one read and one page put together again');
  c.apply(changeOf('2'));
  assert.equal(await page(), 'page of one, corrected');
  assert.deepEqual(counts, { contentStoreReads: 8, contentRebuilt: 8 }, 'a change the page does not show costs it nothing');
  assert.equal(c.stats().loads, 8);
});
