import type { Dimension, MetricDataQuery, PutMetricAlarmInput } from '@aws-sdk/client-cloudwatch';
import { dimensionNames, metricNames } from '@kiosk/surface';
import { scalingWidgets, type ScalingView } from './scaling';

// The dashboard and the alarms as data, built from the same metric names the servers send
// (server/metrics/cloudwatch.ts), so a renamed metric cannot leave a chart or an alarm
// watching nothing. Everything reads the environment-wide series (dimension Environment
// only); per-instance lines come from SEARCH, since instances come and go.

export interface MonitoringOptions {
  region: string;
  namespace: string;
  environment: string;
  /** Requests per second across the environment's instances above which the request-rate alarm fires. */
  maxRequestRatePerS: number;
  /** Share of pages answered with the shell, percent... */
  maxShellPercent: number;
  /** ...for this many minutes in a row. */
  shellMinutes: number;
  max5xxPerMinute: number;
  maxWorkerRssMiB: number;
  /** p90 of the event-loop delay windows' maxima. */
  maxEventLoopDelayMs: number;
  /** Drawn on the in-flight chart: where the shell starts. */
  ssrQueueLimit: number;
  /** SNS topics (or other alarm actions) in the origin's region, told when an origin alarm fires and when it clears. */
  alarmActions: string[];
  /** The CloudFront distribution in front of the environment; without it the edge charts and the edge alarm are left out, and so are the purge charts and alarms (nothing is purged). */
  distributionId?: string;
  /** Viewer requests per second at CloudFront above which the edge alarm pages. */
  maxEdgeRequestRatePerS: number;
  /** ...for this many minutes in a row. */
  edgeMinutes: number;
  /** Alarm actions in us-east-1, where CloudFront's metrics and so the edge alarm live. */
  edgeAlarmActions: string[];
  /** Age of the oldest change not yet sent to CloudFront (EdgePurgeLag), seconds, above which... */
  maxPurgeLagS: number;
  /** ...in this many of the last purgeLagOfMinutes minutes the purge alarm pages (with a distribution). */
  purgeLagMinutes: number;
  purgeLagOfMinutes: number;
  /** The scaling alarms of the environment's stack (.ebextensions), for their charts; none without them. */
  scaling?: ScalingView | null;
  /** Their ARNs, once setup has found them: the dashboard shows their state. */
  scalingAlarmArns?: string[];
}

export const monitoringDefaults = {
  // An early warning below the origin's design load: the objective's peak (3,000 page views/s at
  // the edge) reaches the origin as 600 req/s (docs/capacity-planning.md: 80% answered by
  // CloudFront); 500 req/s is 2.5x a 1,000-view/s day's 200, about what the two instances of
  // MinSize serve before the shell. docs/operations.md, "Edge".
  maxRequestRatePerS: 500,
  // 4x a normal day's peak at the edge (1,000 viewer requests/s): beyond the 3x spike the fleet
  // is built to absorb within 5 minutes, short of the 20x of the newsroom's DDoS.
  maxEdgeRequestRatePerS: 4_000,
  edgeMinutes: 2,
  // The objective's bound (at most 5% shells from 5 minutes after a rise), missed for twice as
  // long: the scale-out has not caught up (MaxSize, instances not coming up, Kiosk's metrics
  // missing). docs/operations.md, "The fleet is scaling out on shells".
  maxShellPercent: 5,
  shellMinutes: 10,
  max5xxPerMinute: 10,
  maxWorkerRssMiB: 1_024,
  maxEventLoopDelayMs: 250,
  // The target is 2 s from a push's commit to the CreateInvalidation call that covers it; 60 s
  // is 30 times that, beyond what the sender rides out on its own (a takeover by the other
  // instance within seconds, a refused call retried with back-off), and still far inside the
  // hour a page now lives at the edge: a correction that has not gone out for three of five
  // minutes is a page. docs/operations.md, "Edge purge alarm".
  maxPurgeLagS: 60,
  purgeLagMinutes: 3,
  purgeLagOfMinutes: 5,
} as const;

/** A failed CreateInvalidation in this many of the last purgeFailureOfMinutes minutes pages: retries have not got through. */
const purgeFailureMinutes = 3;
const purgeFailureOfMinutes = 5;
/** The target from a push's commit to its CreateInvalidation call, drawn on the lag chart. */
const purgeTargetS = 2;

const periodS = 60;

