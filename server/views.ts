import type { ViewsStore } from './content/source';
import { minuteOf } from './content/views-window';
import { describeError, log } from './log';

// Most read, counted as a newsroom counts it. Every article view (a server-rendered page, the
// shell, an in-browser navigation) sends one beacon from the browser: pages and API answers are
// cached at the edge, so a count at render time would miss every reader a cached copy served,
// and count every crawler. Each beacon costs a map update here (O(1), no I/O); a timer adds the
// worker's counts to the content store every VIEWS_FLUSH_S, and the drain flushes the rest.
//
// What one client hammering one id can buy: a client (the address VIEWS_CLIENT_HOPS names)
// counts once per article per minute on each worker, so at most 60 views an hour per worker it
// reaches. Distinct ids per flush and clients remembered per minute are bounded too; past
// either bound a view is dropped, never counted, so flooding can hide views for the rest of a
// minute but cannot buy any.

export interface ViewCounterOptions {
  flushIntervalMs: number;
  /** Distinct articles counted between two flushes; views of others wait for the next. */
  maxIdsPerFlush: number;
  /** (client, article) pairs remembered per minute for the repeat check. */
  maxClientsPerMinute: number;
  now?: () => number;
}

export type ViewOutcome = 'counted' | 'repeat' | 'dropped';

export interface ViewStats {
  counted: number;
  repeats: number;
  dropped: number;
  flushes: number;
  flushFailures: number;
}

export class ViewCounter {
  private pending = new Map<string, number>();
  private seen = new Set<string>();
  private seenMinute: number;
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;
  readonly stats: ViewStats = { counted: 0, repeats: 0, dropped: 0, flushes: 0, flushFailures: 0 };

  constructor(
    private readonly store: ViewsStore,
    private readonly options: ViewCounterOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.seenMinute = minuteOf(this.now());
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.timer.unref();
  }

  /** One view of `id` (already checked to be an article id) by `client`. */
  record(id: string, client: string): ViewOutcome {
    const minute = minuteOf(this.now());
    if (minute !== this.seenMinute) {
      this.seen.clear();
      this.seenMinute = minute;
    }
    const key = `${client} ${id}`;
    if (this.seen.has(key)) {
      this.stats.repeats += 1;
      return 'repeat';
    }
    const views = this.pending.get(id);
    if (this.seen.size >= this.options.maxClientsPerMinute || (views === undefined && this.pending.size >= this.options.maxIdsPerFlush)) {
      this.stats.dropped += 1;
      return 'dropped';
    }
    this.seen.add(key);
    this.pending.set(id, (views ?? 0) + 1);
    this.stats.counted += 1;
    return 'counted';
  }

  /** Adds what was counted since the last flush to the store; one flush at a time. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    if (this.pending.size === 0 || !this.store.recordViews) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.recordViews(minuteOf(this.now()), batch);
      this.stats.flushes += 1;
    } catch (error) {
      this.stats.flushFailures += 1;
      log.warn('flushing article views failed; kept for the next flush', { articles: batch.size, ...describeError(error) });
      // Put back for the next flush, within the same bound as new views.
      for (const [id, views] of batch) {
        const now = this.pending.get(id);
        if (now !== undefined || this.pending.size < this.options.maxIdsPerFlush) this.pending.set(id, (now ?? 0) + views);
      }
    }
  }

  /** Stops the timer and flushes what is left: the drain calls it after the last response. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/**
 * Who sent a view: the address `hops` proxies back in X-Forwarded-For (behind CloudFront, the
 * load balancer and Nginx that is 3), or the socket's peer when 0. Only for telling repeat views
 * apart; never trusted for anything else.
 */
export function viewClient(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, hops: number): string {
  if (hops === 0 || forwardedFor === undefined) return remoteAddress ?? '';
  const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  const entry = chain[chain.length - hops] ?? chain[0] ?? '';
  return entry.trim().slice(0, 64) || (remoteAddress ?? '');
}
