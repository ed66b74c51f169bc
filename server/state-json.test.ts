import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { serializeState } from '../src/page-contract';
import { deepFreeze } from './content/freeze';
import { stateJson } from './state-json';

test('the state as embedded is byte for byte serializeState, whatever is frozen and whatever is not', () => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, undefined, true, 0, -1.5, '</script><!--', '\u2028\u2029&', 'plain'),
      fc.string(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  fc.assert(
    fc.property(json, fc.boolean(), (value, freeze) => {
      const subject = freeze && typeof value === 'object' && value !== null ? deepFreeze(value) : value;
      const wrapped = { shape: 'per request', kept: subject, list: [subject, subject] };
      assert.equal(stateJson(wrapped), serializeState(wrapped));
      assert.equal(stateJson(wrapped), serializeState(wrapped), 'the same the second time, from what was kept');
    }),
    { numRuns: 500 },
  );
});

test('what is not frozen is written afresh every time; what is frozen cannot change, so its text is kept', () => {
  const article = deepFreeze({ id: '1', title: 'Council <votes>', body: [{ type: 'paragraph', text: 'a\u2028b' }] });
  const listing: { items: unknown[]; loadingMore: boolean } = { items: [article], loadingMore: false };
  const before = stateJson({ articles: { 1: article }, listing });
  assert.equal(before, serializeState({ articles: { 1: article }, listing }));
  listing.loadingMore = true;
  assert.equal(stateJson({ articles: { 1: article }, listing }), serializeState({ articles: { 1: article }, listing }));
  assert.throws(() => {
    (article as { title: string }).title = 'changed';
  }, TypeError);
});
