import { describeError, log } from '../log';
import type { ContentChange } from './changes';

// Which ids are published articles, so that a view beacon for anything else is refused in O(1),
// before anything about it is kept. Part of the content cache, which makes it and hands it every
// change it hears: what it keeps and what bounds it is the rule at the top of cache.ts.

/** After a failed read, the next try comes this much later. */
const retryMs = 2_000;

export class PublishedIds {
  private ids = new Set<string>();
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
        this.ids = new Set(ids);
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
