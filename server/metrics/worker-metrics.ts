import type { EventLoopDelaySampler } from './event-loop';
import { Histogram, type HistogramSnapshot } from './histogram';

type EventLoopReadings = Pick<EventLoopDelaySampler, 'delayMs' | 'maxDelayMs' | 'windowMaxMs'>;

export type RenderMode = 'ssr' | 'shell' | 'shed';

export interface MetricsSnapshot {
  requests: number;
  ssr: number;
  shell: number;
  shed: number;
  status4xx: number;
  status5xx: number;
  inFlight: number;
  inFlightMax: number;
  renderMs: HistogramSnapshot;
  responseMs: HistogramSnapshot;
  eventLoopDelayMs: number;
  eventLoopDelayMaxMs: number;
}

/**
 * One worker's counters and distributions. Everything here is a number or a fixed-size
 * histogram, so recording is O(1) and allocates nothing. A reader (the CloudWatch flusher,
 * /metrics, tests) takes a snapshot and may reset the interval's counts.
 */
export class WorkerMetrics {
  requests = 0;
  ssr = 0;
  shell = 0;
  shed = 0;
  status4xx = 0;
  status5xx = 0;
  inFlight = 0;
  /** Highest in-flight count since the last reset. */
  inFlightMax = 0;
  readonly renderMs = new Histogram();
  readonly responseMs = new Histogram();
  /** The sampler's per-window maximum delays; filled on the sampler's timer, reset with the rest. */
  readonly eventLoopDelayMs: Histogram;

  constructor(private readonly eventLoop: EventLoopReadings = { delayMs: 0, maxDelayMs: 0, windowMaxMs: new Histogram() }) {
    this.eventLoopDelayMs = eventLoop.windowMaxMs;
  }

  countMode(mode: RenderMode): void {
    this[mode] += 1;
  }

  countStatus(status: number): void {
    if (status >= 500) this.status5xx += 1;
    else if (status >= 400) this.status4xx += 1;
  }

  snapshot(): MetricsSnapshot {
    return {
      requests: this.requests,
      ssr: this.ssr,
      shell: this.shell,
      shed: this.shed,
      status4xx: this.status4xx,
      status5xx: this.status5xx,
      inFlight: this.inFlight,
      inFlightMax: this.inFlightMax,
      renderMs: this.renderMs.snapshot(),
      responseMs: this.responseMs.snapshot(),
      eventLoopDelayMs: this.eventLoop.delayMs,
      eventLoopDelayMaxMs: this.eventLoop.maxDelayMs,
    };
  }

  /** Starts a new interval: counts and distributions go to zero; in-flight stays as it is. */
  reset(): void {
    this.requests = 0;
    this.ssr = 0;
    this.shell = 0;
    this.shed = 0;
    this.status4xx = 0;
    this.status5xx = 0;
    this.inFlightMax = this.inFlight;
    this.renderMs.reset();
    this.responseMs.reset();
    this.eventLoopDelayMs.reset();
  }
}
