import { articleIdPattern } from '../../src/sections';
import { describeError, log } from '../log';
import type { ContentChange } from './changes';

// Which ids are published articles, so that a view beacon for anything else is refused in O(1),
// before anything about it is kept. Part of the content cache, which makes it and hands it every
// change it hears: what it keeps and what bounds it is the rule at the top of cache.ts.

/** After a failed read, the next try comes this much later. */
const retryMs = 2_000;

/**
 * A set of article ids kept as numbers: each id of eighteen digits as its two halves of nine, in
 * two sorted Int32Arrays (two objects for any number of ids, where a Set of strings holds one
 * string per id: 10,000 objects over the seeded articles for every major collection to mark;
 * docs/benchmarks/2026-11-28-entry-objects.md). Looked up by binary search; an id added or
 * deleted moves the ids after it (a push a second, tens of microseconds). Any other id (a
 * test's, a store's odd one) goes in a plain Set beside.
 */
export class IdSet {
  #high = new Int32Array(16);
  #low = new Int32Array(16);
  #size = 0;
  readonly #others = new Set<string>();

  constructor(ids: Iterable<string> = []) {
    const digits: string[] = [];
    for (const id of ids) {
      if (articleIdPattern.test(id)) digits.push(id);
      else this.#others.add(id);
    }
    // Eighteen digits each: in order as text is in order as numbers.
    digits.sort();
    this.#grow(digits.length);
    for (let i = 0; i < digits.length; i += 1) {
      if (i > 0 && digits[i] === digits[i - 1]) continue;
      this.#high[this.#size] = Number(digits[i]!.slice(0, 9));
      this.#low[this.#size] = Number(digits[i]!.slice(9));
      this.#size += 1;
    }
  }

  get size(): number {
    return this.#size + this.#others.size;
  }

  has(id: string): boolean {
    if (!articleIdPattern.test(id)) return this.#others.has(id);
    return this.#find(Number(id.slice(0, 9)), Number(id.slice(9))) >= 0;
  }

  add(id: string): void {
    if (!articleIdPattern.test(id)) {
      this.#others.add(id);
      return;
    }
    const high = Number(id.slice(0, 9));
    const low = Number(id.slice(9));
    const at = this.#find(high, low);
    if (at >= 0) return;
    const into = -at - 1;
    this.#grow(this.#size + 1);
    this.#high.copyWithin(into + 1, into, this.#size);
    this.#low.copyWithin(into + 1, into, this.#size);
    this.#high[into] = high;
    this.#low[into] = low;
    this.#size += 1;
  }

  delete(id: string): void {
    if (!articleIdPattern.test(id)) {
      this.#others.delete(id);
      return;
    }
    const at = this.#find(Number(id.slice(0, 9)), Number(id.slice(9)));
    if (at < 0) return;
    this.#high.copyWithin(at, at + 1, this.#size);
    this.#low.copyWithin(at, at + 1, this.#size);
    this.#size -= 1;
  }

  /** Where the id of these halves is, or -(where it would go) - 1. */
  #find(high: number, low: number): number {
    let from = 0;
    let to = this.#size;
    while (from < to) {
      const mid = (from + to) >>> 1;
      const h = this.#high[mid]!;
      if (h < high || (h === high && this.#low[mid]! < low)) from = mid + 1;
      else to = mid;
    }
    return from < this.#size && this.#high[from] === high && this.#low[from] === low ? from : -from - 1;
  }

  /** Room for `n` ids, doubling. */
  #grow(n: number): void {
    if (n <= this.#high.length) return;
    let length = this.#high.length;
    while (length < n) length *= 2;
    const high = new Int32Array(length);
    const low = new Int32Array(length);
    high.set(this.#high.subarray(0, this.#size));
    low.set(this.#low.subarray(0, this.#size));
    this.#high = high;
    this.#low = low;
  }
}

export class PublishedIds {
  private ids = new IdSet();
  private loaded = false;
  /** A read is under way; `again` asks for another once it is done (something changed meanwhile). */
  private loading: Promise<void> | null = null;
  private again = false;
  private retry: NodeJS.Timeout | undefined;
  #firstRead: Promise<void> | null = null;

  constructor(
    private readonly load: () => Promise<string[]>,
    /** Brings the store's change feed up to date (the content cache's catch-up). */
    private readonly catchUp: () => void,
  ) {}

  /**
   * Starts the first read when first asked for, and settles when it is done or has failed (a
   * store that does not answer fails it within its own deadline, and the retries go on behind):
   * a worker waits for it before it listens, so its first beacons are told apart rather than
   * dropped. Until then nothing is read (tools that open the content count no views).
   */
  get firstRead(): Promise<void> {
    this.#firstRead ??= this.reload();
    return this.#firstRead;
  }

  /** False until the first list has been read. */
  get ready(): boolean {
    return this.loaded;
  }

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    // SQLite's feed is brought up to date by whoever reads next: a push made moments ago by
    // another process is seen here, not only on the next page view.
    this.catchUp();
    return this.ids.has(id);
  }

  /** A change the content cache heard: every one that touches a published article comes here. */
  apply(change: ContentChange): void {
    // Nothing read yet, nor being read: the first read will see it.
    if (!this.loaded && this.loading === null) return;
    if (change.kind === 'everything') {
      void this.reload();
      return;
    }
    if (change.now?.status === 'published') this.ids.add(change.id);
    else this.ids.delete(change.id);
    // A read under way may have missed this change: read once more when it is done.
    if (this.loading !== null) this.again = true;
  }

  /** Reads the whole list; one read at a time, and one more if anything changed while it ran. */
  reload(): Promise<void> {
    if (this.loading !== null) {
      this.again = true;
      return this.loading;
    }
    this.again = false;
    this.loading = this.load()
      .then((ids) => {
        this.ids = new IdSet(ids);
        this.loaded = true;
      })
      .catch((error: unknown) => {
        log.warn('reading the published article ids failed; trying again shortly', describeError(error));
        clearTimeout(this.retry);
        this.retry = setTimeout(() => void this.reload(), retryMs);
        this.retry.unref();
      })
      .finally(() => {
        this.loading = null;
        if (this.again) void this.reload();
      });
    return this.loading;
  }

  close(): void {
    clearTimeout(this.retry);
  }
}
