import { maxSectionPageSize } from '../../src/content';
import { describeError, log } from '../log';
import type { ViewsStore } from './source';

// Most read, as both SQL stores keep it: views summed per article per minute (what each
// worker's flush adds) and, beside them, each article's running total over the last hour. A
// flush adds to both; as a minute leaves the window its rows are subtracted from the totals and
// deleted. Ranking reads the totals by an index, so its cost follows the list it returns, not
// how many views there were.

/** The ranking's sliding window. */
export const mostReadWindowMinutes = 60;
/** A ranking read is kept this long per worker (the content cache keeps it), whatever flushes happen meanwhile. */
export const mostReadFreshMs = 5_000;
/**
 * Ids ranked per read: the longest list anyone may ask for, twice over, so articles unpublished
 * since they were read can be left out and the list still filled.
 */
export const rankedIds = 2 * maxSectionPageSize;

/**
 * The ranked ids, or none when the views store fails: most read is a box beside the article;
 * without a ranking it hides itself and the page stays.
 */
export async function rankedOrNone(views: Pick<ViewsStore, 'ranked'>): Promise<string[]> {
  try {
    return await views.ranked(rankedIds);
  } catch (error) {
    log.warn('reading most read failed', describeError(error));
    return [];
  }
}

export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000);
}

/** The first minute inside the window that ends with `nowMinute`. */
export function windowStart(nowMinute: number): number {
  return nowMinute - mostReadWindowMinutes + 1;
}

/** Chunks of a map's entries, for writes that must not hold the event loop or a lock for long. */
export function* chunks<K, V>(map: ReadonlyMap<K, V>, size: number): Generator<[K, V][]> {
  let chunk: [K, V][] = [];
  for (const entry of map) {
    chunk.push(entry);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
