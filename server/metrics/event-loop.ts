import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import v8 from 'node:v8';
import { Histogram } from './histogram';

/**
 * Event-loop delay, sampled off the request path as @fastify/under-pressure does: libuv's
 * timer fills a histogram, and an unref()'d interval turns it into one cached number that
 * the per-request check only reads.
 */
export class EventLoopDelaySampler {
  /** Mean delay over the last interval, in ms, with the sampling resolution taken off. */
  delayMs = 0;
  /** Highest delay seen over the last interval, in ms. */
  maxDelayMs = 0;
  /**
   * Every interval's highest delay, from the start: the distribution CloudWatch and /metrics
   * report (each reader takes differences), so a stall shows up even when it falls between two reads.
   */
  readonly windowMaxMs = new Histogram();
  private readonly histogram: ELDHistogram;
  private readonly timer: NodeJS.Timeout;
  private readonly listeners: ((maxDelayMs: number) => void)[] = [];

  constructor(
    intervalMs = 500,
    private readonly resolutionMs = 10,
  ) {
    this.histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    this.histogram.enable();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  private sample() {
    const mean = this.histogram.mean / 1e6;
    this.delayMs = Number.isFinite(mean) ? Math.max(0, mean - this.resolutionMs) : 0;
    this.maxDelayMs = Math.max(0, this.histogram.max / 1e6 - this.resolutionMs);
    this.windowMaxMs.record(this.maxDelayMs);
    this.histogram.reset();
    for (const listener of this.listeners) listener(this.maxDelayMs);
  }

  /** Calls `listener` with each interval's highest delay, as it ends. */
  onInterval(listener: (maxDelayMs: number) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

/**
 * Major garbage collections, seen without watching every collection. perf_hooks' gc entries
 * came for every scavenge too (dozens a second under load), each a handful of objects built
 * after the collection and handed over a turn later, and enough of them lived through the next
 * scavenge to be promoted: with them a busy worker promoted about twice as much to the old
 * generation, so its major collections, whose marking takes its core for ~100 ms, came about
 * twice as often (docs/performance.md). Here one unreachable object is registered with a
 * FinalizationRegistry: a scavenge keeps what such a registry watches, a major collection
 * frees it, and the registry's callback, run after that collection, counts it and plants the
 * next. The heap in use then is what the worker really keeps. V8's own duration of the pause is
 * not available this way: each collection is recorded with the event loop's highest delay in
 * the sampler's interval it ended in, the stall its pause and whatever ran beside it made.
 */
export class MajorCollections {
  private readonly registry = new FinalizationRegistry<undefined>(() => this.collected());
  private ended = 0;
  private closed = false;

  constructor(
    private readonly into: { majorGcMs: Histogram; heapAfterGcBytes: number },
    sampler: Pick<EventLoopDelaySampler, 'onInterval'>,
  ) {
    this.plant();
    sampler.onInterval((maxDelayMs) => {
      for (; this.ended > 0; this.ended--) this.into.majorGcMs.record(maxDelayMs);
    });
  }

  private plant(): void {
    this.registry.register({}, undefined);
  }

  private collected(): void {
    if (this.closed) return;
    this.ended++;
    this.into.heapAfterGcBytes = v8.getHeapStatistics().used_heap_size;
    this.plant();
  }

  close(): void {
    this.closed = true;
  }
}