/**
 * CloudFront's metrics: namespace AWS/CloudFront, dimensions DistributionId and Region=Global,
 * read from us-east-1 whatever the distribution's origin region ("Types of metrics for
 * CloudFront" in the CloudFront Developer Guide). Each has one valid statistic: Requests Sum,
 * the rates Average, OriginLatency a percentile. CacheHitRate and OriginLatency exist only with
 * the distribution's additional metrics turned on (its MonitoringSubscription,
 * .ebextensions/10-cloudfront.config).
 */
export const cloudFront = {
  region: 'us-east-1',
  namespace: 'AWS/CloudFront',
  metrics: {
    requests: 'Requests',
    errorRate4xx: '4xxErrorRate',
    errorRate5xx: '5xxErrorRate',
    cacheHitRate: 'CacheHitRate',
    originLatency: 'OriginLatency',
  },
} as const;

/** The metric name of the DDoS kit's web ACL (its VisibilityConfig), the WebACL dimension of WAF's metrics. */
export function webAclMetricName(o: Pick<MonitoringOptions, 'environment'>): string {
  return `kiosk-edge-${o.environment}`;
}

export function cloudFrontDimensions(distributionId: string): Dimension[] {
  return [
    { Name: 'DistributionId', Value: distributionId },
    { Name: 'Region', Value: 'Global' },
  ];
}

export function dashboardName(o: Pick<MonitoringOptions, 'namespace' | 'environment'>): string {
  return `${o.namespace}-${o.environment}`.replace(/[^A-Za-z0-9_-]/g, '-');
}

export function alarmPrefix(o: Pick<MonitoringOptions, 'namespace' | 'environment'>): string {
  return `${dashboardName(o)}-`;
}

export type WidgetMetric = (string | Record<string, unknown>)[];

