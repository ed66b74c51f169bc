import { distributionNames, type CounterName, type DistributionName } from './catalog';
import { Histogram } from './histogram';
import type { WorkerMetrics } from './worker-metrics';

// A worker's counters and histograms only rise. Two readers want them at their own pace: the
// CloudWatch flusher (every METRICS_FLUSH_S, the interval since its last flush) and /metrics
// (whenever Prometheus scrapes: the counters as they are). Each reader remembers what it saw
// when it last cleared and takes differences, so no reader takes anything from another. Peaks
// (the highest in-flight count, each distribution's maximum) cannot be taken as differences:
// the ledger hands the peak of each closed interval to every reader.

/** One reader's share of a worker's metrics: what happened since it last cleared. */
export class MetricTotals {
  readonly #counts: Record<CounterName, number>;
  readonly #distributions: Record<DistributionName, Histogram>;
  readonly #maxMs: Record<DistributionName, number>;
  /** Highest in-flight count since the reader last cleared it. */
  inFlightMax = 0;

  constructor(private readonly metrics: WorkerMetrics) {
    this.#counts = { ...metrics.count };
    this.#distributions = Object.fromEntries(distributionNames.map((name) => [name, new Histogram()])) as Record<DistributionName, Histogram>;
    this.#maxMs = Object.fromEntries(distributionNames.map((name) => [name, 0])) as Record<DistributionName, number>;
    for (const name of distributionNames) this.#distributions[name].copyFrom(metrics[name]);
  }

  count(name: CounterName): number {
    return this.metrics.count[name] - this.#counts[name];
  }

  /** The observations since the reader last cleared, with their exact maximum. */
  distribution(name: DistributionName): Histogram {
    return Histogram.difference(this.metrics[name], this.#distributions[name], this.#maxMs[name]);
  }

  /** Takes in the peaks of an interval the ledger closed. */
  addPeaks(inFlightMax: number, maxMs: Readonly<Record<DistributionName, number>>): void {
    if (inFlightMax > this.inFlightMax) this.inFlightMax = inFlightMax;
    for (const name of distributionNames) if (maxMs[name] > this.#maxMs[name]) this.#maxMs[name] = maxMs[name];
  }

  /** From now on, differences start here. */
  clear(): void {
    Object.assign(this.#counts, this.metrics.count);
    for (const name of distributionNames) {
      this.#distributions[name].copyFrom(this.metrics[name]);
      this.#maxMs[name] = 0;
    }
    this.inFlightMax = 0;
  }
}

/** Hands the peaks of each interval to every reader; called off the request path only. */
export class MetricsLedger {
  private readonly readers: MetricTotals[] = [];

  constructor(readonly metrics: WorkerMetrics) {}

  /** A new reader, starting from now: the peaks so far go to the readers before it. */
  reader(): MetricTotals {
    this.roll();
    const totals = new MetricTotals(this.metrics);
    this.readers.push(totals);
    return totals;
  }

  /** Ends the current interval of peaks: every reader takes them in, then they start over. */
  roll(): void {
    const maxMs = Object.fromEntries(distributionNames.map((name) => [name, this.metrics[name].takeWindowMax()])) as Record<DistributionName, number>;
    for (const totals of this.readers) totals.addPeaks(this.metrics.inFlightMax, maxMs);
    this.metrics.inFlightMax = this.metrics.inFlight;
  }
}
