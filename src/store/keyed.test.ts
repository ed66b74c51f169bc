import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyKeyed, entryOf, keyedFrom, setEntry, withEntry, type Keyed } from './keyed';

// Every key a plain object answers from its prototype, and `__proto__`, which sets one.
const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'toLocaleString'];

test('an empty record has no entry for any key a prototype would lend', () => {
  const record = emptyKeyed<number>();
  for (const key of inherited) assert.equal(entryOf(record, key), undefined, key);
});

test('a plain object read through entryOf lends nothing either', () => {
  const parsed = JSON.parse('{"news":1}') as Keyed<number>;
  for (const key of inherited) assert.equal(entryOf(parsed, key), undefined, key);
  assert.equal(entryOf(parsed, 'news'), 1);
});

test('each such key is stored and read back as an entry like any other, in place or by copy', () => {
  let copied = emptyKeyed<string>();
  const inPlace = emptyKeyed<string>();
  for (const key of inherited) {
    copied = withEntry(copied, key, `value of ${key}`);
    setEntry(inPlace, key, `value of ${key}`);
  }
  for (const record of [copied, inPlace]) {
    for (const key of inherited) assert.equal(entryOf(record, key), `value of ${key}`, key);
    assert.deepEqual(Object.keys(record), inherited);
    assert.equal(Object.getPrototypeOf(record), null);
  }
  // Nothing leaked onto the prototype every other object shares.
  assert.equal(({} as { toString: unknown }).toString, Object.prototype.toString);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
});

test('withEntry leaves the record it copies as it was', () => {
  const before = withEntry(emptyKeyed<number>(), 'news', 1);
  const after = withEntry(before, 'constructor', 2);
  assert.equal(entryOf(before, 'constructor'), undefined);
  assert.equal(entryOf(after, 'news'), 1);
  assert.equal(entryOf(after, 'constructor'), 2);
});

test('records survive JSON both ways, `__proto__` included, as the server embeds them and the browser reads them', () => {
  let record = emptyKeyed<{ n: number }>();
  for (const [i, key] of inherited.entries()) record = withEntry(record, key, { n: i });
  const text = JSON.stringify(record);
  const back = keyedFrom<{ n: number }>(JSON.parse(text) as object);
  for (const [i, key] of inherited.entries()) assert.deepEqual(entryOf(back, key), { n: i }, key);
  assert.equal(JSON.stringify(back), text);
  assert.equal(Object.getPrototypeOf(back), null);
});
