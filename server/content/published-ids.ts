import { describeError, log } from '../log';
import type { ChangeFeed, ContentChange } from './changes';

// Which ids are published articles, held per worker so that a view beacon for anything else is
// refused in O(1), before anything about it is kept. Read whole once, then kept current by the
// store's change feed (an article published, unpublished or removed); a feed that cannot say
// what changed has the whole list read again. About 70 bytes an id: 10,000 articles are 0.7 MB
// per worker, an archive of 500,000 about 35 MB.

/** After a failed read, the next try comes this much later. */
const retryMs = 2_000;

export class PublishedIds {
  private ids = new Set<string>();
  private loaded = false;
  /** A read is under way; `again` asks for another once it is done (something changed meanwhile). */
  private loading: Promise<void> | null = null;
  private again = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly stop: () => void;
  /**
   * Settles when the first read is done or has failed (a store that does not answer fails it
   * within its own deadline, and the retries go on behind): a worker waits for it before it
   * listens, so its first beacons are told apart rather than dropped.
   */
  readonly firstRead: Promise<void>;

  constructor(
    private readonly load: () => Promise<string[]>,
    private readonly changes: ChangeFeed,
  ) {
    this.stop = changes.subscribe((change) => this.apply(change));
    this.firstRead = this.reload();
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
    this.changes.poll();
    return this.ids.has(id);
  }

  private apply(change: ContentChange): void {
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
    this.stop();
    clearTimeout(this.retry);
  }
}
