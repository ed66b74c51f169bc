// Every metric a worker keeps, with the names it goes out under: one entry per metric. A new
// counter is one line in `workerCounters` (and the line of code that counts it); the worker's
// counters, the readers, /metrics and CloudWatch all follow from this table.

/** The names on the dashboard, in the alarms and in the docs: one list, used by all three. */
export const metricNames = {
  requests: 'Requests',
  serverRendered: 'ServerRendered',
  shell: 'Shell',
  shed: 'Shed',
  status4xx: 'Status4xx',
  status5xx: 'Status5xx',
  inFlightMax: 'InFlightMax',
  renderTime: 'RenderTime',
  responseTime: 'ResponseTime',
  eventLoopDelay: 'EventLoopDelay',
  majorGcPause: 'MajorGcPause',
  heapUsed: 'HeapUsed',
  rss: 'RSS',
  workerRestarts: 'WorkerRestarts',
  nginxShell: 'NginxShell',
  nginxBusy503: 'NginxBusy503',
  nginxRateLimited: 'NginxRateLimited',
  nginxLastGood: 'NginxLastGood',
  lastGoodWritten: 'LastGoodWritten',
  lastGoodPurged: 'LastGoodPurged',
  lastGoodSwept: 'LastGoodSwept',
  lastGoodCopies: 'LastGoodCopies',
  lastGoodWriteTime: 'LastGoodWriteTime',
  workers: 'Workers',
  heartbeat: 'Heartbeat',
  hostCpu: 'HostCPUUtilization',
  hostMemory: 'HostMemoryUtilization',
  metricsDropped: 'MetricsDropped',
  contentStoreReads: 'ContentStoreReads',
  contentRebuilt: 'ContentRebuilt',
  contentPreviousServed: 'ContentPreviousServed',
  edgePurgeTags: 'EdgePurgeTags',
  edgePurgeFailures: 'EdgePurgeFailures',
  edgePurgeLag: 'EdgePurgeLag',
  edgePurgeBudgetLeft: 'EdgePurgeBudgetLeft',
} as const;

interface Exported {
  /** The CloudWatch metric name (one of metricNames). */
  readonly cloudwatch: string;
  /** The Prometheus series name. */
  readonly prometheus: string;
  readonly help: string;
  /** A counter of time rather than of events: kept in ms, sent to CloudWatch in ms, to Prometheus in seconds. */
  readonly unit?: 'Milliseconds';
  /**
   * A distribution whose longest value is judged against a threshold (a 50 ms stall): /metrics
   * gives every bucket of the histogram (a factor of about 1.19 apart), not every fourth (a factor of 2).
   */
  readonly everyBucket?: true;
}

/** Counters that only rise, from the worker's start; readers take differences. */
export const workerCounters = {
  requests: { cloudwatch: metricNames.requests, prometheus: 'kiosk_requests_total', help: 'Requests received (every kind: pages, API, assets)' },
  ssr: { cloudwatch: metricNames.serverRendered, prometheus: 'kiosk_server_rendered_total', help: 'Pages rendered on the server' },
  shell: { cloudwatch: metricNames.shell, prometheus: 'kiosk_shell_total', help: 'Pages answered with the shell because the worker was over SSR_QUEUE_LIMIT' },
  shed: { cloudwatch: metricNames.shed, prometheus: 'kiosk_shed_total', help: 'Requests answered 503 because the worker was over SHED_QUEUE_LIMIT' },
  status4xx: { cloudwatch: metricNames.status4xx, prometheus: 'kiosk_responses_4xx_total', help: 'Responses with a 4xx status' },
  status5xx: { cloudwatch: metricNames.status5xx, prometheus: 'kiosk_responses_5xx_total', help: 'Responses with a 5xx status' },
  // Counted by the content cache (server/content/cache.ts), into the worker's counters.
  contentStoreReads: {
    cloudwatch: metricNames.contentStoreReads,
    prometheus: 'kiosk_content_store_reads_total',
    help: 'Reads the content cache sent to the store: first reads, what a change dropped, what was evicted',
  },
  contentRebuilt: {
    cloudwatch: metricNames.contentRebuilt,
    prometheus: 'kiosk_content_rebuilt_total',
    help: 'Kept answers (articles, lists) the content cache read again because a change made them stale',
  },
  contentPreviousServed: {
    cloudwatch: metricNames.contentPreviousServed,
    prometheus: 'kiosk_content_previous_served_total',
    help: 'Lists a change dropped, handed out as they were to readers who came while the list was read again',
  },
  // Counted by the last good copies' writer (server/last-good/budget.ts): ms, not a count.
  lastGoodWriteMs: {
    cloudwatch: metricNames.lastGoodWriteTime,
    prometheus: 'kiosk_last_good_write_seconds_total',
    help: 'Time the worker spent writing last good copies of pages (the timed synchronous write), in seconds',
    unit: 'Milliseconds',
  },
} as const satisfies Record<string, Exported>;

/** Latency distributions (fixed-bucket histograms that only fill up); readers take differences. */
export const workerDistributions = {
  renderMs: { cloudwatch: metricNames.renderTime, prometheus: 'kiosk_render_seconds', help: 'Server render time of a page (store, data, React, document)' },
  responseMs: {
    cloudwatch: metricNames.responseTime,
    prometheus: 'kiosk_response_seconds',
    help: 'Time from request to the response finishing, every request',
  },
  eventLoopDelayMs: {
    cloudwatch: metricNames.eventLoopDelay,
    prometheus: 'kiosk_event_loop_delay_seconds',
    help: "Event-loop delay: each 500 ms window's highest delay",
    everyBucket: true,
  },
  majorGcMs: {
    cloudwatch: metricNames.majorGcPause,
    prometheus: 'kiosk_major_gc_seconds',
    help: "Each major garbage collection (mark-compact) of a worker: the event loop's highest delay in the 500 ms window it ended in",
    everyBucket: true,
  },
} as const satisfies Record<string, Exported>;

export type CounterName = keyof typeof workerCounters;
export type DistributionName = keyof typeof workerDistributions;
export const counterNames = Object.keys(workerCounters) as CounterName[];

/** A counter's CloudWatch unit: a count, or (a counter of time) milliseconds. */
export function counterUnit(name: CounterName): 'Count' | 'Milliseconds' {
  const entry: Exported = workerCounters[name];
  return entry.unit ?? 'Count';
}

/** A counter's value as Prometheus reads it: a count as it is, a time in seconds. */
export function prometheusCounterValue(name: CounterName, value: number): number {
  return counterUnit(name) === 'Milliseconds' ? value / 1_000 : value;
}
export const distributionNames = Object.keys(workerDistributions) as DistributionName[];
