import cluster from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import { answer } from '../answer';
import { cacheControl } from '../cache-policy';
import { describeError, log } from '../log';
import { contentTypes } from '../response-policy';
import { bucketCount, bucketUpperBound, type Histogram as Distribution } from './histogram';
import { counterNames, distributionNames, prometheusCounterValue, workerCounters, workerDistributions } from './catalog';
import type { MetricsLedger, MetricTotals } from './totals';
import type { WorkerMetrics } from './worker-metrics';

// /metrics for Prometheus, for the whole cluster in one answer. The workers share the public
// port and any one of them would answer a scrape alone, so the primary serves it on a port
// of its own, bound to 127.0.0.1 (never reachable from outside the instance, with or without
// Nginx): it asks every worker for its numbers over the cluster's IPC channel and adds them up
// (prom-client's AggregatorRegistry). Workers do the work of a scrape on their event loop,
// but nothing per request: the values are read from the same counters CloudWatch reads.

/** Every 4th bucket of the internal histogram: le = 0.1 ms · 2^k, exact bucket edges, 21 of them. */
const prometheusBucketsMs = Array.from({ length: 21 }, (_, k) => bucketUpperBound(4 * k));
/** Every bucket of it (le = 0.1 ms · 2^(k/4)), for the distributions judged against a threshold. */
const everyBucketMs = Array.from({ length: bucketCount }, (_, k) => bucketUpperBound(k));

/**
 * A Prometheus histogram read from one of our fixed-bucket distributions at scrape time.
 * prom-client's own Histogram can only observe values one at a time.
 */
class DistributionHistogram extends client.Histogram {
  constructor(
    private readonly metricName: string,
    private readonly helpText: string,
    private readonly read: () => Distribution,
    registry: client.Registry,
    private readonly bucketsMs: readonly number[],
  ) {
    super({ name: metricName, help: helpText, buckets: bucketsMs.map((ms) => ms / 1_000), registers: [registry] });
  }

  override async get() {
    const { count, sumMs, values, counts } = this.read().snapshot();
    const bucket = `${this.metricName}_bucket`;
    const out: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    let cumulative = 0;
    let i = 0;
    for (const le of this.bucketsMs) {
      // Bucket bounds come from the same function, so this compares equal values; the margin is for rounding.
      while (i < values.length && values[i]! <= le * (1 + 1e-9)) cumulative += counts[i++]!;
      out.push({ labels: { le: le / 1_000 }, value: cumulative, metricName: bucket });
    }
    out.push({ labels: { le: '+Inf' }, value: count, metricName: bucket });
    out.push({ labels: {}, value: sumMs / 1_000, metricName: `${this.metricName}_sum` });
    out.push({ labels: {}, value: count, metricName: `${this.metricName}_count` });
    return {
      name: this.metricName,
      help: this.helpText,
      // prom-client's typings declare MetricType a numeric enum; at run time, and in the text format, it is this string.
      type: 'histogram' as unknown as client.MetricType,
      values: out,
      aggregator: 'sum' as const,
      collect: () => {},
    };
  }

  /** The registry's text output reads this in place of get() when it exists. */
  getForPromString() {
    return this.get();
  }
}

export interface CloudWatchStats {
  readonly buffered: number;
  readonly dropped: number;
  readonly sent: number;
}

/**
 * One worker's registry. Counters and histograms are the worker's own, which only rise; each
 * scrape first takes the interval's peaks (MetricsLedger.roll) for the in-flight maximum.
 */
