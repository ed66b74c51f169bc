import { constants, monitorEventLoopDelay, PerformanceObserver, type ELDHistogram, type PerformanceEntry } from 'node:perf_hooks';
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
  }

  close(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

/**
 * Major garbage collections as V8 reports them (perf_hooks' gc entries, delivered after the
 * collection, off the request path): each one's duration into a histogram, and the heap in use
 * right after it, which is what the worker really keeps. Minor collections are many and short,
 * and left out.
 */
export class GcObserver {
  private readonly observer: PerformanceObserver;

  constructor(into: { majorGcMs: Histogram; heapAfterGcBytes: number }) {
    this.observer = new PerformanceObserver((list) => {
      let major = false;
      for (const entry of list.getEntries()) {
        if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
        into.majorGcMs.record(entry.duration);
        major = true;
      }
      if (major) into.heapAfterGcBytes = v8.getHeapStatistics().used_heap_size;
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  close(): void {
    this.observer.disconnect();
  }
}
