import { serializeState } from '../src/page-contract';
import { jsonOf } from './content/cache';

// The state a page embeds for the browser, written as serializeState writes it, but with the
// text the content cache keeps for what it hands out (server/content/cache.ts, jsonOf): a
// teaser's JSON is written once per change to its list, an article's is the text the cache keeps
// it as, so a request writes only what it put together itself (the state's shape, its lists)
// around them. server/state-json.test.ts checks the output is byte for byte serializeState's.

/** serializeState(value), reusing the content cache's text of what it handed out. */
export function stateJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return serializeState(value);
  const kept = jsonOf(value);
  if (kept !== undefined) return kept;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return serializeState(value);
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value as unknown[]) parts.push(item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : stateJson(item));
    return `[${parts.join(',')}]`;
  }
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    parts.push(`${serializeState(key)}:${stateJson(item)}`);
  }
  return `{${parts.join(',')}}`;
}
