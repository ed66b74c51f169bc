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
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  private readonly entries = new Map<string, CacheEntry<T>>();
  private totalBytes = 0;

  constructor(private readonly limits: CacheLimits) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  get(key: string): CacheEntry<T> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** An answer larger than the whole byte budget is not kept at all. */
  set(key: string, value: T, bytes: number, nowMs: number): void {
    this.delete(key);
    if (bytes > this.limits.maxBytes) return;
    this.entries.set(key, { value, bytes, storedAtMs: nowMs });
    this.totalBytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.totalBytes <= this.limits.maxBytes) break;
      this.entries.delete(oldest);
      this.totalBytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }
}