export function workerRegistry(ledger: MetricsLedger, totals: MetricTotals, cloudwatch: CloudWatchStats | null): client.Registry {
  const registry = new client.Registry();
  const metrics: WorkerMetrics = ledger.metrics;
  const registers = [registry];
  let rolledFor = -1;
  let scrape = 0;
  // One scrape reads many metrics; roll once per scrape, not once per metric.
  const rolled = () => {
    if (rolledFor !== scrape) {
      ledger.roll();
      rolledFor = scrape;
    }
  };
  const counter = (name: string, help: string, read: () => number) =>
    new client.Counter({
      name,
      help,
      registers,
      collect() {
        rolled();
        this.reset();
        this.inc(read());
      },
    });
  const gauge = (name: string, help: string, aggregator: client.Aggregator, read: () => number) =>
    new client.Gauge({
      name,
      help,
      registers,
      aggregator,
      collect() {
        rolled();
        this.set(read());
      },
    });

  // Declared first so that its collect() runs first and the others read the same roll.
  new client.Gauge({
    name: 'kiosk_workers_reporting',
    help: 'Workers that answered this scrape',
    registers,
    collect() {
      scrape += 1;
      rolled();
      this.set(1);
    },
  });
  // Counters and histograms only rise, as Prometheus wants them: read as they are.
  for (const name of counterNames) counter(workerCounters[name].prometheus, workerCounters[name].help, () => prometheusCounterValue(name, metrics.count[name]));
  gauge('kiosk_in_flight', 'Requests in flight now, all workers', 'sum', () => metrics.inFlight);
  gauge('kiosk_in_flight_max', 'Highest in-flight count of any one worker since the previous scrape', 'max', () => {
    const max = totals.inFlightMax;
    totals.inFlightMax = metrics.inFlight;
    return max;
  });
  for (const name of distributionNames) {
    const { prometheus, help } = workerDistributions[name];
    const buckets = 'everyBucket' in workerDistributions[name] ? everyBucketMs : prometheusBucketsMs;
    new DistributionHistogram(prometheus, help, () => metrics[name], registry, buckets);
  }
  gauge('kiosk_heap_used_bytes', 'V8 heap in use, summed over workers', 'sum', heapUsedBytes);
  gauge('kiosk_worker_rss_bytes', 'Resident memory of the workers, summed', 'sum', () => process.memoryUsage.rss());
  gauge('kiosk_heap_after_gc_bytes', "V8 heap in use right after each worker's latest major collection, summed", 'sum', () => metrics.heapAfterGcBytes);
  if (cloudwatch) {
    gauge('kiosk_cloudwatch_buffered_datums', 'Metric data waiting to be sent to CloudWatch, all workers', 'sum', () => cloudwatch.buffered);
    counter(
      'kiosk_cloudwatch_dropped_datums_total',
      'Metric data dropped: buffer full while CloudWatch was slow or down, or refused',
      () => cloudwatch.dropped,
    );
    counter('kiosk_cloudwatch_sent_datums_total', 'Metric data CloudWatch accepted', () => cloudwatch.sent);
  }
  return registry;
}

/** In a cluster worker: answer the primary's requests for this registry. */
export function answerClusterScrapes(registry: client.Registry): void {
  if (!cluster.isWorker) return;
  client.AggregatorRegistry.setRegistries([registry]);
  // The constructor is what installs the worker's IPC listener.
  new client.AggregatorRegistry();
}

export interface MetricsEndpoint {
  port: number;
  close(): Promise<void>;
}

/** In the primary: GET /metrics on 127.0.0.1:port, the workers' numbers added up, then the primary's own. */
export async function serveClusterMetrics(port: number, primaryRegistry: client.Registry): Promise<MetricsEndpoint> {
  const aggregator = new client.AggregatorRegistry();
  // Written like every other answer (server/answer.ts): never kept by a cache.
  type Reply = { status: number; headers: Record<string, string>; body: string };
  const text = (status: number, body: string): Reply => ({
    status,
    headers: { 'Content-Type': contentTypes.text, 'Cache-Control': cacheControl.noStore },
    body,
  });
  const server = http.createServer((req, res) => {
    const send = ({ status, headers, body }: Reply) => answer(req, res, status, headers, body);
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      send(text(404, 'not found\n'));
      return;
    }
    Promise.all([aggregator.clusterMetrics(), primaryRegistry.metrics()]).then(
      ([workers, primary]) =>
        send({ status: 200, headers: { 'Content-Type': aggregator.contentType, 'Cache-Control': cacheControl.noStore }, body: `${workers}\n${primary}` }),
      (error: unknown) => {
        log.warn('/metrics: the workers did not answer', describeError(error));
        send(text(503, 'workers did not answer\n'));
      },
    );
  });
  // Never keeps the primary alive on its own: shutdown ends when the workers have gone.
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The heap in use. A process started with --expose-gc (npm run bench:soak, never production)
 * collects first, so the figure is what is live rather than what awaits collection.
 */
function heapUsedBytes(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}
