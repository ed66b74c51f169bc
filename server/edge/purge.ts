import { describeError, log } from '../log';
import type { ContentChange } from '../content/changes';
import { shortestPurgedLifetimeS, type PurgeBudget } from './budget';
import { purgeItems, takesBack } from './tags';

// The purge sender: what the content change feed says changed, gathered for `intervalMs` into
// one CreateInvalidation call (server/edge/cloudfront.ts). While a call is in flight, changes
// gather for the next one; a failed call's items go back into the next, which is retried after a
// back-off (1 s doubling to maxBackoffMs, jittered). It runs in the primary process only
// (server/edge/start.ts), never on a request's path.
//
// With a budget (server/edge/budget.ts), a batch whose paths the budget cannot pay for yet is
// held, and keeps gathering changes, until it can; when the oldest change would wait past
// `maxWaitMs` (the shortest edge lifetime), or the batch takes back something readers have seen
// (a correction, an unpublish: an "#a:" item), the batch goes out as one "/*" instead, as soon
// as one path is affordable. Nothing is dropped: a held batch's tags stay pending until a call
// covers them.

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
  /** Paths the purge budget lets the sender spend now; null without a budget (unlimited). */
  budgetLeft(): number | null;
}

export interface PurgeSenderOptions {
  invalidate: Invalidate;
  intervalMs: number;
  maxBackoffMs: number;
  /** What the calls may spend (EDGE_PURGE_MONTHLY_PATHS); none: unlimited. */
  budget?: PurgeBudget;
  /** A held batch goes out as "/*" before its oldest change waits longer than this (the shortest edge lifetime). */
  maxWaitMs?: number;
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
  /** The pending batch is waiting for the budget (logged once per wait). */
  #holding = false;
  /** The pending batch takes back something readers have seen (a correction, an unpublish). */
  #takingBack = false;
  #inFlightTakingBack = false;
  readonly #now: () => number;
  readonly #maxWaitMs: number;

  constructor(private readonly options: PurgeSenderOptions) {
    this.#now = options.now ?? Date.now;
    this.#maxWaitMs = options.maxWaitMs ?? shortestPurgedLifetimeS * 1000;
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

  budgetLeft(): number | null {
    const budget = this.options.budget;
    return budget === undefined || budget.unlimited ? null : Math.max(0, budget.available());
  }

  /** Items waiting for the next call (tests and the log). */
  pending(): string[] {
    return [...this.#pending];
  }

  /** A change from the feed: its items join the next batch. `heardAt`: when the feed told it. */
  change(change: ContentChange, heardAt = this.#now()): void {
    this.add(purgeItems(change), heardAt, takesBack(change));
  }

  /** `takingBack`: the items take back what readers have seen (tags.ts takesBack): never held for the budget. */
  add(items: readonly string[], heardAt = this.#now(), takingBack = false): void {
    if (this.#closed || items.length === 0) return;
    for (const item of items) this.#pending.add(item);
    this.#takingBack ||= takingBack;
    this.#oldestPending = Math.min(this.#oldestPending ?? heardAt, heardAt);
    this.#schedule(this.options.intervalMs);
  }

  /**
   * Sends what is pending now (a stopping primary's last call); resolves when it was tried. Past
   * the budget it is one "/*": a change the next sender may not have heard is never left behind,
   * for one path over the budget at most.
   */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
    if (this.#pending.size > 0) await this.#send(true);
  }

  /** Drops what is pending: another instance has become the sender, and heard the same changes. */
  discard(): void {
    this.#generation += 1;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
    this.#oldestPending = null;
    this.#holding = false;
    this.#takingBack = false;
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

  /** The next call's items: the pending ones, or "/*" for a batch with it or past the per-call cap. */
  #batch(): string[] {
    return this.#pending.has(everything) || this.#pending.size > maxItemsPerCall ? [everything] : [...this.#pending];
  }

  #take(items: string[]): string[] {
    this.#pending.clear();
    this.#inFlightTakingBack = this.#takingBack;
    this.#takingBack = false;
    this.#oldestInFlight = this.#oldestPending;
    this.#oldestPending = null;
    return items;
  }

  /**
   * What the budget lets go now: the batch, "/*" in its place (its oldest change would otherwise
   * wait past maxWaitMs, or the sender is stopping), or a wait: hold it and look again in `retryMs`.
   */
  #afford(batch: string[], stopping: boolean): { items: string[] } | { retryMs: number } {
    const budget = this.options.budget;
    if (budget === undefined || budget.trySpend(batch.length)) return { items: batch };
    const waitedMs = this.#now() - (this.#oldestPending ?? this.#now());
    const paths = batch.length;
    if (stopping) {
      budget.spendAnyway(1);
      log.warn('edge purge budget: stopping with a batch the budget cannot pay for; sending "/*" (one path) instead', { paths });
      return { items: [everything] };
    }
    // A correction or an unpublish (a story readers have seen) waits for one path, not for the
    // budget to pay for the batch: "/*" as soon as one is affordable (at the default budget, a
    // path every 9 s when the hour's burst is spent). New stories only wait.
    const takingBack = this.#takingBack;
    if (takingBack || waitedMs + this.options.intervalMs >= this.#maxWaitMs) {
      if (!budget.trySpend(1)) return { retryMs: Math.min(budget.msUntil(1), this.#maxWaitMs) };
      log.warn(
        takingBack
          ? 'edge purge budget: a correction or unpublish is held by the budget; sending "/*" (one path) instead of its paths'
          : 'edge purge budget: a batch waited as long as the shortest edge lifetime; sending "/*" (one path) instead of its paths',
        { paths, waitedMs, monthlyPaths: budget.monthlyPaths },
      );
      return { items: [everything] };
    }
    if (!this.#holding) {
      this.#holding = true;
      log.info('edge purge budget: holding the batch until the budget pays for it; changes keep joining it', {
        paths,
        available: Math.floor(budget.available()),
        monthlyPaths: budget.monthlyPaths,
      });
    }
    return { retryMs: this.options.intervalMs };
  }

  #send(stopping = false): Promise<void> {
    if (this.#pending.size === 0 || this.#inFlight !== null) return this.#inFlight ?? Promise.resolve();
    const afforded = this.#afford(this.#batch(), stopping);
    if ('retryMs' in afforded) {
      this.#schedule(afforded.retryMs);
      return Promise.resolve();
    }
    if (this.#holding) {
      this.#holding = false;
      log.info('edge purge budget: the held batch goes out', { items: afforded.items.length, waitedMs: this.#now() - (this.#oldestPending ?? this.#now()) });
    }
    const items = this.#take(afforded.items);
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
        // Not accepted, not billed.
        this.options.budget?.refund(items.length);
        // Back into the next call, which keeps the oldest change's time for the lag; unless
        // another instance has become the sender meanwhile (discard), which heard them too.
        if (generation === this.#generation) {
          for (const item of items) this.#pending.add(item);
          this.#takingBack ||= this.#inFlightTakingBack;
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
