import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cacheControl } from './cache-policy';
import { errorHeaders, errors, retryAfterS } from './errors';

test('Retry-After comes from the registry: busy previews 2 s, the newsroom API 5 s, nothing for errors that retrying will not fix', () => {
  assert.deepEqual(errorHeaders(errors.unavailable), { 'Cache-Control': cacheControl.noStore, 'Retry-After': '2' });
  assert.deepEqual(errorHeaders(errors.contentUnavailable), { 'Cache-Control': cacheControl.contentUnavailable, 'Retry-After': '5' });
  assert.deepEqual(errorHeaders(errors.notFound), { 'Cache-Control': cacheControl.notFound });
  assert.deepEqual(errorHeaders(errors.badRequest), { 'Cache-Control': cacheControl.noStore });
  assert.equal(retryAfterS('no_such_code'), null);
});
