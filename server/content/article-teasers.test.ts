// Related stories are ranked whenever a change makes an article page be put together again, so
// the ranking walks the tags' lists together instead of counting in a map and sorting. Checked
// here against the plain way of saying it, on lists of every shape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rankByTags, rankList, rankLists } from './article-teasers';

/** Most tags in common first, newer (a greater id) first among equals: counted and sorted. */
function rankedPlainly(candidates: readonly (readonly string[])[], limit: number): string[] {
  const shared = new Map<string, number>();
  for (const ids of candidates) for (const id of ids) shared.set(id, (shared.get(id) ?? 0) + 1);
  return [...shared]
    .sort(([a, n], [b, m]) => m - n || (a < b ? 1 : a > b ? -1 : 0))
    .slice(0, limit)
    .map(([id]) => id);
}

/** Up to eight tags' lists drawn from a small pool of ids, so they overlap; each newest first, as a store reads them. */
const tagLists = fc.array(
  fc
    .uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 50 })
    .map((ids) => ids.sort((a, b) => b - a).map((n) => `2026112100000${String(n).padStart(5, '0')}`)),
  { maxLength: 8 },
);

test('rankByTags ranks as counting and sorting would, for any lists and limits', () => {
  fc.assert(
    fc.property(tagLists, fc.integer({ min: 0, max: 12 }), (candidates, limit) => {
      assert.deepEqual(rankByTags(candidates, limit), rankedPlainly(candidates, limit));
    }),
    { numRuns: 2_000 },
  );
});

test('rankLists leaves out the article and reads no more than perList others of each list, as filtering first would', () => {
  fc.assert(
    fc.property(tagLists, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 60 }), (lists, limit, n, perList) => {
      const skip = `2026112100000${String(n).padStart(5, '0')}`;
      const plain = rankedPlainly(
        lists.map((ids) => ids.filter((id) => id !== skip).slice(0, perList)),
        limit,
      );
      assert.deepEqual(rankLists(lists.map(rankList), limit, skip, perList), plain);
    }),
    { numRuns: 2_000 },
  );
});

test('rankByTags: three tags in common before two, newer first among equals', () => {
  assert.deepEqual(
    rankByTags(
      [
        ['9', '7', '5', '3'],
        ['9', '8', '5'],
        ['6', '5'],
      ],
      4,
    ),
    ['5', '9', '8', '7'],
  );
});