export function dashboardBody(o: MonitoringOptions): Record<string, unknown> {
  const env = [dimensionNames.environment, o.environment];
  const metric = (name: string, options: Record<string, unknown>): WidgetMetric => [o.namespace, name, ...env, options];
  const expression = (expr: string, options: Record<string, unknown>): WidgetMetric => [{ expression: expr, ...options }];
  const widget = (title: string, metrics: WidgetMetric[], extra: Record<string, unknown> = {}) => ({
    type: 'metric',
    width: 12,
    height: 6,
    properties: { title, region: o.region, view: 'timeSeries', stacked: false, period: periodS, metrics, ...extra },
  });
  const line = (label: string, value: number) => ({ horizontal: [{ label, value }] });
  // The edge's charts read us-east-1 (where CloudFront's metrics are), from this dashboard in the origin's region.
  const edge = o.distributionId ? cloudFrontDimensions(o.distributionId).flatMap((d) => [d.Name!, d.Value!]) : [];
  const edgeMetric = (name: string, options: Record<string, unknown>): WidgetMetric => [cloudFront.namespace, name, ...edge, options];
  const edgeWidget = (title: string, metrics: WidgetMetric[], extra: Record<string, unknown> = {}) => {
    const w = widget(title, metrics, extra);
    return { ...w, properties: { ...w.properties, region: cloudFront.region } };
  };
  const edgeWidgets = o.distributionId
    ? [
        edgeWidget(
          'Requests per second (edge: CloudFront, every request)',
          [
            edgeMetric(cloudFront.metrics.requests, { stat: 'Sum', id: 'edgeRequests', visible: false }),
            expression('edgeRequests/PERIOD(edgeRequests)', { label: 'viewer req/s', id: 'edgeRate' }),
          ],
          { annotations: line('edge request-rate alarm', o.maxEdgeRequestRatePerS) },
        ),
      ]
    : [];
  const edgeDetail = o.distributionId
    ? [
        edgeWidget(
          'Edge error rates (% of viewer requests)',
          [
            edgeMetric(cloudFront.metrics.errorRate4xx, { stat: 'Average', label: '4xx' }),
            edgeMetric(cloudFront.metrics.errorRate5xx, { stat: 'Average', label: '5xx' }),
          ],
          { yAxis: { left: { min: 0 } } },
        ),
        edgeWidget(
          'Edge cache hit rate (%) and origin latency seen by CloudFront (ms)',
          [
            edgeMetric(cloudFront.metrics.cacheHitRate, { stat: 'Average', label: 'cache hit rate (%)' }),
            edgeMetric(cloudFront.metrics.originLatency, { stat: 'p50', label: 'origin latency p50 (ms)', yAxis: 'right' }),
            edgeMetric(cloudFront.metrics.originLatency, { stat: 'p99', label: 'origin latency p99 (ms)', yAxis: 'right' }),
          ],
          { yAxis: { left: { min: 0, max: 100 }, right: { min: 0 } } },
        ),
        // The DDoS kit (cloudformation/edge-protection.yaml) names its web ACL's metrics
        // kiosk-edge-<environment>; WAF reports per rule, by action, in us-east-1. A SEARCH, since
        // the rules (and whether the kit is deployed at all) vary: no kit, an empty chart.
        edgeWidget('Edge protection (AWS WAF): requests blocked and counted per rule, per minute', [
          expression(
            `SEARCH('Namespace="AWS/WAFV2" WebACL="${webAclMetricName(o)}" (MetricName="BlockedRequests" OR MetricName="CountedRequests")', 'Sum', ${periodS})`,
            { id: 'waf', label: '' },
          ),
        ]),
      ]
    : [];
  const perInstance = (name: string, stat: string) =>
    `SEARCH('{"${o.namespace}",${dimensionNames.environment},${dimensionNames.instance}} MetricName="${name}" ${dimensionNames.environment}="${o.environment}"', '${stat}', ${periodS})`;

  // Edge and origin request rates side by side at the top, then the edge's errors and cache.
  const widgets = [
    ...edgeWidgets,
    widget(
      'Requests per second (origin)',
      [metric(metricNames.requests, { stat: 'Sum', id: 'requests', visible: false }), expression('requests/PERIOD(requests)', { label: 'req/s', id: 'rate' })],
      { annotations: line('request-rate alarm (early warning)', o.maxRequestRatePerS) },
    ),
    ...edgeDetail,
    ...purgeWidgets(o, metric, widget),
    widget(
      'CPU and memory (host, %)',
      [
        metric(metricNames.hostCpu, { stat: 'Average', label: 'CPU, average of instances' }),
        metric(metricNames.hostCpu, { stat: 'Maximum', label: 'CPU, busiest instance' }),
        metric(metricNames.hostMemory, { stat: 'Average', label: 'memory, average of instances' }),
        metric(metricNames.hostMemory, { stat: 'Maximum', label: 'memory, fullest instance' }),
      ],
      { yAxis: { left: { min: 0, max: 100 } } },
    ),
    // Both shells: Node's guard (Shell) and Nginx's when every worker is full (NginxShell), most of them.
    widget(
      'Server-rendered vs shell (% of pages)',
      [
        metric(metricNames.serverRendered, { stat: 'Sum', id: 'ssr', visible: false }),
        metric(metricNames.shell, { stat: 'Sum', id: 'shell', visible: false }),
        metric(metricNames.nginxShell, { stat: 'Sum', id: 'nginxShell', visible: false }),
        expression('100*ssr/(ssr+shell+nginxShell)', { label: 'server-rendered', id: 'ssrShare' }),
        expression('100*(shell+nginxShell)/(ssr+shell+nginxShell)', { label: 'shell', id: 'shellShare' }),
      ],
      { stacked: true, yAxis: { left: { min: 0, max: 100 } }, annotations: line('shell-share alarm', o.maxShellPercent) },
    ),
    ...scalingWidgets(o, metric, expression, widget),
    // Nginx's own fallback answers never reach Node: without these the flood would not show.
    // Beside in-flight: workers at their limit with Nginx answering is "full"; no workers and
    // Nginx answering is "down" (the Workers chart below).
    widget('Answered by Nginx: every worker at its limit (per minute)', [
      metric(metricNames.nginxLastGood, { stat: 'Sum', label: 'last good page from Nginx' }),
      metric(metricNames.nginxShell, { stat: 'Sum', label: 'shell from Nginx' }),
      metric(metricNames.nginxBusy503, { stat: 'Sum', label: 'API 503 from Nginx' }),
    ]),
    // The copies Nginx answers from: written after renders, removed by changes, age and count.
    widget('Last good copies (per minute; on disk, highest instance)', [
      metric(metricNames.lastGoodWritten, { stat: 'Sum', label: 'written' }),
      metric(metricNames.lastGoodPurged, { stat: 'Sum', label: 'removed by a change' }),
      metric(metricNames.lastGoodSwept, { stat: 'Sum', label: 'removed by age or count' }),
      metric(metricNames.lastGoodCopies, { stat: 'Maximum', label: 'on disk' }),
    ]),
    widget('In flight, highest per worker', [metric(metricNames.inFlightMax, { stat: 'Maximum', label: 'in flight (max)' })], {
      annotations: line('SSR_QUEUE_LIMIT: shell above', o.ssrQueueLimit),
    }),
    widget('Render time (ms)', [metric(metricNames.renderTime, { stat: 'p50', label: 'p50' }), metric(metricNames.renderTime, { stat: 'p99', label: 'p99' })]),
    widget('Response time (ms)', [
      metric(metricNames.responseTime, { stat: 'p50', label: 'p50' }),
      metric(metricNames.responseTime, { stat: 'p99', label: 'p99' }),
    ]),
    widget(
      '4xx, 5xx and shed (per minute)',
      [
        metric(metricNames.status4xx, { stat: 'Sum', label: '4xx' }),
        metric(metricNames.status5xx, { stat: 'Sum', label: '5xx' }),
        metric(metricNames.shed, { stat: 'Sum', label: '503 shed' }),
      ],
      { annotations: line('5xx alarm', o.max5xxPerMinute) },
    ),
    widget('Worker restarts and workers', [
      metric(metricNames.workerRestarts, { stat: 'Sum', label: 'restarts' }),
      metric(metricNames.workers, { stat: 'Sum', label: 'workers (all instances)' }),
    ]),
    widget('Instances', [expression(`SUM(${perInstance(metricNames.heartbeat, 'Maximum')})`, { label: 'instances reporting', id: 'instances' })]),
    widget(
      'Event-loop delay (ms, worst per 500 ms)',
      [
        metric(metricNames.eventLoopDelay, { stat: 'p50', label: 'p50' }),
        metric(metricNames.eventLoopDelay, { stat: 'p90', label: 'p90' }),
        metric(metricNames.eventLoopDelay, { stat: 'Maximum', label: 'max' }),
      ],
      { annotations: line('event-loop alarm (p90)', o.maxEventLoopDelayMs) },
    ),
    // A CMS push should cost the lists and pages it touches, not the caches: store reads that
    // climb with the pushes, not with the readers, mean the caches are being emptied.
    // Lists handed out as they were while read again: a few per push; near the requests, slow store reads.
    widget('Content cache: store reads, kept answers read again after a change, lists handed out meanwhile (per minute, all workers)', [
      metric(metricNames.contentStoreReads, { stat: 'Sum', label: 'reads sent to the store' }),
      metric(metricNames.contentRebuilt, { stat: 'Sum', label: 'read again after a change' }),
      metric(metricNames.contentPreviousServed, { stat: 'Sum', label: 'lists as they were, while read again' }),
    ]),
    widget(
      'Worker memory (largest worker)',
      [metric(metricNames.rss, { stat: 'Maximum', label: 'RSS' }), metric(metricNames.heapUsed, { stat: 'Maximum', label: 'heap used' })],
      { annotations: line('memory alarm', o.maxWorkerRssMiB * 1024 * 1024) },
    ),
    widget('Metric data dropped (CloudWatch unreachable)', [metric(metricNames.metricsDropped, { stat: 'Sum', label: 'dropped' })]),
  ];
  return { start: '-PT3H', periodOverride: 'inherit', widgets };
}

