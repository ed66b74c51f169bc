import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serializeState } from './page-contract';

test('serializeState leaves nothing that can close a script element or break a JS parser', () => {
  const state = { title: '</script><script>alert(1)</script> <!-- & \u2028 \u2029' };
  const out = serializeState(state);
  assert.doesNotMatch(out, /[<>&\u2028\u2029]/);
  assert.deepEqual(JSON.parse(out), state);
});

test('serializeState round-trips ordinary data unchanged', () => {
  const state = { a: [1, 2, { b: 'ä ö "quoted" \\ back' }], n: null };
  assert.deepEqual(JSON.parse(serializeState(state)), state);
});
