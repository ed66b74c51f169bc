import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatPublished } from './Timestamp';

test('formats UTC store times the same on every machine', () => {
  assert.equal(formatPublished('2026-11-21T21:00:00.000Z'), '21 Nov 2026, 21:00 UTC');
  assert.equal(formatPublished('2026-01-05T07:09:00Z'), '5 Jan 2026, 07:09 UTC');
});

test('times with an offset are converted to UTC; garbage gives an empty string', () => {
  assert.equal(formatPublished('2026-11-22T01:30:00+02:00'), '21 Nov 2026, 23:30 UTC');
  assert.equal(formatPublished('not a date'), '');
});
