import type { ContentClient } from '../src/content';
import type { ContentCache, PageReads } from './content/cache';
import type { ContentReader } from './content/source';

// The breaking-news cache (opt-in, PAGE_CACHE_TTL_MS > 0): on a spike thousands of readers ask
// for the same few articles within seconds, and the CDN's copy expires for all of them at once.
// Each worker keeps the pages it rendered for a moment, in the content cache: what bounds a page
// and what drops it is the rule at the top of server/content/cache.ts. A page is kept with what
// the answers it was put together from depend on, so a push drops the pages that show what it
// changed and leaves every other. Only 200 pages: never a preview (answered elsewhere), an error
// or a redirect.

export interface CachedPage {
  html: string;
  headers: Readonly<Record<string, string>>;
  /** The CSP nonce rendered into html: replaced by a fresh one on every answer. */
  nonce: string;
}

/** One render on a miss: the content to render with, whose reads are noted for set(). */
export interface PageRender {
  readonly content: ContentClient;
  readonly reads: PageReads;
}

const keyOf = (path: string) => `page:${path}`;

export class PageCache {
  hits = 0;
  misses = 0;

  constructor(
    readonly ttlMs: number,
    private readonly cache: ContentCache,
    private readonly reader: Pick<ContentReader, 'noting'>,
  ) {}

  get(path: string): CachedPage | null {
    const page = this.cache.fresh<CachedPage>(keyOf(path));
    if (page === undefined) {
      this.misses += 1;
      return null;
    }
    this.hits += 1;
    return page;
  }

  /** The content a miss renders with: what it reads is noted, so set() knows what the page depends on. */
  render(): PageRender {
    const reads = this.cache.startPage();
    return { reads, content: this.reader.noting(reads) };
  }

  /** Keeps a page rendered with `render`; one that cannot be vouched for, or larger than the whole bound, is not kept. */
  set(path: string, page: CachedPage, render: PageRender): void {
    // Kept frozen: its own copy of the headers, which the caller goes on to answer with.
    this.cache.keepPage(keyOf(path), { html: page.html, headers: { ...page.headers }, nonce: page.nonce }, render.reads, this.ttlMs);
  }
}
