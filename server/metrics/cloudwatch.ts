import type { Dimension, MetricDatum, StandardUnit } from '@aws-sdk/client-cloudwatch';
import type { CloudWatchConfig, MetricsConfig } from '../config';
import { describeError, log as defaultLog } from '../log';
import type { Histogram } from './histogram';
import { resolveInstance } from './instance';
import { counterNames, counterUnit, distributionNames, metricNames, workerCounters, workerDistributions } from './catalog';
import type { MetricTotals } from './totals';

export { metricNames };

// Every process sends its own numbers to CloudWatch with PutMetricData, on a timer and never
// from a request. CloudWatch adds up what several processes and instances send under the
// same name and dimensions (sums, maxima, and percentiles from Values/Counts), so a worker
// sends its own counts and distributions as they are and the dashboard reads the totals.
// When CloudWatch is slow or down, data waits in a bounded buffer; past the cap the oldest
// is dropped and counted, and the site never waits for any of it.

export const dimensionNames = { environment: 'Environment', instance: 'Instance' } as const;

/** PutMetricData's limits: metrics per request, values per metric, request size (1 MB, with room for the envelope). */
export const putMetricDataLimits = { datums: 1_000, values: 150, bytes: 1_000_000 - 64 * 1024 };

export type Sample = { name: string; unit: StandardUnit; value: number } | { name: string; unit: StandardUnit; values: number[]; counts: number[] };

/**
 * A distribution as CloudWatch's Values/Counts: each non-empty bucket's upper bound and count,
 * the top bucket's bound lowered to the largest value seen, so Maximum is exact and the
 * percentiles err by at most one bucket (19%) upwards, as Histogram.percentile does.
 * Null when nothing was recorded: no requests means no latency, not a latency of 0.
 */
export function distributionSample(name: string, histogram: Histogram): Sample | null {
  const { count, maxMs, values, counts } = histogram.snapshot();
  if (count === 0) return null;
  values[values.length - 1] = Math.min(values[values.length - 1]!, maxMs);
  return { name, unit: 'Milliseconds', values, counts };
}

/** What a worker sends each flush, from its reader's totals: every counter and distribution of the catalog. */
export function workerSamples(totals: MetricTotals, memory: Pick<NodeJS.MemoryUsage, 'heapUsed' | 'rss'>): Sample[] {
  const samples: (Sample | null)[] = [
    ...counterNames.map((name): Sample => ({ name: workerCounters[name].cloudwatch, unit: counterUnit(name), value: totals.count(name) })),
    { name: metricNames.inFlightMax, unit: 'Count', value: totals.inFlightMax },
    ...distributionNames.map((name) => distributionSample(workerDistributions[name].cloudwatch, totals.distribution(name))),
    { name: metricNames.heapUsed, unit: 'Bytes', value: memory.heapUsed },
    { name: metricNames.rss, unit: 'Bytes', value: memory.rss },
  ];
  return samples.filter((s): s is Sample => s !== null);
}

/**
 * One datum per sample and dimension set; a distribution with more than 150 buckets is split
 * into several datums with the same name and time, which CloudWatch adds together.
 */
export function toDatums(samples: readonly Sample[], dimensionSets: readonly Dimension[][], timestamp: Date, storageResolutionS: 1 | 60): MetricDatum[] {
  const datums: MetricDatum[] = [];
  for (const sample of samples) {
    for (const dimensions of dimensionSets) {
      const common = { MetricName: sample.name, Dimensions: dimensions, Unit: sample.unit, Timestamp: timestamp, StorageResolution: storageResolutionS };
      if ('value' in sample) {
        datums.push({ ...common, Value: sample.value });
        continue;
      }
      for (let i = 0; i < sample.values.length; i += putMetricDataLimits.values) {
        datums.push({
          ...common,
          Values: sample.values.slice(i, i + putMetricDataLimits.values),
          Counts: sample.counts.slice(i, i + putMetricDataLimits.values),
        });
      }
    }
  }
  return datums;
}

/** A generous estimate of a datum's share of the request body (JSON, timestamps as ISO strings). */
export function datumBytes(datum: MetricDatum): number {
  return JSON.stringify(datum).length + 1;
}

/** Takes from the front of `queue` as many datums as one PutMetricData request may carry. */
export function takeBatch(queue: MetricDatum[], limits = putMetricDataLimits): MetricDatum[] {
  let count = 0;
  let bytes = 0;
  while (count < queue.length && count < limits.datums) {
    const size = datumBytes(queue[count]!);
    if (count > 0 && bytes + size > limits.bytes) break;
    bytes += size;
    count += 1;
  }
  return queue.splice(0, count);
}

export type SendMetrics = (datums: MetricDatum[], signal: AbortSignal) => Promise<void>;

