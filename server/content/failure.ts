import { describeError, log } from '../log';

// The content layer's one failure a reader may see: the store did not answer and nothing kept
// could stand in. The HTTP layer (server/errors.ts) answers it with the short 503
// (content_unavailable), so the content layer needs nothing of HTTP.
//
// Also what a store's failure becomes, for every caller of one store alike: the content cache's
// reads (cache.ts), and the reads and writes that never pass through it (a draft for a preview,
// a preview revocation, the CMS's writes, newsletter sign-ups; open.ts, reader.ts). One
// StoreFailures per store logs "<name> failed" at most once a second, however many requests fail.

export class ContentUnavailable extends Error {
  override name = 'ContentUnavailable';
}

const logEveryMs = 1_000;

/** How a failure was answered: a kept answer stood in, or nothing could (ContentUnavailable). */
export type Served = 'stale' | 'unavailable';

export class StoreFailures {
  #unlogged = 0;
  #loggedAt = -Infinity;

  constructor(
    /** How logs name the store: "<name> failed". */
    readonly name: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Logs a failure of `key` (what was asked), throttled to one line a second with the count since the last. */
  report(key: string, error: unknown, served: Served, ageMs?: number): void {
    this.#unlogged += 1;
    const now = this.now();
    // At most one line a second however many requests fail: an outage must not flood the logs.
    if (now - this.#loggedAt < logEveryMs) return;
    const { reason } = (error ?? {}) as { reason?: unknown };
    log.warn(`${this.name} failed`, {
      key,
      ...describeError(error),
      ...(typeof reason === 'string' ? { reason } : {}),
      served,
      staleAgeS: ageMs === undefined ? undefined : Math.round(ageMs / 1000),
      failures: this.#unlogged,
    });
    this.#loggedAt = now;
    this.#unlogged = 0;
  }

  /**
   * The store's answer to something never answered from memory (a write, a sign-up, a draft):
   * its failure is logged and becomes ContentUnavailable.
   */
  async answer<T>(what: string, work: () => T | Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.unavailable(what, error);
    }
  }

  /** Logs `error` as `what` failing, nothing standing in, and returns the ContentUnavailable to throw. */
  unavailable(what: string, error: unknown): ContentUnavailable {
    this.report(what, error, 'unavailable');
    return new ContentUnavailable(`${this.name}: ${what} failed`, { cause: error });
  }
}
