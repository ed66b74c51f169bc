// What the last good writer remembers of each page's tags keeps no page's Cache-Tag header alive:
// 10,000 article pages' tags, as a worker remembers them between copies, measured in the heap
// with the collector run by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heapUsedAfterGc } from '../../test/heap';
import { TagStrings } from './tag-strings';

const id = (n: number) => `2026111020${String(n % 10_000).padStart(10, '0')}`;
/** An article page's header as pageTags writes it: the article, about 35 teasers, its section, tags and the lists. */
function header(n: number): string {
  const tags = [`a:${id(n)}`];
  for (let k = 1; k < 36; k++) tags.push(`a:${id(n * 7 + k * 131)}`);
  // A string made per response, as each page's header is.
  return [...tags, 's:news', 't:politics', 't:elections', 'l:all'].join(',');
}

test("the tags of a page's header, in order, each kept once however many pages carry it", () => {
  const strings = new TagStrings();
  assert.deepEqual(strings.of('a:1,s:news,,t:x'), ['a:1', 's:news', 't:x']);
  assert.deepEqual(strings.of(undefined), []);
  const first = strings.of(header(1));
  const again = strings.of(header(1));
  assert.deepEqual(again, first);
  // 'a:1', 's:news', 't:x', then the header's 40 but 's:news' again.
  assert.equal(strings.size, 3 + 40 - 1);
  const bounded = new TagStrings(10);
  for (let n = 0; n < 5; n++) bounded.of(header(n));
  assert.ok(bounded.size <= 10, `${bounded.size} kept past a bound of 10`);
});

test("10,000 pages' tags, remembered: the heap holds the tags, not every page's header", () => {
  const strings = new TagStrings();
  const before = heapUsedAfterGc();
  const remembered = new Map<string, readonly string[]>();
  for (let n = 0; n < 10_000; n++) remembered.set(`/news/${id(n)}`, strings.of(header(n)));
  const grewMb = (heapUsedAfterGc() - before) / 1_048_576;
  assert.equal(remembered.size, 10_000);
  // Split and kept as they come, the same tags took 26 MB (every header alive behind its slices).
  assert.ok(grewMb < 12, `the heap grew by ${grewMb.toFixed(1)} MB for 10,000 pages' tags`);
});
