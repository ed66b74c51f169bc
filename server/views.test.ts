import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ViewsStore } from './content/source';
import { ViewCounter, type PublishedCheck } from './views';

const id = (n: number) => `2026112121000${String(n).padStart(5, '0')}`;

/** A store that keeps every flush; while `busy` is set it writes nothing and says so. */
function recordingStore() {
  const flushes: { minute: number; counts: Map<string, number> }[] = [];
  const expired: number[] = [];
  const store: ViewsStore & { busy: boolean; failing: boolean; flushes: typeof flushes; expired: number[] } = {
    busy: false,
    failing: false,
    flushes,
    expired,
    async record(minute, counts) {
      if (store.failing) throw new Error('the database is down');
      if (store.busy) return new Map(counts);
      flushes.push({ minute, counts: new Map(counts) });
      return new Map();
    },
    async expire(minute) {
      expired.push(minute);
    },
    ranked: async () => [],
    close: () => undefined,
  };
  return store;
}

/** Articles 0–99 are published. */
const published: PublishedCheck = { ready: true, has: (candidate) => candidate >= id(0) && candidate <= id(99) };

function counter(
  store: ReturnType<typeof recordingStore>,
  now: { ms: number },
  options: { perClient?: number; clients?: number; check?: PublishedCheck } = {},
) {
  return new ViewCounter(store, options.check ?? published, {
    flushIntervalMs: 60_000,
    perClientPerMinute: options.perClient ?? 1_000,
    maxClientsPerMinute: options.clients ?? 1_000,
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
  assert.deepEqual(store.expired, [Math.floor(now.ms / 60_000)], 'old minutes are taken out once a minute, not at every flush');
  await views.close();
});

test('burst bound: one client hammering one article counts once a minute', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now, { perClient: 100_000 });
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

test('a view of anything but a published article is refused before it is kept, and cannot crowd out real ones', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now, { perClient: 1_000_000 });
  // A flood of made-up ids from many clients, then a real reader.
  for (let n = 0; n < 50_000; n += 1) assert.equal(views.record(`9${String(n).padStart(17, '0')}`, `198.51.100.${n % 250}`), 'unknown');
  assert.equal(views.record(id(3), '192.0.2.1'), 'counted');
  await views.close();
  assert.deepEqual(store.flushes, [{ minute: Math.floor(now.ms / 60_000), counts: new Map([[id(3), 1]]) }]);
  assert.equal(views.stats.unknown, 50_000);
});

test("a client's own share comes first: a flooder is refused, the readers after it are counted", async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now, { perClient: 20, clients: 1_000 });
  const outcomes = new Map<string, number>();
  for (let n = 0; n < 100_000; n += 1) {
    const outcome = views.record(id(n % 100), '203.0.113.66');
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  assert.deepEqual(Object.fromEntries(outcomes), { counted: 20, limited: 99_980 });
  for (let reader = 0; reader < 93; reader += 1) assert.equal(views.record(id(50), `192.0.2.${reader}`), 'counted');
  assert.ok(views.retryAfterS() >= 1 && views.retryAfterS() <= 60);
  // A new minute, a new share.
  now.ms += 60_000;
  assert.equal(views.record(id(99), '203.0.113.66'), 'counted');
  await views.close();
  assert.equal(store.flushes[0]?.counts.get(id(50)), 93, 'every reader counted');
});

test('the pairs remembered per minute are bounded: past it a view is dropped, never counted', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now, { clients: 4 });
  for (let n = 0; n < 4; n += 1) assert.equal(views.record(id(n), 'a'), 'counted');
  assert.equal(views.record(id(5), 'a'), 'dropped');
  assert.equal(views.record(id(0), 'b'), 'dropped');
  for (const client of ['c', 'd']) views.record(id(0), client);
  assert.equal(views.record(id(0), 'e'), 'limited', 'a fifth client this minute is refused');
  await views.close();
  assert.equal(views.stats.dropped, 4);
  assert.deepEqual(store.flushes[0]?.counts, new Map([0, 1, 2, 3].map((n) => [id(n), 1])));
});

test('before the published ids are read, views are dropped rather than taken on trust', async () => {
  const store = recordingStore();
  const views = counter(store, { ms: 0 }, { check: { ready: false, has: () => true } });
  assert.equal(views.record(id(1), 'a'), 'dropped');
  await views.close();
  assert.equal(store.flushes.length, 0);
});

test('a flush the store could not take (busy, or failing) keeps its counts for the next one', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now);
  views.record(id(1), 'a');
  store.busy = true;
  await views.flush();
  assert.equal(views.stats.flushFailures, 1);
  store.busy = false;
  store.failing = true;
  views.record(id(1), 'b');
  await views.flush();
  assert.equal(views.stats.flushFailures, 2);
  store.failing = false;
  views.record(id(1), 'c');
  await views.close();
  assert.deepEqual(store.flushes, [{ minute: Math.floor(now.ms / 60_000), counts: new Map([[id(1), 3]]) }]);
});

// Regression: at shutdown every worker flushes at once, and a store that found another worker's
// flush holding the file handed the counts back for a next flush that never came.
test('the last flush keeps trying a store busy with another worker for a moment, so nothing is left unwritten', async () => {
  const store = recordingStore();
  const now = { ms: Date.UTC(2026, 10, 22, 18, 0, 0) };
  const views = counter(store, now);
  views.record(id(1), 'a');
  store.busy = true;
  // Busy for a moment, then free: the case under test.
  setTimeout(() => (store.busy = false), 100);
  await views.close();
  assert.deepEqual(store.flushes, [{ minute: Math.floor(now.ms / 60_000), counts: new Map([[id(1), 1]]) }]);
});