/**
 * The purge sender's metrics (server/metrics/catalog.ts: EdgePurgeTags, EdgePurgeFailures,
 * EdgePurgeLag, EdgePurgeBudgetLeft), sent by the instance that holds the sender's lock. With the distribution only:
 * without one nothing is purged.
 */
function purgeWidgets(
  o: MonitoringOptions,
  metric: (name: string, options: Record<string, unknown>) => WidgetMetric,
  widget: (title: string, metrics: WidgetMetric[], extra?: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown>[] {
  if (!o.distributionId) return [];
  return [
    widget(
      'Edge purge lag (s): age of the oldest change not yet sent to CloudFront, worst in the minute',
      [metric(metricNames.edgePurgeLag, { stat: 'Maximum', label: 'purge lag (max)' })],
      {
        yAxis: { left: { min: 0 } },
        annotations: {
          horizontal: [
            { label: 'target', value: purgeTargetS },
            { label: 'purge-lag alarm', value: o.maxPurgeLagS },
          ],
        },
      },
    ),
    widget('Edge purges: cache tags sent and failed CreateInvalidation calls (per minute)', [
      metric(metricNames.edgePurgeTags, { stat: 'Sum', label: 'tags sent' }),
      metric(metricNames.edgePurgeFailures, { stat: 'Sum', label: 'failed calls', yAxis: 'right' }),
    ]),
    // Near 0 with a growing lag: the purge budget (EDGE_PURGE_MONTHLY_PATHS) is holding changes back.
    widget(
      'Edge purge budget: paths the sender may spend now (EDGE_PURGE_MONTHLY_PATHS), lowest in the minute',
      [metric(metricNames.edgePurgeBudgetLeft, { stat: 'Minimum', label: 'budget left (min)' })],
      { yAxis: { left: { min: 0 } } },
    ),
  ];
}

/**
 * The purge alarms, in the origin's region with the sender's metrics, notifying the origin's
 * topic; with a distribution only. The lag alarm treats missing data as breaching: with a
 * distribution and pages kept for an hour, nobody sending the lag (the sender stopped and nobody
 * took over, purging off on the servers) is what it is there to catch. The failures alarm treats
 * missing data as not breaching: no call, no failure.
 */
function purgeAlarms(o: MonitoringOptions): PutMetricAlarmInput[] {
  if (!o.distributionId) return [];
  const prefix = alarmPrefix(o);
  const single = (name: string, Statistic: 'Sum' | 'Maximum') => ({
    Namespace: o.namespace,
    MetricName: name,
    Dimensions: [{ Name: dimensionNames.environment, Value: o.environment }],
    Period: periodS,
    Statistic,
  });
  const actions = { ActionsEnabled: true, AlarmActions: o.alarmActions, OKActions: o.alarmActions, InsufficientDataActions: [] };
  return [
    {
      AlarmName: `${prefix}edge-purge-lag`,
      AlarmDescription: `A change has waited more than ${o.maxPurgeLagS} s to be purged at CloudFront in ${o.purgeLagMinutes} of ${o.purgeLagOfMinutes} minutes, or no instance reports the purge lag: readers may see a corrected or unpublished story for up to the edge lifetime. Runbook: docs/operations.md, "Edge purge alarm".`,
      ...actions,
      ...single(metricNames.edgePurgeLag, 'Maximum'),
      EvaluationPeriods: o.purgeLagOfMinutes,
      DatapointsToAlarm: o.purgeLagMinutes,
      Threshold: o.maxPurgeLagS,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'breaching',
    },
    {
      AlarmName: `${prefix}edge-purge-failures`,
      AlarmDescription: `CloudFront refused or did not answer CreateInvalidation calls in ${purgeFailureMinutes} of ${purgeFailureOfMinutes} minutes: retries are not getting through (permissions, the distribution id, throttling, an outage). Runbook: docs/operations.md, "Edge purge alarm".`,
      ...actions,
      ...single(metricNames.edgePurgeFailures, 'Sum'),
      EvaluationPeriods: purgeFailureOfMinutes,
      DatapointsToAlarm: purgeFailureMinutes,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    },
  ];
}

export function alarms(o: MonitoringOptions): PutMetricAlarmInput[] {
  const dimensions: Dimension[] = [{ Name: dimensionNames.environment, Value: o.environment }];
  const prefix = alarmPrefix(o);
  const actions = { ActionsEnabled: true, AlarmActions: o.alarmActions, OKActions: o.alarmActions, InsufficientDataActions: [] };
  const stat = (id: string, name: string, statName: string): MetricDataQuery => ({
    Id: id,
    MetricStat: { Metric: { Namespace: o.namespace, MetricName: name, Dimensions: dimensions }, Period: periodS, Stat: statName },
    ReturnData: false,
  });
  const single = (name: string, statName: { Statistic?: 'Sum' | 'Maximum'; ExtendedStatistic?: string }) => ({
    Namespace: o.namespace,
    MetricName: name,
    Dimensions: dimensions,
    Period: periodS,
    ...statName,
  });
  return [
    {
      AlarmName: `${prefix}request-rate`,
      AlarmDescription: `Early warning: origin requests above ${o.maxRequestRatePerS}/s for 2 minutes, on the way to the fleet's design load (a spike, a DDoS getting past the cache, a CDN that stopped caching). Runbook: docs/operations.md, "Traffic is 20x and rising".`,
      ...actions,
      Metrics: [
        stat('requests', metricNames.requests, 'Sum'),
        { Id: 'rate', Expression: 'requests/PERIOD(requests)', Label: 'requests per second', ReturnData: true },
      ],
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      Threshold: o.maxRequestRatePerS,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    },
    {
      AlarmName: `${prefix}shell-share`,
      AlarmDescription: `More than ${o.maxShellPercent}% of pages answered with the shell for ${o.shellMinutes} minutes: autoscaling has not caught up (MaxSize reached, instances not coming up, the scaling alarms without data). Runbook: docs/operations.md, "The fleet is scaling out on shells".`,
      ...actions,
      Metrics: [
        stat('ssr', metricNames.serverRendered, 'Sum'),
        stat('shell', metricNames.shell, 'Sum'),
        stat('nginxShell', metricNames.nginxShell, 'Sum'),
        {
          Id: 'shellShare',
          Expression: 'IF(ssr+shell+nginxShell > 0, 100*(shell+nginxShell)/(ssr+shell+nginxShell), 0)',
          Label: 'shell share (%)',
          ReturnData: true,
        },
      ],
      EvaluationPeriods: o.shellMinutes,
      DatapointsToAlarm: o.shellMinutes,
      Threshold: o.maxShellPercent,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    },
    {
      AlarmName: `${prefix}5xx`,
      AlarmDescription: `More than ${o.max5xxPerMinute} 5xx responses a minute in 2 of 3 minutes.`,
      ...actions,
      ...single(metricNames.status5xx, { Statistic: 'Sum' }),
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Threshold: o.max5xxPerMinute,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    },
    {
      AlarmName: `${prefix}memory`,
      AlarmDescription: `A worker's resident memory above ${o.maxWorkerRssMiB} MiB for 5 minutes: memory that does not come back degrades the server run by run.`,
      ...actions,
      ...single(metricNames.rss, { Statistic: 'Maximum' }),
      EvaluationPeriods: 5,
      DatapointsToAlarm: 5,
      Threshold: o.maxWorkerRssMiB * 1024 * 1024,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    },
    {
      AlarmName: `${prefix}event-loop-delay`,
      AlarmDescription: `Event-loop delay p90 above ${o.maxEventLoopDelayMs} ms for 3 minutes: workers stall between requests.`,
      ...actions,
      ...single(metricNames.eventLoopDelay, { ExtendedStatistic: 'p90' }),
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Threshold: o.maxEventLoopDelayMs,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    },
    ...purgeAlarms(o),
  ];
}

/**
 * The alarm where a flood is seen first: viewer requests at CloudFront, in us-east-1 with the
 * metric (an alarm watches metrics of its own region only). Empty without a distribution.
 */
export function edgeAlarms(o: MonitoringOptions): PutMetricAlarmInput[] {
  if (!o.distributionId) return [];
  const actions = { ActionsEnabled: true, AlarmActions: o.edgeAlarmActions, OKActions: o.edgeAlarmActions, InsufficientDataActions: [] };
  return [
    {
      AlarmName: `${alarmPrefix(o)}edge-request-rate`,
      AlarmDescription: `Viewer requests at CloudFront above ${o.maxEdgeRequestRatePerS}/s for ${o.edgeMinutes} minutes, well above a normal day's peak: a story breaking bigger than planned, or a flood (DDoS). Runbook: docs/operations.md, "Traffic is 20x and rising".`,
      ...actions,
      Metrics: [
        {
          Id: 'requests',
          MetricStat: {
            Metric: { Namespace: cloudFront.namespace, MetricName: cloudFront.metrics.requests, Dimensions: cloudFrontDimensions(o.distributionId) },
            Period: periodS,
            Stat: 'Sum',
          },
          ReturnData: false,
        },
        { Id: 'rate', Expression: 'requests/PERIOD(requests)', Label: 'viewer requests per second', ReturnData: true },
      ],
      EvaluationPeriods: o.edgeMinutes,
      DatapointsToAlarm: o.edgeMinutes,
      Threshold: o.maxEdgeRequestRatePerS,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    },
  ];
}

/** Every alarm by the region it lives in: the origin's alarms where the servers send, the edge's in us-east-1 (possibly the same). */
export function alarmsByRegion(o: MonitoringOptions): Map<string, PutMetricAlarmInput[]> {
  const byRegion = new Map<string, PutMetricAlarmInput[]>([[o.region, alarms(o)]]);
  const edge = edgeAlarms(o);
  if (edge.length > 0) byRegion.set(cloudFront.region, [...(byRegion.get(cloudFront.region) ?? []), ...edge]);
  return byRegion;
}

/** The SNS topic the alarms notify: one per region that holds alarms, since an alarm's SNS action must be in its own region. */
export function topicName(o: Pick<MonitoringOptions, 'namespace' | 'environment'>): string {
  return `${dashboardName(o)}-alarms`;
}
