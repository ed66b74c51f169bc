import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { serializeState } from '../src/page-contract';
import { produce } from 'immer';
import { frozenWithJson, jsonOf, parsedWithJson } from './content/cache';
import { stateJson } from './state-json';

test('the state as embedded is byte for byte serializeState, whatever the content cache kept the text of and whatever it did not', () => {
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
    fc.property(json, fc.boolean(), (value, kept) => {
      const subject = kept && typeof value === 'object' && value !== null ? frozenWithJson([value])[0] : value;
      const wrapped = { shape: 'per request', kept: subject, list: [subject, subject] };
      assert.equal(stateJson(wrapped), serializeState(wrapped));
      assert.equal(stateJson(wrapped), serializeState(wrapped), 'the same the second time, from what was kept');
    }),
    { numRuns: 500 },
  );
});

test('an object the cache kept the text of is written from that text; one it did not is written afresh every time', () => {
  const [article] = frozenWithJson([{ id: '1', title: 'Council <votes>', body: [{ type: 'paragraph', text: 'a\u2028b' }] }]);
  const listing: { items: unknown[]; loadingMore: boolean } = { items: [article], loadingMore: false };
  assert.equal(stateJson({ articles: { 1: article }, listing }), serializeState({ articles: { 1: article }, listing }));
  listing.loadingMore = true;
  assert.equal(stateJson({ articles: { 1: article }, listing }), serializeState({ articles: { 1: article }, listing }));
  assert.throws(() => {
    (article as { title: string }).title = 'changed';
  }, TypeError);
  // A request's own parse of a kept text is written as that text.
  const text = serializeState({ id: '2', title: 'Rates <held>' });
  const parsed = parsedWithJson<{ id: string; title: string }>(text);
  assert.equal(stateJson({ articles: { 2: parsed } }), `{"articles":{"2":${text}}}`);
});

test("a request's own parse carries its text, and no copy of it does: a changed copy is written afresh", () => {
  const text = serializeState({ id: '3', title: 'Bridge <opens>', tags: ['transport'] });
  const parsed = parsedWithJson<{ id: string; title: string; tags: string[] }>(text);
  assert.equal(jsonOf(parsed), text);
  assert.deepEqual(Object.keys(parsed), ['id', 'title', 'tags'], 'the text is not an enumerable field');
  assert.equal(JSON.stringify(parsed), JSON.stringify(JSON.parse(text)));
  const spread = { ...parsed, title: 'Bridge <closes>' };
  assert.equal(jsonOf(spread), undefined);
  assert.equal(stateJson({ article: spread }), serializeState({ article: spread }));
  const drafted = produce(parsed, (draft) => {
    draft.tags.push('city');
  });
  assert.notEqual(drafted, parsed);
  assert.equal(jsonOf(drafted), undefined, "immer's copy does not inherit the text");
  assert.equal(stateJson({ article: drafted }), serializeState({ article: drafted }));
  assert.match(stateJson({ article: drafted }), /"city"/);
});
