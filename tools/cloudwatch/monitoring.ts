import type { Dimension, MetricDataQuery, PutMetricAlarmInput } from '@aws-sdk/client-cloudwatch';
import { dimensionNames, metricNames } from '../../server/metrics/cloudwatch';

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
  /** SNS topics (or other alarm actions) told when an alarm fires and when it clears. */
  alarmActions: string[];
}

export const monitoringDefaults = {
  // The newsroom's objective was 1,000 req/s at any time; above it for minutes is not a normal day.
  maxRequestRatePerS: 1_000,
  maxShellPercent: 50,
  shellMinutes: 5,
  max5xxPerMinute: 10,
  maxWorkerRssMiB: 1_024,
  maxEventLoopDelayMs: 250,
} as const;

const periodS = 60;

export function dashboardName(o: Pick<MonitoringOptions, 'namespace' | 'environment'>): string {
  return `${o.namespace}-${o.environment}`.replace(/[^A-Za-z0-9_-]/g, '-');
}

export function alarmPrefix(o: Pick<MonitoringOptions, 'namespace' | 'environment'>): string {
  return `${dashboardName(o)}-`;
}

type WidgetMetric = (string | Record<string, unknown>)[];

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
  const perInstance = (name: string, stat: string) =>
    `SEARCH('{"${o.namespace}",${dimensionNames.environment},${dimensionNames.instance}} MetricName="${name}" ${dimensionNames.environment}="${o.environment}"', '${stat}', ${periodS})`;

  const widgets = [
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
    widget(
      'Requests per second (origin)',
      [metric(metricNames.requests, { stat: 'Sum', id: 'requests', visible: false }), expression('requests/PERIOD(requests)', { label: 'req/s', id: 'rate' })],
      { annotations: line('request-rate alarm', o.maxRequestRatePerS) },
    ),
    widget(
      'Server-rendered vs shell (% of pages)',
      [
        metric(metricNames.serverRendered, { stat: 'Sum', id: 'ssr', visible: false }),
        metric(metricNames.shell, { stat: 'Sum', id: 'shell', visible: false }),
        expression('100*ssr/(ssr+shell)', { label: 'server-rendered', id: 'ssrShare' }),
        expression('100*shell/(ssr+shell)', { label: 'shell', id: 'shellShare' }),
      ],
      { stacked: true, yAxis: { left: { min: 0, max: 100 } }, annotations: line('shell-share alarm', o.maxShellPercent) },
    ),
    // Nginx's own fallback answers never reach Node: without these the flood would not show.
    // Beside in-flight: workers at their limit with Nginx answering is "full"; no workers and
    // Nginx answering is "down" (the Workers chart below).
    widget('Answered by Nginx: every worker at its limit (per minute)', [
      metric(metricNames.nginxShell, { stat: 'Sum', label: 'shell from Nginx' }),
      metric(metricNames.nginxBusy503, { stat: 'Sum', label: 'API 503 from Nginx' }),
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
    widget(
      'Worker memory (largest worker)',
      [metric(metricNames.rss, { stat: 'Maximum', label: 'RSS' }), metric(metricNames.heapUsed, { stat: 'Maximum', label: 'heap used' })],
      { annotations: line('memory alarm', o.maxWorkerRssMiB * 1024 * 1024) },
    ),
    widget('Metric data dropped (CloudWatch unreachable)', [metric(metricNames.metricsDropped, { stat: 'Sum', label: 'dropped' })]),
  ];
  return { start: '-PT3H', periodOverride: 'inherit', widgets };
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
      AlarmDescription: `Origin requests above ${o.maxRequestRatePerS}/s for 3 minutes: more than the site expects (a DDoS, a crawler, a CDN that stopped caching).`,
      ...actions,
      Metrics: [
        stat('requests', metricNames.requests, 'Sum'),
        { Id: 'rate', Expression: 'requests/PERIOD(requests)', Label: 'requests per second', ReturnData: true },
      ],
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Threshold: o.maxRequestRatePerS,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    },
    {
      AlarmName: `${prefix}shell-share`,
      AlarmDescription: `More than ${o.maxShellPercent}% of pages answered with the shell for ${o.shellMinutes} minutes: the workers are overloaded; add instances.`,
      ...actions,
      Metrics: [
        stat('ssr', metricNames.serverRendered, 'Sum'),
        stat('shell', metricNames.shell, 'Sum'),
        { Id: 'shellShare', Expression: 'IF(ssr+shell > 0, 100*shell/(ssr+shell), 0)', Label: 'shell share (%)', ReturnData: true },
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
  ];
}
