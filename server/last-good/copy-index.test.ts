// The primary's index of last good copies: what a change, the age bound and the cap remove.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heapUsedAfterGc } from '../../test/heap';
import { CopyIndex, maxTagsPerPath } from './copy-index';

const cap = 1_000;

function indexOf(entries: [string, string[], number][]): CopyIndex {
  const index = new CopyIndex();
  for (const [path, tags, at] of entries) assert.deepEqual(index.add(path, tags, at, cap), []);
  return index;
}

test('a change removes exactly the copies carrying one of its tags', () => {
  const index = indexOf([
    ['/', ['front'], 1],
    ['/world', ['s:world'], 2],
    ['/world/1', ['a:1', 'a:2'], 3],
    ['/sport/3', ['a:3', 'a:4'], 4],
  ]);
  assert.deepEqual(index.purge(['#a:2', '#s:business']), ['/world/1']);
  assert.deepEqual(index.purge(['#front', '#s:world']).sort(), ['/', '/world']);
  assert.deepEqual(index.purge(['#a:2']), [], 'removed once');
  assert.deepEqual(index.purge([]), []);
  assert.equal(index.size, 1);
  assert.ok(index.has('/sport/3'));
});

test('"/*" (the feed cannot say what changed) removes every copy', () => {
  const index = indexOf([
    ['/', ['front'], 1],
    ['/world/1', ['a:1'], 2],
  ]);
  assert.deepEqual(index.purge(['/*']).sort(), ['/', '/world/1']);
  assert.equal(index.size, 0);
});

test('a path written again keeps the tags of both writes: whichever file is on disk, a change to what it shows removes it', () => {
  const index = indexOf([['/world/1', ['a:1', 'a:2'], 1]]);
  index.add('/world/1', ['a:1', 'a:3'], 2, cap);
  assert.equal(index.size, 1);
  assert.deepEqual(index.purge(['#a:2']), ['/world/1']);
  // Past the bound on a path's tags, any change removes it.
  const many = new CopyIndex();
  many.add('/', ['front'], 1, cap);
  many.add(
    '/',
    Array.from({ length: maxTagsPerPath }, (_, i) => `a:${i}`),
    2,
    cap,
  );
  assert.deepEqual(many.purge(['#s:nothing-shown']), ['/']);
});

test('the sweep removes the copies written before the bound, then the oldest past the cap', () => {
  const index = indexOf([
    ['/a', ['a:1'], 10],
    ['/b', ['a:2'], 20],
    ['/c', ['a:3'], 30],
    ['/d', ['a:4'], 40],
  ]);
  assert.deepEqual(index.sweep(25, cap), { aged: ['/a', '/b'], overCap: [] });
  assert.deepEqual(index.sweep(25, 1), { aged: [], overCap: ['/c'] });
  assert.ok(index.has('/d'));
});

test('a write past the cap removes the oldest at once; a path written again counts as new', () => {
  const index = indexOf([
    ['/a', ['a:1'], 1],
    ['/b', ['a:2'], 2],
  ]);
  assert.deepEqual(index.add('/a', ['a:1'], 3, 2), [], 'the same path: no new copy');
  assert.deepEqual(index.add('/c', ['a:3'], 4, 2), ['/b'], '/a was written again after /b');
  assert.equal(index.size, 2);
});

test("10,000 article pages' copies indexed: the heap holds each tag once, not a Set of fresh strings per path", () => {
  const id = (n: number) => `2026111020${String(n % 10_000).padStart(10, '0')}`;
  // As the IPC channel hands them over: parsed afresh from each worker's message.
  const tags = (n: number): string[] => {
    const shown = Array.from({ length: 35 }, (_, k) => `a:${id(n * 7 + (k + 1) * 131)}`);
    return JSON.parse(JSON.stringify([`a:${id(n)}`, ...shown, 's:news', 't:politics', 't:elections', 'l:all'])) as string[];
  };
  const before = heapUsedAfterGc();
  const index = new CopyIndex();
  for (let n = 0; n < 10_000; n++) index.add(`/news/${id(n)}`, tags(n), n, 20_000);
  const grewMb = (heapUsedAfterGc() - before) / 1_048_576;
  assert.equal(index.size, 10_000);
  // A Set per path of the strings as they came took 29 MB.
  assert.ok(grewMb < 12, `the index grew the heap by ${grewMb.toFixed(1)} MB for 10,000 copies`);
  // And it still finds them: a change to a story shown on a page removes that page's copy.
  assert.deepEqual(index.purge([`#a:${id(5)}`]).includes(`/news/${id(5)}`), true);
});
