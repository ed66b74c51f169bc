import { LRUCache } from 'lru-cache';

// The breaking-news cache (opt-in, PAGE_CACHE_TTL_MS > 0): on a spike thousands of readers ask
// for the same few articles within seconds, and the CDN's copy expires for all of them at once.
// Each worker keeps the pages it rendered for a moment, bounded in memory, and drops them as
// soon as the content changes (the content cache's version, which moves with every change
// readers can see) or their time is up. Only 200 pages: never a preview (answered elsewhere), an error or a redirect.

export interface CachedPage {
  html: string;
  headers: Readonly<Record<string, string>>;
  /** The CSP nonce rendered into html: replaced by a fresh one on every answer. */
  nonce: string;
}

interface Entry extends CachedPage {
  storedAt: number;
  version: number | null;
}

/** JavaScript strings are UTF-16 in memory: two bytes a character is the honest bound. */
function bytesOf(path: string, page: CachedPage): number {
  return page.html.length * 2 + path.length * 2;
}

export class PageCache {
  // lru-cache keeps the byte bound and the recency order; time and content version are ours,
  // checked on every read against the injected clock and the store's version.
  readonly #entries: LRUCache<string, Entry>;
  hits = 0;
  misses = 0;

  constructor(
    readonly ttlMs: number,
    readonly maxBytes: number,
    /** The content's current version, or null when the source cannot say (TTL only). */
    private readonly version: () => number | null,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#entries = new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (entry, path) => bytesOf(path, entry) });
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#entries.calculatedSize;
  }

  get(path: string): CachedPage | null {
    const entry = this.#entries.get(path);
    if (entry === undefined) {
      this.misses += 1;
      return null;
    }
    if (this.now() - entry.storedAt > this.ttlMs || entry.version !== this.version()) {
      this.#entries.delete(path);
      this.misses += 1;
      return null;
    }
    this.hits += 1;
    return entry;
  }

  /** A page larger than the whole budget is not kept (lru-cache refuses it and drops any older copy). */
  set(path: string, page: CachedPage): void {
    this.#entries.set(path, { ...page, storedAt: this.now(), version: this.version() });
  }
}