export interface PublisherOptions {
  send: SendMetrics;
  /** The dimension sets every sample is sent under; may still be resolving (instance metadata). */
  dimensionSets: Promise<Dimension[][]> | Dimension[][];
  /** The samples of the interval that just ended; called once per flush. */
  collect: () => Sample[];
  flushIntervalS: number;
  storageResolutionS: 1 | 60;
  bufferMaxDatums: number;
  timeoutMs: number;
  log?: typeof defaultLog;
}

/** How often a failure that goes on, or a buffer that keeps overflowing, is logged again. */
const logEveryMs = 60_000;

export class CloudWatchPublisher {
  /** Datums dropped since start: buffer overflow while CloudWatch was away, or refused by it. */
  dropped = 0;
  /** Datums sent and accepted since start. */
  sent = 0;
  private droppedUnreported = 0;
  private readonly queue: MetricDatum[] = [];
  private inFlight = 0;
  private sending: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failingSince: number | null = null;
  private failures = 0;
  private lastFailureLog = 0;
  private lastDropLog = 0;
  private droppedSinceLog = 0;
  private readonly log: typeof defaultLog;

  constructor(private readonly options: PublisherOptions) {
    this.log = options.log ?? defaultLog;
  }

  /** Datums waiting, including a request in flight: at most the cap plus one request. */
  get buffered(): number {
    return this.queue.length + this.inFlight;
  }

  /**
   * Flushes on wall-clock multiples of the interval (every minute on the minute by default),
   * each stamped with the start of the interval it counts: every process then puts exactly one
   * datum in each CloudWatch period, and a per-minute Sum is never a drifting 0 or 2 flushes.
   */
  start(): this {
    const intervalMs = this.options.flushIntervalS * 1_000;
    this.scheduleAt((Math.floor(Date.now() / intervalMs) + 1) * intervalMs);
    return this;
  }

  private scheduleAt(at: number) {
    const intervalMs = this.options.flushIntervalS * 1_000;
    this.timer = setTimeout(
      () => {
        let next = at + intervalMs;
        // After a stall longer than the interval, carry on from the next boundary still ahead.
        if (next <= Date.now()) next = (Math.floor(Date.now() / intervalMs) + 1) * intervalMs;
        this.scheduleAt(next);
        void this.flush(new Date(at - intervalMs));
      },
      Math.max(0, at - Date.now()),
    );
    this.timer.unref();
  }

  /** Ends the interval: its samples join the queue, and the queue is sent unless a send is already under way. */
  async flush(timestamp = this.intervalStart()): Promise<void> {
    try {
      const dimensionSets = await this.options.dimensionSets;
      const samples = this.options.collect();
      samples.push({ name: metricNames.metricsDropped, unit: 'Count', value: this.droppedUnreported });
      this.droppedUnreported = 0;
      this.queue.push(...toDatums(samples, dimensionSets, timestamp, this.options.storageResolutionS));
      this.trim();
    } catch (error) {
      this.log.error('collecting metrics failed', describeError(error));
    }
    this.sending ??= this.drain().finally(() => (this.sending = null));
    await this.sending;
  }

  private intervalStart(): Date {
    const intervalMs = this.options.flushIntervalS * 1_000;
    return new Date(Math.floor(Date.now() / intervalMs) * intervalMs);
  }

