import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChangeHub, everythingChanged } from './changes';
import { PublishedIds } from './published-ids';

const state = (status: 'published' | 'draft') => ({ section: 'news' as const, tags: [], status });

test('published ids follow the change feed: published, unpublished and removed articles, without reading the list again', async () => {
  const hub = new ChangeHub();
  let reads = 0;
  const ids = new PublishedIds(async () => {
    reads += 1;
    return ['a', 'b'];
  }, hub);
  assert.equal(ids.ready, false);
  await ids.reload();
  assert.ok(ids.ready && ids.has('a') && ids.has('b'));
  hub.emit({ kind: 'article', id: 'c', now: state('published'), was: null });
  hub.emit({ kind: 'article', id: 'a', now: state('draft'), was: state('published') });
  hub.emit({ kind: 'article', id: 'b', now: null, was: state('published') });
  hub.emit({ kind: 'article', id: 'd', now: state('draft'), was: null });
  assert.deepEqual(
    ['a', 'b', 'c', 'd'].filter((id) => ids.has(id)),
    ['c'],
  );
  // Heard twice (a PostgreSQL writer hears its own write, then its NOTIFY): the same.
  hub.emit({ kind: 'article', id: 'c', now: state('published'), was: null });
  assert.equal(ids.size, 1);
  assert.equal(reads, 2, 'the list was read at start and by the explicit reload, never per change');
  ids.close();
});

test('"everything changed" reads the whole list again; a change heard during a read is not lost', async () => {
  const hub = new ChangeHub();
  let list = ['a'];
  let release!: () => void;
  let hold = false;
  const ids = new PublishedIds(async () => {
    const snapshot = [...list];
    if (hold) await new Promise<void>((resolve) => (release = resolve));
    return snapshot;
  }, hub);
  await ids.reload();
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
  ids.close();
});

test('a failed read is tried again, and until one succeeds nothing is taken on trust', async () => {
  const hub = new ChangeHub();
  let fail = true;
  const ids = new PublishedIds(async () => {
    if (fail) throw new Error('the store is down');
    return ['a'];
  }, hub);
  await ids.reload();
  assert.equal(ids.ready, false);
  assert.equal(ids.has('a'), false);
  fail = false;
  await ids.reload();
  assert.ok(ids.ready && ids.has('a'));
  ids.close();
});
