// Most read, as both SQL stores keep it: views summed per article per minute (what each
// worker's flush adds), ranked over the last hour, rows older than that deleted as flushes go.

/** The ranking's sliding window. */
export const mostReadWindowMinutes = 60;
/** Minutes kept beyond the window before a flush deletes them. */
const keptMinutes = mostReadWindowMinutes + 5;
/** A ranking read is kept this long per worker: it moves with flushes, every few seconds. */
export const mostReadFreshMs = 5_000;
/** Ranked ids read to fill a list: some may have been unpublished since. */
export const rankedOverRead = 3;

export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000);
}

export function windowStart(nowMinute: number): number {
  return nowMinute - mostReadWindowMinutes + 1;
}

export function pruneBefore(nowMinute: number): number {
  return nowMinute - keptMinutes;
}

/** A ranking read at most every `mostReadFreshMs` per list length, shared by every reader meanwhile. */
export class KeptRanking<T> {
  private readonly kept = new Map<number, { at: number; value: Promise<T> }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(limit: number, read: () => Promise<T>): Promise<T> {
    const at = this.now();
    const entry = this.kept.get(limit);
    if (entry !== undefined && at - entry.at < mostReadFreshMs) return entry.value;
    const value = read();
    this.kept.set(limit, { at, value });
    // A failed read is not kept: the next reader asks again.
    value.catch(() => this.kept.delete(limit));
    return value;
  }

  clear(): void {
    this.kept.clear();
  }
}
