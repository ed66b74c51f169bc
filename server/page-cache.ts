// The breaking-news cache (opt-in, PAGE_CACHE_TTL_MS > 0): on a spike thousands of readers ask
// for the same few articles within seconds, and the CDN's copy expires for all of them at once.
// Each worker keeps the pages it rendered for a moment, bounded in memory, and drops them as
// soon as the content changes (SQLite's data_version, which every commit moves) or their time
// is up. Only 200 pages: never a preview (answered elsewhere), an error or a redirect.

export interface CachedPage {
  html: string;
  headers: Readonly<Record<string, string>>;
  /** The CSP nonce rendered into html: replaced by a fresh one on every answer. */
  nonce: string;
}

interface Entry extends CachedPage {
  storedAt: number;
  version: number | null;
  bytes: number;
}

export class PageCache {
  // A Map keeps insertion order: the first key is the least recently used.
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    readonly ttlMs: number,
    readonly maxBytes: number,
    /** The content's current version, or null when the source cannot say (TTL only). */
    private readonly version: () => number | null,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get(path: string): CachedPage | null {
    const entry = this.#entries.get(path);
    if (entry === undefined) {
      this.misses += 1;
      return null;
    }
    if (this.now() - entry.storedAt > this.ttlMs || entry.version !== this.version()) {
      this.#remove(path, entry);
      this.misses += 1;
      return null;
    }
    this.#entries.delete(path);
    this.#entries.set(path, entry);
    this.hits += 1;
    return entry;
  }

  set(path: string, page: CachedPage): void {
    // JavaScript strings are UTF-16 in memory: two bytes a character is the honest bound.
    const bytes = page.html.length * 2 + path.length * 2;
    if (bytes > this.maxBytes) return;
    const old = this.#entries.get(path);
    if (old) this.#remove(path, old);
    this.#entries.set(path, { ...page, storedAt: this.now(), version: this.version(), bytes });
    this.#bytes += bytes;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(key, entry);
    }
  }

  #remove(path: string, entry: Entry): void {
    this.#entries.delete(path);
    this.#bytes -= entry.bytes;
  }
}
