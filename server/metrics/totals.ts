import { Histogram } from './histogram';
import type { WorkerMetrics } from './worker-metrics';

// WorkerMetrics counts one interval and is reset when it is read. Two readers want it at
// their own pace: the CloudWatch flusher (every METRICS_FLUSH_S, then starts over) and
// /metrics (whenever Prometheus scrapes, counters that only ever rise). Neither may reset
// what the other has not seen, so the interval is closed in one place and added to a
// running total per reader.

/** One reader's share of a worker's metrics: counts and distributions added up since it last cleared them. */
export class MetricTotals {
  requests = 0;
  ssr = 0;
  shell = 0;
  shed = 0;
  status4xx = 0;
  status5xx = 0;
  /** Highest in-flight count since the reader last cleared it. */
  inFlightMax = 0;
  readonly renderMs = new Histogram();
  readonly responseMs = new Histogram();
  readonly eventLoopDelayMs = new Histogram();

  add(interval: WorkerMetrics): void {
    this.requests += interval.requests;
    this.ssr += interval.ssr;
    this.shell += interval.shell;
    this.shed += interval.shed;
    this.status4xx += interval.status4xx;
    this.status5xx += interval.status5xx;
    if (interval.inFlightMax > this.inFlightMax) this.inFlightMax = interval.inFlightMax;
    this.renderMs.merge(interval.renderMs);
    this.responseMs.merge(interval.responseMs);
    this.eventLoopDelayMs.merge(interval.eventLoopDelayMs);
  }

  clear(): void {
    this.requests = 0;
    this.ssr = 0;
    this.shell = 0;
    this.shed = 0;
    this.status4xx = 0;
    this.status5xx = 0;
    this.inFlightMax = 0;
    this.renderMs.reset();
    this.responseMs.reset();
    this.eventLoopDelayMs.reset();
  }
}

/** Closes a worker's metrics intervals on behalf of every reader; called off the request path only. */
export class MetricsLedger {
  private readonly readers: MetricTotals[] = [];

  constructor(readonly metrics: WorkerMetrics) {}

  /** A new reader, starting from now. */
  reader(): MetricTotals {
    const totals = new MetricTotals();
    this.readers.push(totals);
    return totals;
  }

  /** Ends the current interval: every reader's totals take it in, then the worker's counters start over. */
  roll(): void {
    for (const totals of this.readers) totals.add(this.metrics);
    this.metrics.reset();
  }
}