  /** Stops the timer and sends what is left, giving up after `withinMs`. */
  async close(withinMs: number): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let expire: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => (expire = setTimeout(resolve, Math.max(0, withinMs), 'expired')));
    const done = (async () => {
      if (this.sending) await this.sending;
      await this.flush();
    })();
    const outcome = await Promise.race([done, expired]);
    clearTimeout(expire);
    if (outcome === 'expired' || this.buffered > 0) {
      this.log.warn('metrics not sent to CloudWatch at shutdown', { datums: this.buffered, dropped: this.dropped });
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = takeBatch(this.queue);
      this.inFlight = batch.length;
      try {
        await this.sendWithin(batch);
        this.inFlight = 0;
        this.sent += batch.length;
        this.recovered();
      } catch (error) {
        this.inFlight = 0;
        if (refusedForGood(error)) {
          this.drop(batch.length);
          this.log.error('CloudWatch refused metric data; dropped it', { datums: batch.length, ...errorFields(error) });
          continue;
        }
        // Kept for the next flush, in order; the cap still holds.
        this.queue.unshift(...batch);
        this.trim();
        this.failed(error);
        return;
      }
    }
  }

  /** Aborts the call after timeoutMs, and stops waiting then even if the call ignores the abort. */
  private async sendWithin(batch: MetricDatum[]): Promise<void> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`no answer from CloudWatch within ${this.options.timeoutMs} ms`);
        error.name = 'TimeoutError';
        controller.abort(error);
        reject(error);
      }, this.options.timeoutMs);
    });
    try {
      await Promise.race([this.options.send(batch, controller.signal), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private trim() {
    const excess = this.queue.length - this.options.bufferMaxDatums;
    if (excess <= 0) return;
    this.queue.splice(0, excess);
    this.drop(excess);
    this.droppedSinceLog += excess;
    const now = Date.now();
    if (now - this.lastDropLog >= logEveryMs) {
      this.log.warn('CloudWatch metrics buffer full; dropped the oldest', {
        dropped: this.droppedSinceLog,
        droppedTotal: this.dropped,
        bufferMaxDatums: this.options.bufferMaxDatums,
      });
      this.lastDropLog = now;
      this.droppedSinceLog = 0;
    }
  }

  private drop(count: number) {
    this.dropped += count;
    this.droppedUnreported += count;
  }

  private failed(error: unknown) {
    const now = Date.now();
    this.failures += 1;
    this.failingSince ??= now;
    if (this.failures === 1 || now - this.lastFailureLog >= logEveryMs) {
      this.log.warn('sending metrics to CloudWatch failed; keeping them for the next flush', {
        failures: this.failures,
        failingForS: Math.round((now - this.failingSince) / 1_000),
        buffered: this.buffered,
        dropped: this.dropped,
        ...errorFields(error),
      });
      this.lastFailureLog = now;
    }
  }

  private recovered() {
    if (this.failingSince === null) return;
    this.log.info('sending metrics to CloudWatch again', { failures: this.failures, dropped: this.dropped });
    this.failingSince = null;
    this.failures = 0;
  }
}

interface ServiceError {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
}

/** A 400 that is not throttling: the same data would be refused again, so retrying only blocks the queue. */
function refusedForGood(error: unknown): boolean {
  const e = error as ServiceError;
  return e?.$fault === 'client' && e.$metadata?.httpStatusCode === 400 && !/throttl/i.test(e.name ?? '');
}

function errorFields(error: unknown) {
  const e = error as ServiceError;
  return { error: e?.message ?? String(error), name: e?.name, status: e?.$metadata?.httpStatusCode };
}

/** PutMetricData through the SDK, loaded only when CloudWatch is on. */
export function cloudWatchSender(config: CloudWatchConfig, namespace: string): SendMetrics {
  const loaded = import('@aws-sdk/client-cloudwatch').then(({ CloudWatchClient, PutMetricDataCommand }) => ({
    client: new CloudWatchClient({
      region: config.region,
      endpoint: config.endpoint ?? undefined,
      // Our own timeout bounds the whole call; a second attempt covers a dropped connection.
      maxAttempts: 2,
      requestHandler: { requestTimeout: config.timeoutMs, connectionTimeout: Math.min(config.timeoutMs, 2_000) },
    }),
    PutMetricDataCommand,
  }));
  // A failed import surfaces on the first send, like any other error.
  loaded.catch(() => {});
  return async (datums, signal) => {
    const { client, PutMetricDataCommand } = await loaded;
    await client.send(new PutMetricDataCommand({ Namespace: namespace, MetricData: datums }), { abortSignal: signal });
  };
}

/**
 * Each sample goes out twice: per instance, for the dashboard's lines, and for the whole
 * environment, which is what the alarms watch (an alarm names exact dimensions, and instances
 * come and go under autoscaling).
 */
export function dimensionSets(environment: string, instanceId: string): Dimension[][] {
  const env = { Name: dimensionNames.environment, Value: environment };
  return [[env, { Name: dimensionNames.instance, Value: instanceId }], [env]];
}

/** The publisher for one process, with the instance looked up in the background; null when CloudWatch is off. */
export function startCloudWatch(metrics: MetricsConfig, collect: () => Sample[], role: string): CloudWatchPublisher | null {
  const config = metrics.cloudwatch;
  if (!config) return null;
  const dimensions = resolveInstance({ endpoint: config.instanceMetadataEndpoint, disabled: config.instanceMetadataDisabled }).then((instance) => {
    defaultLog.info('sending metrics to CloudWatch', {
      role,
      namespace: metrics.namespace,
      environment: metrics.environment,
      instance: instance.id,
      instanceFrom: instance.source,
      region: config.region,
      endpoint: config.endpoint ?? 'AWS',
      flushIntervalS: config.flushIntervalS,
      storageResolutionS: config.storageResolutionS,
    });
    return dimensionSets(metrics.environment, instance.id);
  });
  return new CloudWatchPublisher({
    send: cloudWatchSender(config, metrics.namespace),
    dimensionSets: dimensions,
    collect,
    flushIntervalS: config.flushIntervalS,
    storageResolutionS: config.storageResolutionS,
    bufferMaxDatums: config.bufferMaxDatums,
    timeoutMs: config.timeoutMs,
  }).start();
}
