import { serializeState } from '../src/page-contract';

// The state a page embeds for the browser, written as serializeState writes it, but with the
// text of every frozen object kept: the content cache freezes what it hands out and hands the
// same object to every reader until the content changes, so an article's JSON (most of a page's
// state) is written once per change instead of once per request. What a request puts together
// itself (the state's shape, a listing's wrapper) is written each time, around the kept parts.
// Frozen means frozen whole here: the cache and the reducers' initial states freeze entire trees.
// A frozen object is written whole and kept; a frozen list is written item by item (each item
// kept), as lists are what a change puts together anew from objects already written.
// server/state-json.test.ts checks the output is byte for byte serializeState's.

const kept = new WeakMap<object, string>();

/** serializeState(value), reusing the text of frozen objects written before. */
export function stateJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return serializeState(value);
  const frozen = Object.isFrozen(value);
  if (frozen) {
    const text = kept.get(value);
    if (text !== undefined) return text;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return serializeState(value);
  if (Array.isArray(value)) {
    // A frozen list is written from its items' kept text: a push rebuilds the related stories of
    // hundreds of pages as new lists of the same teasers, each of which is then written once.
    let text = '[';
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      text += (i > 0 ? ',' : '') + (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : stateJson(item));
    }
    text += ']';
    if (frozen) kept.set(value, text);
    return text;
  }
  if (frozen) {
    const text = serializeState(value);
    kept.set(value, text);
    return text;
  }
  let text = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    text += `${first ? '' : ','}${serializeState(key)}:${stateJson(item)}`;
    first = false;
  }
  return `${text}}`;
}
