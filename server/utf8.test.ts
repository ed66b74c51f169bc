import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { utf8 } from './utf8';

// Any UTF-16 text, lone surrogates included, as a page could hold it.
const anyText = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 200 }).map((units) => String.fromCharCode(...units));

test('utf8 writes the bytes Buffer.from writes, for any text', () => {
  fc.assert(
    fc.property(fc.oneof(anyText, fc.string(), fc.string({ unit: 'grapheme' })), (text) => {
      assert.deepEqual(utf8(text), Buffer.from(text));
    }),
    { numRuns: 2_000 },
  );
});

test('utf8: a lone surrogate becomes U+FFFD, as in Buffer.from; pages of quotes and dashes round-trip', () => {
  assert.equal(utf8('a\ud800b').toString('hex'), '61efbfbd62');
  const page = `<p>The council’s vote — “a first” …</p>`.repeat(1_000);
  assert.equal(utf8(page).toString('utf8'), page);
  assert.equal(utf8('').length, 0);
});
