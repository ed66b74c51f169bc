// The content cache's bound holds in the heap it really takes: a worker that reads every one of
// 10,000 seeded articles three times over (pages and their embedded state, as requests do) grows
// its V8 heap by no more than the bound allows, and the cache's own count of its bytes is close
// to what the heap says. Over a real SQLite store, in this process, with the collector run by
// hand so that what is measured is what is kept, not garbage waiting.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import Database from 'better-sqlite3';
import { seedTempStore, openSqliteContent } from '../../test/server';
import { stateJson } from '../state-json';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

function heapUsed(): number {
  // Twice: what the first frees can leave more to free (weak maps' values among them).
  collect();
  collect();
  return v8.getHeapStatistics().used_heap_size;
}

const MB = 1024 * 1024;
let dir = '';
let dbPath = '';
let ids: string[] = [];

before(async () => {
  ({ dir, dbPath } = await seedTempStore(10_000, 0));
  const db = new Database(dbPath, { readonly: true });
  ids = db.prepare<[], string>("SELECT id FROM articles WHERE status = 'published'").pluck().all();
  db.close();
});

after(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(dir, { recursive: true, force: true });
});

/** Reads every article as pages do: its page, and the page's embedded state. */
async function pass(content: ReturnType<typeof openSqliteContent>, some = ids.length): Promise<void> {
  for (const id of ids.slice(0, some)) stateJson(await content.reader.articleWithTeasers(id));
}

/** Three passes over every article on a fresh worker's content; the heap's growth and the cache's count of its bytes. */
async function threePasses(cacheMb: number): Promise<{ grewMb: number; countedMb: number; entries: number }> {
  // The code paths warm first, on content of their own, let go before the baseline.
  const warm = openSqliteContent(dbPath);
  await pass(warm, 500);
  await warm.close();
  const baseline = heapUsed();
  const content = openSqliteContent(dbPath, { CONTENT_CACHE_MB: String(cacheMb), CONTENT_CACHE_ENTRIES: '20000' });
  try {
    for (let n = 0; n < 3; n++) await pass(content);
    const grew = heapUsed() - baseline;
    const { bytes, entries } = content.cache.stats();
    return { grewMb: grew / MB, countedMb: bytes / MB, entries };
  } finally {
    await content.close();
  }
}

test('a bound smaller than the articles: the heap grows by no more than the bound, whatever is read', async () => {
  const { grewMb, countedMb, entries } = await threePasses(8);
  assert.ok(countedMb <= 8, `the cache counts ${countedMb.toFixed(1)} MB kept, over its 8 MB`);
  assert.ok(entries < ids.length, 'the bound did evict');
  // Beside the entries: the dependency index, lru-cache's slots, a prepared statement or two.
  assert.ok(grewMb <= 8 * 1.25 + 2, `the heap grew by ${grewMb.toFixed(1)} MB after three passes, over a bound of 8 MB`);
});

test("the default bound holds every article, and the cache's count of its bytes is the heap they take, within a quarter", async () => {
  const { grewMb, countedMb, entries } = await threePasses(64);
  assert.ok(entries >= ids.length, `every article kept (${entries} entries)`);
  assert.ok(countedMb <= 64, `${countedMb.toFixed(1)} MB counted`);
  assert.ok(grewMb <= 64, `the heap grew by ${grewMb.toFixed(1)} MB, over the 64 MB bound`);
  const ratio = grewMb / countedMb;
  assert.ok(ratio > 0.8 && ratio < 1.25, `counted ${countedMb.toFixed(1)} MB, the heap grew by ${grewMb.toFixed(1)} MB (${ratio.toFixed(2)}x)`);
});
