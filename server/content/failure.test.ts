// What a store's failure becomes outside the content cache (writes, sign-ups, drafts): the
// short 503's ContentUnavailable, logged by the one StoreFailures the store's cached reads share,
// so an outage that fails reads and writes at once still logs one line a second.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { log } from '../log';
import { ContentCache } from './cache';
import { ContentUnavailable, StoreFailures } from './failure';

test('a write that fails is ContentUnavailable, its cause kept, logged as "<store> failed"', async (t) => {
  const warn = t.mock.method(log, 'warn', () => undefined);
  const failures = new StoreFailures('test store', () => 0);
  const cause = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
  const failed = await failures
    .answer('upsert', () => {
      throw cause;
    })
    .catch((error: unknown) => error);
  assert.ok(failed instanceof ContentUnavailable);
  assert.equal(failed.message, 'test store: upsert failed');
  assert.equal(failed.cause, cause);
  assert.equal(warn.mock.callCount(), 1);
  const [message, fields] = warn.mock.calls[0]!.arguments as [string, Record<string, unknown>];
  assert.equal(message, 'test store failed');
  assert.deepEqual({ key: fields.key, served: fields.served, failures: fields.failures }, { key: 'upsert', served: 'unavailable', failures: 1 });
  // A synchronous store's answer (SQLite's writes) passes through as it is.
  assert.equal(await failures.answer('upsert', () => 'written'), 'written');
});

test("the cache's read failures and the writes' share one log line a second, counting both", async (t) => {
  const warn = t.mock.method(log, 'warn', () => undefined);
  let now = 0;
  const failures = new StoreFailures('test store', () => now);
  const cache = new ContentCache({
    name: 'test store',
    failures,
    isOutage: () => false,
    maxEntries: 10,
    maxBytes: 100_000,
    staleMs: 60_000,
    freshMs: Infinity,
    backoffMs: 0,
    now: () => now,
  });
  await assert.rejects(
    cache.get(
      'article:1',
      () => Promise.reject(new Error('down')),
      () => null,
    ),
    ContentUnavailable,
  );
  now = 500;
  await assert.rejects(
    failures.answer('signup', () => Promise.reject(new Error('down'))),
    ContentUnavailable,
  );
  await assert.rejects(
    failures.answer('unpublish', () => Promise.reject(new Error('down'))),
    ContentUnavailable,
  );
  assert.equal(warn.mock.callCount(), 1, 'within the second, one line');
  now = 1_500;
  await assert.rejects(
    failures.answer('upsert', () => Promise.reject(new Error('down'))),
    ContentUnavailable,
  );
  assert.equal(warn.mock.callCount(), 2);
  const fields = warn.mock.calls[1]!.arguments[1] as Record<string, unknown>;
  assert.equal(fields.failures, 3, 'the two not logged, and this one');
  assert.equal('direct' in cache, false, 'the read cache has no way in for writes');
});
