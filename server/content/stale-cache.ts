import { LRUCache } from 'lru-cache';

// Recent good answers of the newsroom API, kept to stand in when it fails. Bounded twice, by
// entries and by bytes (the size of each answer as received), and least recently used goes
// first, so the pages everyone reads (front page, latest list, sections) stay while a crawl
// of old articles passes through.

export interface CacheEntry<T> {
  readonly value: T;
  readonly bytes: number;
  /** When the answer arrived (ms since the epoch). */
  readonly storedAtMs: number;
}

export interface CacheLimits {
  maxEntries: number;
  maxBytes: number;
}

export class StaleCache<T> {
  private readonly entries: LRUCache<string, CacheEntry<T>>;

  constructor(limits: CacheLimits) {
    // lru-cache sizes must be positive whole numbers; an empty answer still costs its entry.
    this.entries = new LRUCache<string, CacheEntry<T>>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      sizeCalculation: (entry) => Math.max(1, Math.ceil(entry.bytes)),
    });
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.entries.calculatedSize;
  }

  get(key: string): CacheEntry<T> | undefined {
    return this.entries.get(key);
  }

  /** An answer larger than the whole byte budget is not kept at all (and drops any older copy). */
  set(key: string, value: T, bytes: number, nowMs: number): void {
    this.entries.set(key, { value, bytes, storedAtMs: nowMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
