import { describeError, log } from '../log';
import type { ContentSource } from './source';

// Which ids are published articles, held per worker so that a view beacon for anything else is
// refused in O(1), before anything about it is kept. Loaded whole, and again whenever the
// store's version moves (checked on a timer, never on the request path). About 70 bytes an id:
// 10,000 articles are 0.7 MB per worker, an archive of 500,000 about 35 MB.

/** With no version to watch, the whole list is read again this often. */
const unversionedReloadMs = 60_000;

export class PublishedIds {
  private ids: ReadonlySet<string> = new Set();
  /** The store's version the ids were read at; undefined until the first read has finished. */
  private loadedVersion: number | null | undefined = undefined;
  private loadedAt = 0;
  private loading: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly source: Required<Pick<ContentSource, 'publishedIds'>> & Pick<ContentSource, 'version'>,
    checkEveryMs = 1_000,
  ) {
    this.timer = setInterval(() => void this.refresh(), checkEveryMs);
    this.timer.unref();
    void this.refresh();
  }

  /** False until the first list has been read. */
  get ready(): boolean {
    return this.loadedVersion !== undefined;
  }

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Reads the list again if the content changed since it was read; one read at a time. */
  refresh(): Promise<void> {
    if (this.loading !== null) return this.loading;
    const version = this.source.version?.() ?? null;
    if (this.ready && (version === null ? performance.now() - this.loadedAt < unversionedReloadMs : version === this.loadedVersion)) {
      return Promise.resolve();
    }
    this.loading = this.source
      .publishedIds()
      .then((ids) => {
        this.ids = new Set(ids);
        this.loadedVersion = version;
        this.loadedAt = performance.now();
      })
      .catch((error: unknown) => log.warn('reading the published article ids failed; trying again shortly', describeError(error)))
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
