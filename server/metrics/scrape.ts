import cluster from 'node:cluster';
import { bucketCount, bucketUpperBound, type Histogram as Distribution } from './histogram';
import { counterNames, distributionNames, prometheusCounterValue, workerCounters, workerDistributions } from './catalog';
import type { MetricsLedger, MetricTotals } from './totals';
import type { WorkerMetrics } from './worker-metrics';

// A worker's side of a /metrics scrape (the primary's is in prometheus.ts). The primary asks
// every worker over the cluster's IPC channel; each answers with its metric families as plain
// data, in the shape prom-client's registries give as JSON, and the primary adds them up
// (AggregatorRegistry.aggregate) and writes the text. A worker does not load prom-client, which
// would sit in its heap for every major collection to mark only to format numbers the primary
// formats anyway (with the PostgreSQL driver, which a SQLite worker no longer loads either: about
// 7,000 objects and 2.4 MB of a warm worker's heap). Nothing here runs per request: the values
// are read from the same counters CloudWatch reads.

/** The primary's question, and a worker's answer. */
export const scrapeRequest = 'kiosk:metrics-request';
export const scrapeAnswer = 'kiosk:metrics-answer';

/** How a family's values from several workers are added up (prom-client's aggregator names). */
export type Aggregator = 'sum' | 'max';

export interface MetricValue {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  /** The series' name where it is not the family's (a histogram's _bucket, _sum, _count). */
  readonly metricName?: string;
}

/** One metric family as prom-client's getMetricsAsJSON gives it. */
export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator: Aggregator;
  readonly values: readonly MetricValue[];
}

export interface ScrapeRequest {
  readonly type: typeof scrapeRequest;
  readonly id: number;
}

export interface ScrapeAnswer {
  readonly type: typeof scrapeAnswer;
  readonly id: number;
  readonly families: readonly MetricFamily[];
}

/** Whether an IPC message is one of ours of this type. */
function isMessage<T extends { readonly type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

export function isScrapeAnswer(message: unknown): message is ScrapeAnswer {
  return isMessage<ScrapeAnswer>(message, scrapeAnswer);
}

/** Every 4th bucket of the internal histogram: le = 0.1 ms · 2^k, exact bucket edges, 21 of them. */
const prometheusBucketsMs = Array.from({ length: 21 }, (_, k) => bucketUpperBound(4 * k));
/** Every bucket of it (le = 0.1 ms · 2^(k/4)), for the distributions judged against a threshold. */
const everyBucketMs = Array.from({ length: bucketCount }, (_, k) => bucketUpperBound(k));

/** A Prometheus histogram from one of our fixed-bucket distributions: cumulative buckets in seconds, sum and count. */
export function histogramFamily(name: string, help: string, distribution: Distribution, bucketsMs: readonly number[]): MetricFamily {
  const { count, sumMs, values, counts } = distribution.snapshot();
  const bucket = `${name}_bucket`;
  const out: MetricValue[] = [];
  let cumulative = 0;
  let i = 0;
  for (const le of bucketsMs) {
    // Bucket bounds come from the same function, so this compares equal values; the margin is for rounding.
    while (i < values.length && values[i]! <= le * (1 + 1e-9)) cumulative += counts[i++]!;
    out.push({ labels: { le: le / 1_000 }, value: cumulative, metricName: bucket });
  }
  out.push({ labels: { le: '+Inf' }, value: count, metricName: bucket });
  out.push({ labels: {}, value: sumMs / 1_000, metricName: `${name}_sum` });
  out.push({ labels: {}, value: count, metricName: `${name}_count` });
  return { name, help, type: 'histogram', aggregator: 'sum', values: out };
}

export interface CloudWatchStats {
  readonly buffered: number;
  readonly dropped: number;
  readonly sent: number;
}

/**
 * One worker's families, read anew at each call. Counters and histograms are the worker's own,
 * which only rise; each scrape first takes the interval's peaks (MetricsLedger.roll) for the
 * in-flight maximum.
 */
export function workerScrape(ledger: MetricsLedger, totals: MetricTotals, cloudwatch: CloudWatchStats | null): () => MetricFamily[] {
  const metrics: WorkerMetrics = ledger.metrics;
  const one = (name: string, help: string, type: 'counter' | 'gauge', aggregator: Aggregator, value: number): MetricFamily => ({
    name,
    help,
    type,
    aggregator,
    values: [{ labels: {}, value }],
  });
  return () => {
    ledger.roll();
    const families: MetricFamily[] = [one('kiosk_workers_reporting', 'Workers that answered this scrape', 'gauge', 'sum', 1)];
    // Counters and histograms only rise, as Prometheus wants them: read as they are.
    for (const name of counterNames) {
      const { prometheus, help } = workerCounters[name];
      families.push(one(prometheus, help, 'counter', 'sum', prometheusCounterValue(name, metrics.count[name])));
    }
    families.push(one('kiosk_in_flight', 'Requests in flight now, all workers', 'gauge', 'sum', metrics.inFlight));
    const inFlightMax = totals.inFlightMax;
    totals.inFlightMax = metrics.inFlight;
    families.push(one('kiosk_in_flight_max', 'Highest in-flight count of any one worker since the previous scrape', 'gauge', 'max', inFlightMax));
    for (const name of distributionNames) {
      const { prometheus, help } = workerDistributions[name];
      const buckets = 'everyBucket' in workerDistributions[name] ? everyBucketMs : prometheusBucketsMs;
      families.push(histogramFamily(prometheus, help, metrics[name], buckets));
    }
    families.push(one('kiosk_heap_used_bytes', 'V8 heap in use, summed over workers', 'gauge', 'sum', heapUsedBytes()));
    families.push(one('kiosk_worker_rss_bytes', 'Resident memory of the workers, summed', 'gauge', 'sum', process.memoryUsage.rss()));
    families.push(
      one('kiosk_heap_after_gc_bytes', "V8 heap in use right after each worker's latest major collection, summed", 'gauge', 'sum', metrics.heapAfterGcBytes),
    );
    if (cloudwatch) {
      families.push(one('kiosk_cloudwatch_buffered_datums', 'Metric data waiting to be sent to CloudWatch, all workers', 'gauge', 'sum', cloudwatch.buffered));
      families.push(
        one(
          'kiosk_cloudwatch_dropped_datums_total',
          'Metric data dropped: buffer full while CloudWatch was slow or down, or refused',
          'counter',
          'sum',
          cloudwatch.dropped,
        ),
      );
      families.push(one('kiosk_cloudwatch_sent_datums_total', 'Metric data CloudWatch accepted', 'counter', 'sum', cloudwatch.sent));
    }
    return families;
  };
}

/** In a cluster worker: answer the primary's requests with these families. */
export function answerClusterScrapes(read: () => MetricFamily[]): void {
  if (!cluster.isWorker) return;
  process.on('message', (message: unknown) => {
    if (!isMessage<ScrapeRequest>(message, scrapeRequest)) return;
    const answer: ScrapeAnswer = { type: scrapeAnswer, id: message.id, families: read() };
    // A channel closed meanwhile (the worker is going): the primary leaves it out when it exits.
    process.send?.(answer, undefined, {}, () => {});
  });
}

/**
 * The heap in use. A process started with --expose-gc (npm run bench:soak, never production)
 * collects first, so the figure is what is live rather than what awaits collection.
 */
function heapUsedBytes(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}
