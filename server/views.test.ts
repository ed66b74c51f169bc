import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viewClient, ViewCounter } from './views';

const id = (n: number) => `2026112121000${String(n).padStart(5, '0')}`;

/** A store that keeps every flush, and fails while `failing` is set. */
function recordingStore() {
  const flushes: { minute: number; counts: Map<string, number> }[] = [];
  const store = {
    failing: false,
    flushes,
    recordViews(minute: number, counts: ReadonlyMap<string, number>) {
      if (store.failing) throw new Error('the database is down');
      flushes.push({ minute, counts: new Map(counts) });
    },
  };
  return store;
}

function counter(store: ReturnType<typeof recordingStore>, now: { ms: number }, bounds: { ids?: number; clients?: number } = {}) {
  return new ViewCounter(store, {
    flushIntervalMs: 60_000,
    maxIdsPerFlush: bounds.ids ?? 100,
    maxClientsPerMinute: bounds.clients ?? 1_000,
    now: () => now.ms,
  });
}

test('views are counted in memory and reach the store only on a flush, summed per article', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 30) };
  const views = counter(store, now);
  for (let client = 0; client < 5; client += 1) assert.equal(views.record(id(1), `10.0.0.${client}`), 'counted');
  views.record(id(2), '10.0.0.1');
  assert.equal(store.flushes.length, 0, 'no write per view');
  await views.flush();
  assert.deepEqual(store.flushes, [
    {
      minute: Math.floor(now.ms / 60_000),
      counts: new Map([
        [id(1), 5],
        [id(2), 1],
      ]),
    },
  ]);
  await views.flush();
  assert.equal(store.flushes.length, 1, 'nothing counted, nothing written');
  await views.close();
});

test('burst bound: one client hammering one article counts once a minute', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now);
  for (let i = 0; i < 10_000; i += 1) views.record(id(7), '203.0.113.9');
  assert.equal(views.stats.counted, 1);
  assert.equal(views.stats.repeats, 9_999);
  // An hour of hammering, every second: sixty views.
  for (let s = 1; s < 3_600; s += 1) {
    now.ms += 1_000;
    views.record(id(7), '203.0.113.9');
  }
  await views.close();
  const total = store.flushes.reduce((sum, f) => sum + (f.counts.get(id(7)) ?? 0), 0);
  assert.equal(total, 60);
});

test('the bounds drop views rather than count them: distinct articles per flush, clients per minute', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now, { ids: 3, clients: 4 });
  for (let n = 0; n < 4; n += 1) views.record(id(n), 'a');
  assert.equal(views.stats.dropped, 1, 'a fourth article waits for the next flush');
  assert.equal(views.record(id(0), 'b'), 'counted', 'a known article still counts');
  assert.equal(views.record(id(1), 'c'), 'dropped', 'four (client, article) pairs remembered this minute: no more');
  await views.close();
  assert.deepEqual(
    store.flushes[0]?.counts,
    new Map([
      [id(0), 2],
      [id(1), 1],
      [id(2), 1],
    ]),
  );
});

test('a failed flush keeps its counts for the next one; close flushes what is left', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now);
  views.record(id(1), 'a');
  store.failing = true;
  await views.flush();
  assert.equal(views.stats.flushFailures, 1);
  views.record(id(1), 'b');
  store.failing = false;
  await views.close();
  assert.deepEqual(store.flushes, [{ minute: Math.floor(now.ms / 60_000), counts: new Map([[id(1), 2]]) }]);
});

test('the client is the X-Forwarded-For entry so many hops back, else the socket peer', () => {
  assert.equal(viewClient('127.0.0.1', '198.51.100.7, 130.176.1.1, 10.0.1.5', 3), '198.51.100.7');
  assert.equal(viewClient('127.0.0.1', '198.51.100.7, 130.176.1.1, 10.0.1.5', 1), '10.0.1.5');
  assert.equal(viewClient('127.0.0.1', '198.51.100.7, 130.176.1.1, 10.0.1.5', 0), '127.0.0.1');
  assert.equal(viewClient('127.0.0.1', undefined, 3), '127.0.0.1');
  // A shorter chain than the hops configured (a request that skipped a proxy): its first entry.
  assert.equal(viewClient('127.0.0.1', '198.51.100.7', 3), '198.51.100.7');
});
