import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
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
