import type { ViewsStore } from './content/source';
import { minuteOf } from './content/views-window';
import { describeError, log } from './log';
import { PerClientLimit } from './per-client-limit';
import { setTimeout as sleep } from 'node:timers/promises';

// Most read, counted as a newsroom counts it. Every article view (a server-rendered page, the
// shell, an in-browser navigation) sends one beacon from the browser: pages and API answers are
// cached at the edge, so a count at render time would miss every reader a cached copy served,
// and count every crawler. Each beacon costs a few map look-ups here (O(1), no I/O); a timer adds
// the worker's counts to the store every VIEWS_FLUSH_S, and the drain flushes the rest.
//
// What one client can do, in the order it is checked:
// - its own share first: VIEWS_PER_CLIENT_PER_MINUTE beacons a minute on this worker, whatever
//   they name; past that it is refused (429) before anything else is looked at, so a flood from
//   one address costs a map look-up per beacon and takes nobody else's room;
// - only a published article counts: any other id is refused (404), so made-up ids are never
//   stored, ranked or allowed to push real articles out;
// - once per article per minute: a client (the address CLIENT_ADDRESS_HOPS names) counts once
//   per article per minute on each worker, so at most 60 views an hour per worker it reaches.
// The (client, article) pairs remembered per minute are bounded; past that bound a view is
// dropped, never counted.

export interface ViewCounterOptions {
  flushIntervalMs: number;
  /** Beacons one client may send a minute to this worker (VIEWS_PER_CLIENT_PER_MINUTE). */
  perClientPerMinute: number;
  /** Clients, and (client, article) pairs, remembered per minute. */
  maxClientsPerMinute: number;
  now?: () => number;
}

/** How long the last flush at shutdown keeps trying a busy store, well inside SHUTDOWN_GRACE_MS's margin. */
const closeDeadlineMs = 1_000;
const closeRetryMs = 20;

export type ViewOutcome = 'counted' | 'repeat' | 'limited' | 'unknown' | 'dropped';

export interface ViewStats {
  counted: number;
  repeats: number;
  /** Over the client's share. */
  limited: number;
  /** Not a published article. */
  unknown: number;
  /** Past the pairs remembered per minute, or before the published ids were first read. */
  dropped: number;
  flushes: number;
  /** Flushes that left counts behind for the next (the store was busy or failed). */
  flushFailures: number;
}

/** Which ids are published articles (kept by the content cache: server/content/published-ids.ts). */
export interface PublishedCheck {
  readonly ready: boolean;
  has(id: string): boolean;
}

export class ViewCounter {
  private pending = new Map<string, number>();
  private seen = new Set<string>();
  private seenMinute: number;
  private expiredMinute = -1;
  private flushing: Promise<void> = Promise.resolve();
  private readonly clients: PerClientLimit;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;
  readonly stats: ViewStats = { counted: 0, repeats: 0, limited: 0, unknown: 0, dropped: 0, flushes: 0, flushFailures: 0 };

  constructor(
    private readonly store: ViewsStore,
    private readonly published: PublishedCheck,
    private readonly options: ViewCounterOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.seenMinute = minuteOf(this.now());
    this.clients = new PerClientLimit(options.perClientPerMinute, 60_000, options.maxClientsPerMinute, this.now);
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.timer.unref();
  }

  /** One beacon for `id` (already checked to be shaped like an article id) from `client`. */
  record(id: string, client: string): ViewOutcome {
    if (!this.clients.take(client)) {
      this.stats.limited += 1;
      return 'limited';
    }
    if (!this.published.ready) {
      this.stats.dropped += 1;
      return 'dropped';
    }
    if (!this.published.has(id)) {
      this.stats.unknown += 1;
      return 'unknown';
    }
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
    if (this.seen.size >= this.options.maxClientsPerMinute) {
      this.stats.dropped += 1;
      return 'dropped';
    }
    this.seen.add(key);
    this.pending.set(id, (this.pending.get(id) ?? 0) + 1);
    this.stats.counted += 1;
    return 'counted';
  }

  /** Whole seconds until a client refused now may send again. */
  retryAfterS(): number {
    return this.clients.retryAfterS();
  }

  /** Adds what was counted since the last flush to the store; one flush at a time. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const minute = minuteOf(this.now());
    if (this.pending.size > 0) {
      const batch = this.pending;
      this.pending = new Map();
      let unwritten: ReadonlyMap<string, number>;
      try {
        unwritten = await this.store.record(minute, batch);
      } catch (error) {
        log.warn('flushing article views failed; kept for the next flush', { articles: batch.size, ...describeError(error) });
        unwritten = batch;
      }
      if (unwritten.size === 0) {
        this.stats.flushes += 1;
      } else {
        this.stats.flushFailures += 1;
        // Every id here is a published article, so what is kept is bounded by the articles there are.
        for (const [id, views] of unwritten) this.pending.set(id, (this.pending.get(id) ?? 0) + views);
      }
    }
    if (minute !== this.expiredMinute) {
      try {
        await this.store.expire(minute);
        this.expiredMinute = minute;
      } catch (error) {
        log.warn('taking old minutes out of most read failed; trying again at the next flush', describeError(error));
      }
    }
  }

  /**
   * Stops the timer and flushes what is left: the drain calls it after the last response. There is
   * no next flush to leave counts for, so a store busy with another worker's own last flush is
   * tried again a few times, for up to `closeDeadlineMs`.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const giveUpAt = performance.now() + closeDeadlineMs;
    await this.flush();
    while (this.pending.size > 0 && performance.now() < giveUpAt) {
      await sleep(closeRetryMs);
      await this.flush();
    }
    if (this.pending.size > 0) log.error('article views could not be written before exit', { articles: this.pending.size });
  }
}
