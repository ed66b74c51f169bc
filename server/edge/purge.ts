import { describeError, log } from '../log';
import type { ContentChange } from '../content/changes';
import { purgeItems } from './tags';

// The purge sender: what the content change feed says changed, gathered for `intervalMs` into
// one CreateInvalidation call (server/edge/cloudfront.ts). While a call is in flight, changes
// gather for the next one; a failed call's items go back into the next, which is retried after a
// back-off (1 s doubling to maxBackoffMs, jittered). It runs in the primary process only
// (server/edge/start.ts), never on a request's path.

/** Sends one CreateInvalidation with these items; rejects when it was not accepted. */
export type Invalidate = (items: readonly string[]) => Promise<void>;

/**
 * Past this many items in one batch, one "/*" instead: it drops the same answers and more, costs
 * one path instead of hundreds, and stays far from CloudFront's 3,000 paths in progress.
 */
export const maxItemsPerCall = 500;
export const everything = '/*';
const firstBackoffMs = 1_000;

export interface PurgeStats {
  /** Tags (and paths) in accepted CreateInvalidation calls, since start. */
  readonly tagsSent: number;
  /** CreateInvalidation calls that failed, since start. */
  readonly failures: number;
  /** Age in seconds of the oldest change no accepted call covers yet; 0 when none. */
  lagS(): number;
}

export interface PurgeSenderOptions {
  invalidate: Invalidate;
  intervalMs: number;
  maxBackoffMs: number;
  now?: () => number;
}

export class PurgeSender implements PurgeStats {
  #pending = new Set<string>();
  /** When the oldest change not yet covered by an accepted call was heard (pending or in flight). */
  #oldestPending: number | null = null;
  #oldestInFlight: number | null = null;
  #inFlight: Promise<void> | null = null;
  #timer: NodeJS.Timeout | undefined;
  #attempt = 0;
  #closed = false;
  /** Moved on by discard(): a call in flight when it came does not put its items back if it fails. */
  #generation = 0;
  #tagsSent = 0;
  #failures = 0;
  readonly #now: () => number;

  constructor(private readonly options: PurgeSenderOptions) {
    this.#now = options.now ?? Date.now;
  }

  get tagsSent(): number {
    return this.#tagsSent;
  }

  get failures(): number {
    return this.#failures;
  }

  lagS(): number {
    const oldest = [this.#oldestPending, this.#oldestInFlight].filter((t): t is number => t !== null);
    return oldest.length === 0 ? 0 : Math.max(0, (this.#now() - Math.min(...oldest)) / 1000);
  }

  /** Items waiting for the next call (tests and the log). */
  pending(): string[] {
    return [...this.#pending];
  }

  /** A change from the feed: its items join the next batch. `heardAt`: when the feed told it. */
  change(change: ContentChange, heardAt = this.#now()): void {
    this.add(purgeItems(change), heardAt);
  }

  add(items: readonly string[], heardAt = this.#now()): void {
    if (this.#closed || items.length === 0) return;
    for (const item of items) this.#pending.add(item);
    this.#oldestPending = Math.min(this.#oldestPending ?? heardAt, heardAt);
    this.#schedule(this.options.intervalMs);
  }

  /** Sends what is pending now (a stopping primary's last call); resolves when it was tried. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
    if (this.#pending.size > 0) await this.#send();
  }

  /** Drops what is pending: another instance has become the sender, and heard the same changes. */
  discard(): void {
    this.#generation += 1;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
    this.#oldestPending = null;
  }

  /** Stops sending; what is pending is dropped (the next sender covers it, server/edge/start.ts). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(delayMs: number): void {
    if (this.#closed || this.#timer !== undefined || this.#inFlight !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#send();
    }, delayMs);
    this.#timer.unref();
  }

  #take(): string[] {
    const items = this.#pending.has(everything) || this.#pending.size > maxItemsPerCall ? [everything] : [...this.#pending];
    this.#pending.clear();
    this.#oldestInFlight = this.#oldestPending;
    this.#oldestPending = null;
    return items;
  }

  #send(): Promise<void> {
    if (this.#pending.size === 0 || this.#inFlight !== null) return this.#inFlight ?? Promise.resolve();
    const items = this.#take();
    const started = this.#now();
    const generation = this.#generation;
    const call = this.options.invalidate(items).then(
      () => {
        this.#attempt = 0;
        this.#tagsSent += items.length;
        log.info('edge purged', { items: items.length, first: items.slice(0, 5), lagMs: started - (this.#oldestInFlight ?? started) });
        this.#oldestInFlight = null;
      },
      (error: unknown) => {
        this.#failures += 1;
        this.#attempt += 1;
        // Back into the next call, which keeps the oldest change's time for the lag; unless
        // another instance has become the sender meanwhile (discard), which heard them too.
        if (generation === this.#generation) {
          for (const item of items) this.#pending.add(item);
          this.#oldestPending = Math.min(this.#oldestPending ?? started, this.#oldestInFlight ?? started);
        }
        this.#oldestInFlight = null;
        log.error('edge purge failed; retrying', { items: items.length, attempt: this.#attempt, ...describeError(error) });
      },
    );
    this.#inFlight = call.finally(() => {
      this.#inFlight = null;
      if (this.#pending.size === 0) return;
      // Coalesced while in flight: the next call goes at once, or after the back-off.
      const backoff = this.#attempt === 0 ? 0 : Math.min(this.options.maxBackoffMs, firstBackoffMs * 2 ** (this.#attempt - 1)) * (0.5 + Math.random() / 2);
      this.#schedule(this.#attempt === 0 ? Math.max(0, this.options.intervalMs - (this.#now() - started)) : backoff);
    });
    return this.#inFlight;
  }
}
