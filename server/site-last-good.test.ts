// How a worker's last good copies follow the content cache (server/site.ts's lastGoodWriter, with
// a real ContentCache): the writer's generation is the cache's mark, which a change moves, and so
// does a list handed to a render as it was while it is read again, so no page rendered meanwhile
// is copied (the rule at the top of server/content/cache.ts).
import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import type { Dependency } from './content/cache';
import { testCache } from '../test/content-cache';
import { WorkerMetrics } from './metrics/worker-metrics';
import { lastGoodWriter } from './site';

test("the writer's generation moves with every change and every list handed out as it was while read again; the first readers' reads move nothing", async () => {
  const cache = testCache();
  const lastGood = lastGoodWriter({ lastGoodDir: os.tmpdir(), lastGoodSeconds: 600 }, cache, new WorkerMetrics());
  assert.ok(lastGood, 'on with a directory, an age bound and a change feed');
  const { writer } = lastGood;
  const onAll = (): Dependency => ({ list: 'all', from: null });
  await cache.read('head:all', () => Promise.resolve(['1']), onAll);
  await cache.read(
    'article:1',
    () => Promise.resolve('one'),
    () => ({ article: '1' }),
  );

  const beforeChange = writer.generation;
  cache.apply({ kind: 'article', id: '1', was: { section: 'news', tags: [], status: 'published' }, now: { section: 'news', tags: [], status: 'published' } });
  assert.equal(writer.generation, beforeChange + 1, 'a change moves it');

  const rendering = writer.generation;
  let answer!: (value: string[]) => void;
  const first = cache.read('head:all', () => new Promise<string[]>((resolve) => (answer = resolve)), onAll);
  const articleFirst = cache.read(
    'article:1',
    () => Promise.resolve('one, corrected'),
    () => ({ article: '1' }),
  );
  assert.equal(writer.generation, rendering, 'the first readers wait on their reads: nothing handed out as it was');
  const meanwhile = await cache.read('head:all', () => Promise.reject(new Error('not asked')), onAll);
  assert.deepEqual(meanwhile, { value: ['1'], fresh: false });
  assert.equal(writer.generation, rendering + 1, 'a list handed out as it was moves it: what is rendered meanwhile is not copied');
  answer(['2', '1']);
  await Promise.all([first, articleFirst]);
  assert.equal(writer.generation, rendering + 1, 'the reads answering move nothing');
  lastGood.stop();
});
