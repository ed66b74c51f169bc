import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { PutMetricAlarmInput } from '@aws-sdk/client-cloudwatch';
import {
  dimensionNames,
  environmentProperties,
  loadConfig,
  loadConfigFiles,
  metricNames,
  optionSettings,
  repositoryRoot,
  resolveOptionSettings,
  resources,
} from '@kiosk/surface';
import {
  alarmPrefix,
  alarms,
  alarmsByRegion,
  cloudFront,
  dashboardBody,
  dashboardName,
  edgeAlarms,
  monitoringDefaults,
  type MonitoringOptions,
} from './monitoring';
import { scalingView } from './scaling';

const options: MonitoringOptions = {
  region: 'eu-west-1',
  namespace: 'Kiosk',
  environment: 'prod',
  ...monitoringDefaults,
  ssrQueueLimit: 15,
  alarmActions: ['arn:aws:sns:eu-west-1:123456789012:pager'],
  edgeAlarmActions: ['arn:aws:sns:us-east-1:123456789012:pager'],
};
const withEdge: MonitoringOptions = { ...options, distributionId: 'E2QWRUHAPOMQZL' };
// From "Types of metrics for CloudFront" (CloudFront Developer Guide), with the one statistic each allows.
const cloudFrontStatistics: Record<string, string[]> = {
  Requests: ['Sum'],
  '4xxErrorRate': ['Average'],
  '5xxErrorRate': ['Average'],
  CacheHitRate: ['Average'],
  OriginLatency: ['p50', 'p90', 'p99'],
};
const known = new Set<string>(Object.values(metricNames));

test('the dashboard charts only metrics the servers send, in the right region', () => {
  const body = dashboardBody(options) as { widgets: { properties: { region: string; title: string; metrics: unknown[][] } }[] };
  assert.equal(dashboardName(options), 'Kiosk-prod');
  const titles = body.widgets.map((w) => w.properties.title);
  for (const wanted of [
    'CPU and memory',
    'Requests per second',
    'Server-rendered vs shell',
    'In flight',
    'Render time',
    'Response time',
    '4xx, 5xx',
    'Worker restarts',
    'Instances',
    'Content cache',
  ]) {
    assert.ok(
      titles.some((t) => t.startsWith(wanted)),
      `a chart "${wanted}" in ${titles.join(' | ')}`,
    );
  }
  assert.ok(!titles.some((t) => t.includes('edge')), 'no edge charts without a distribution');
  for (const widget of body.widgets) {
    assert.equal(widget.properties.region, 'eu-west-1');
    for (const row of widget.properties.metrics) {
      if (typeof row[0] === 'string') {
        assert.equal(row[0], 'Kiosk');
        assert.ok(known.has(row[1] as string), `${String(row[1])} is a metric the servers send`);
        assert.deepEqual(row.slice(2, 4), ['Environment', 'prod']);
      } else {
        const expression = (row[0] as { expression: string }).expression;
        for (const name of expression.match(/MetricName="(\w+)"/g) ?? []) assert.ok(known.has(name.slice(12, -1)), name);
      }
    }
  }
});

test('the alarms: names under one prefix, thresholds from the options, notifications to the given topic', () => {
  const list = alarms({ ...options, maxRequestRatePerS: 2_500, maxShellPercent: 40, shellMinutes: 7 });
  assert.deepEqual(
    list.map((a) => a.AlarmName),
    ['Kiosk-prod-request-rate', 'Kiosk-prod-shell-share', 'Kiosk-prod-5xx', 'Kiosk-prod-memory', 'Kiosk-prod-event-loop-delay'],
  );
  const [rate, shell, , memory] = list;
  assert.equal(rate!.Threshold, 2_500);
  assert.equal(shell!.Threshold, 40);
  assert.equal(shell!.EvaluationPeriods, 7);
  assert.equal(memory!.Threshold, 1_024 * 1024 * 1024);
  for (const alarm of list) {
    assert.deepEqual(alarm.AlarmActions, options.alarmActions);
    assert.deepEqual(alarm.OKActions, options.alarmActions);
    const names = alarm.MetricName ? [alarm.MetricName] : alarm.Metrics!.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric!.MetricName!] : []));
    for (const name of names) assert.ok(known.has(name), name);
    assert.equal(alarm.Metrics ? alarm.Metrics.filter((m) => m.ReturnData).length : 1, 1, 'one series decides');
  }
});

test('with a distribution: the edge charts read CloudFront in us-east-1, first and beside the origin requests', () => {
  const body = dashboardBody(withEdge) as { widgets: { properties: { region: string; title: string; metrics: unknown[][] } }[] };
  const titles = body.widgets.map((w) => w.properties.title);
  assert.match(titles[0]!, /^Requests per second \(edge/);
  assert.match(titles[1]!, /^Requests per second \(origin\)/);
  const edge = body.widgets.filter((w) => w.properties.region === 'us-east-1');
  assert.equal(edge.length, 4);
  // The DDoS kit's web ACL, by the metric name its template gives it.
  const waf = edge.find((w) => w.properties.title.startsWith('Edge protection'))!;
  const search = (waf.properties.metrics[0]![0] as { expression: string }).expression;
  assert.match(
    search,
    /^SEARCH\('Namespace="AWS\/WAFV2" WebACL="kiosk-edge-prod" \(MetricName="BlockedRequests" OR MetricName="CountedRequests"\)', 'Sum', 60\)$/,
  );
  const template = fs.readFileSync(path.join(repositoryRoot, 'cloudformation/edge-protection.yaml'), 'utf8');
  assert.match(template, /MetricName:\s+Fn::Sub: kiosk-edge-\$\{EnvironmentName\}\n/);
  const seen = new Set<string>();
  for (const widget of edge) {
    for (const row of widget.properties.metrics) {
      if (typeof row[0] !== 'string') continue;
      assert.equal(row[0], 'AWS/CloudFront');
      assert.deepEqual(row.slice(2, 6), ['DistributionId', 'E2QWRUHAPOMQZL', 'Region', 'Global']);
      const stat = (row[6] as { stat: string }).stat;
      assert.ok(cloudFrontStatistics[row[1] as string]?.includes(stat), `${String(row[1])} with ${stat}`);
      seen.add(row[1] as string);
    }
  }
  assert.deepEqual([...seen].sort(), Object.keys(cloudFrontStatistics).sort());
  for (const widget of body.widgets.filter((w) => w.properties.region !== 'us-east-1')) assert.equal(widget.properties.region, 'eu-west-1');
});

test('the edge alarm: viewer requests per second at CloudFront, in us-east-1, paging within 5 minutes', () => {
  assert.deepEqual(edgeAlarms(options), [], 'none without a distribution');
  const [edge] = edgeAlarms(withEdge);
  assert.equal(edge!.AlarmName, 'Kiosk-prod-edge-request-rate');
  assert.equal(edge!.Threshold, monitoringDefaults.maxEdgeRequestRatePerS);
  const requests = edge!.Metrics!.find((m) => m.MetricStat)!.MetricStat!;
  assert.equal(requests.Metric!.Namespace, cloudFront.namespace);
  assert.equal(requests.Metric!.MetricName, 'Requests');
  assert.equal(requests.Stat, 'Sum');
  // Minutes of breach before ALARM, with the 1-minute period: well inside the 5 minutes.
  assert.ok(requests.Period! * edge!.EvaluationPeriods! <= 180, `${requests.Period! * edge!.EvaluationPeriods!} s`);
  assert.deepEqual(edge!.AlarmActions, withEdge.edgeAlarmActions);

  const byRegion = alarmsByRegion(withEdge);
  assert.deepEqual([...byRegion.keys()], ['eu-west-1', 'us-east-1']);
  assert.deepEqual(
    byRegion.get('us-east-1')!.map((a) => a.AlarmName),
    ['Kiosk-prod-edge-request-rate'],
  );
  // An environment in us-east-1 keeps every alarm in one region.
  assert.equal(alarmsByRegion({ ...withEdge, region: 'us-east-1' }).get('us-east-1')!.length, 8);
});

test("the origin request alarm warns below the design load: under the objective peak's 600 origin req/s, above a normal day's 200", () => {
  const [rate] = alarms(options);
  assert.ok(rate!.Threshold! < 600 && rate!.Threshold! > 200, String(rate!.Threshold));
  assert.ok(monitoringDefaults.maxEdgeRequestRatePerS >= 3 * 1_000, 'no page for the 3x spike the fleet is built to absorb');
  assert.ok(monitoringDefaults.maxEdgeRequestRatePerS < 20 * 1_000, 'a 20x flood pages');
});

test("the shell share counts Nginx's shells, which are most of them, on the chart and in the alarm; the alarm pages past the objective's bound", () => {
  const shell = alarms(options).find((a) => a.AlarmName === 'Kiosk-prod-shell-share')!;
  assert.deepEqual(
    shell.Metrics!.filter((m) => m.MetricStat).map((m) => m.MetricStat!.Metric!.MetricName),
    [metricNames.serverRendered, metricNames.shell, metricNames.nginxShell],
  );
  assert.match(shell.Metrics!.find((m) => m.ReturnData)!.Expression!, /shell\+nginxShell\)\/\(ssr\+shell\+nginxShell\)/);
  // The objective allows 5% from 5 minutes after a rise: twice that long above it is a page.
  assert.deepEqual([shell.Threshold, shell.EvaluationPeriods, shell.DatapointsToAlarm], [5, 10, 10]);
  assert.match(shell.AlarmDescription!, /The fleet is scaling out on shells/);
  const body = dashboardBody(options) as { widgets: { properties: { title: string; metrics: unknown[][] } }[] };
  const chart = body.widgets.find((w) => w.properties.title.startsWith('Server-rendered vs shell'))!;
  assert.ok(chart.properties.metrics.some((row) => row[1] === metricNames.nginxShell));
});

test("the scaling alarms from .ebextensions: their names for the environment, the scale-out alarm's period, threshold and steps", () => {
  const view = scalingView('kiosk-prod')!;
  assert.deepEqual(view.alarmNames, ['kiosk-scaling-kiosk-prod-overload', 'kiosk-scaling-kiosk-prod-scale-in']);
  assert.deepEqual([view.periodS, view.threshold], [10, 1]);
  assert.deepEqual(view.steps[0], { fromShare: 1, adjustment: '+50%' });
  assert.deepEqual(view.steps.at(-1), { fromShare: 70, adjustment: '+300%' });
  // Names apart from this script's own alarms, which setup removes when it no longer defines them.
  for (const name of view.alarmNames) assert.ok(!name.startsWith(alarmPrefix({ namespace: 'Kiosk', environment: 'kiosk-prod' })));
});

// The same, from the alarms' AlarmName in .ebextensions as CloudFormation joins it, and this
// script's prefix with the namespace the environment's own configuration publishes under.
test("the scaling alarms are named apart from npm run cloudwatch's, which removes alarms under its prefix it did not define", () => {
  const files = loadConfigFiles();
  const settings = optionSettings(files);
  const all = resolveOptionSettings(resources(files), settings);
  const metricsOn = loadConfig({ ...environmentProperties(settings), METRICS_CLOUDWATCH: '1', AWS_REGION: 'eu-west-1', KIOSK_ENV: 'kiosk-prod' });
  const ref = (v: unknown) => (v as { Ref?: string } | null)?.Ref;
  for (const name of ['KioskOverloadAlarm', 'KioskScaleInAlarm']) {
    const join = all[name]!.Properties!.AlarmName as { 'Fn::Join': [string, unknown[]] };
    const [separator, parts] = join['Fn::Join'];
    const resolved = parts.map((p) => (ref(p) === 'AWSEBEnvironmentName' ? 'kiosk-prod' : String(p))).join(separator);
    assert.match(resolved, /^kiosk-scaling-kiosk-prod-/);
    assert.ok(!resolved.startsWith(alarmPrefix({ namespace: metricsOn.metrics.namespace, environment: 'kiosk-prod' })), resolved);
  }
});

test('the dashboard charts what the scale-out alarm watches, at its period with its lines, and shows the alarms once found', () => {
  const scaling = scalingView('prod');
  type Body = {
    widgets: { type: string; properties: { title: string; period?: number; alarms?: string[]; annotations?: { horizontal: { value: number }[] } } }[];
  };
  const without = dashboardBody(options) as Body;
  assert.ok(!without.widgets.some((w) => w.properties.title.startsWith('Overload scaling')));
  const charted = dashboardBody({ ...options, scaling }) as Body;
  const chart = charted.widgets.find((w) => w.properties.title.startsWith('Overload scaling'))!;
  assert.equal(chart.properties.period, 10);
  assert.deepEqual(
    chart.properties.annotations!.horizontal.map((h) => h.value),
    [1, 10, 20, 35, 50, 70],
  );
  assert.ok(!charted.widgets.some((w) => w.type === 'alarm'), 'no alarm widget before setup has found the alarms');
  const arns = ['arn:aws:cloudwatch:eu-west-1:123456789012:alarm:kiosk-scaling-prod-overload'];
  const shown = dashboardBody({ ...options, scaling, scalingAlarmArns: arns }) as Body;
  assert.deepEqual(shown.widgets.find((w) => w.type === 'alarm')!.properties.alarms, arns);
});

type Datapoint = number | null;

/**
 * An alarm's state after each minute, as CloudWatch evaluates an M-of-N alarm on one-minute
 * datapoints: ALARM when at least DatapointsToAlarm of the last EvaluationPeriods breach, a
 * missing datapoint counting as TreatMissingData says; before N datapoints, no state.
 */
function states(alarm: PutMetricAlarmInput, datapoints: Datapoint[]): ('ALARM' | 'OK' | null)[] {
  const breaches = (v: Datapoint) =>
    v === null ? alarm.TreatMissingData === 'breaching' : alarm.ComparisonOperator === 'GreaterThanThreshold' ? v > alarm.Threshold! : v >= alarm.Threshold!;
  const n = alarm.EvaluationPeriods!;
  return datapoints.map((_, i) => {
    if (i + 1 < n) return null;
    const window = datapoints.slice(i + 1 - n, i + 1);
    return window.filter(breaches).length >= alarm.DatapointsToAlarm! ? 'ALARM' : 'OK';
  });
}
const firstAlarm = (s: ('ALARM' | 'OK' | null)[]) => s.indexOf('ALARM');

test('the purge charts and alarms come with the distribution, on the origin side: the sender publishes them where the servers send', () => {
  const purgeNames = [metricNames.edgePurgeTags, metricNames.edgePurgeFailures, metricNames.edgePurgeLag, metricNames.edgePurgeBudgetLeft];
  type Body = { widgets: { properties: { region: string; title: string; metrics: unknown[][] } }[] };
  const charted = (o: MonitoringOptions) => (dashboardBody(o) as Body).widgets.flatMap((w) => w.properties.metrics.map((row) => [w.properties.region, ...row]));
  assert.ok(!charted(options).some((row) => purgeNames.includes(row[2] as never)), 'no purge charts without a distribution');
  assert.ok(!alarms(options).some((a) => a.AlarmName!.includes('purge')));

  const rows = charted(withEdge).filter((row) => purgeNames.includes(row[2] as never));
  assert.deepEqual(
    rows.map((row) => [row[0], row[1], row[2], row[3], row[4], (row[5] as { stat: string }).stat]),
    [
      ['eu-west-1', 'Kiosk', 'EdgePurgeLag', 'Environment', 'prod', 'Maximum'],
      ['eu-west-1', 'Kiosk', 'EdgePurgeTags', 'Environment', 'prod', 'Sum'],
      ['eu-west-1', 'Kiosk', 'EdgePurgeFailures', 'Environment', 'prod', 'Sum'],
      // What the purge budget lets the sender spend: near 0 with a growing lag, the budget holds changes back.
      ['eu-west-1', 'Kiosk', 'EdgePurgeBudgetLeft', 'Environment', 'prod', 'Minimum'],
    ],
  );

  const list = alarms(withEdge);
  assert.deepEqual(list.map((a) => a.AlarmName).slice(-2), ['Kiosk-prod-edge-purge-lag', 'Kiosk-prod-edge-purge-failures']);
  const [lag, failures] = list.slice(-2);
  for (const alarm of [lag!, failures!]) {
    // The topic every other origin alarm notifies, not the edge's in us-east-1.
    assert.deepEqual(alarm.AlarmActions, options.alarmActions);
    assert.deepEqual(alarm.OKActions, options.alarmActions);
    assert.equal(alarm.Namespace, 'Kiosk');
    assert.deepEqual(alarm.Dimensions, [{ Name: dimensionNames.environment, Value: 'prod' }]);
    assert.equal(alarm.Period, 60);
    assert.match(alarm.AlarmDescription!, /Runbook: docs\/operations\.md, "Edge purge alarm"/);
  }
  assert.deepEqual([lag!.MetricName, lag!.Statistic, lag!.Threshold, lag!.DatapointsToAlarm, lag!.EvaluationPeriods], ['EdgePurgeLag', 'Maximum', 60, 3, 5]);
  assert.deepEqual([failures!.MetricName, failures!.Statistic], ['EdgePurgeFailures', 'Sum']);
  assert.equal(alarms({ ...withEdge, maxPurgeLagS: 120 }).find((a) => a.AlarmName!.endsWith('purge-lag'))!.Threshold, 120);
  assert.ok(!edgeAlarms(withEdge).some((a) => a.AlarmName!.includes('purge')), 'not in us-east-1');
  const runbook = fs.readFileSync(path.join(repositoryRoot, 'docs/operations.md'), 'utf8');
  assert.match(runbook, /^#+ Edge purge alarm$/m);
});

test('the purge-lag alarm pages within five minutes of a stalled sender and when nobody reports, not for what the sender rides out', () => {
  const lag = alarms(withEdge).find((a) => a.AlarmName!.endsWith('purge-lag'))!;
  const healthy = [0.4, 1.2, 0.8, 1.9, 0.6];
  // The worst of each minute: a sender that stopped sending at the start of minute 6.
  const stalled = [...healthy, 60, 120, 180, 240, 300];
  const paged = firstAlarm(states(lag, stalled));
  assert.ok(paged >= 5 && paged - 5 < 5, `paged in minute ${paged + 1}, ${paged - 4} minutes into the stall`);
  // The other instance takes over within seconds; a refused call is retried with back-off (1+2+4+8+16 s).
  assert.equal(firstAlarm(states(lag, [...healthy, 8, 31, 2, 1, 0.5, 45, 0.7, 0.9])), -1);
  // Two bad minutes in five, apart: a flapping sender pages too.
  assert.equal(firstAlarm(states(lag, [...healthy, 90, 1, 90, 1, 90])), 9);
  // Nobody reports the lag (the sender's process gone and no other took over, purging off on the servers):
  // missing data breaches, so it pages as a stall does.
  const silent = firstAlarm(states(lag, [...healthy, null, null, null, null, null]));
  assert.ok(silent >= 5 && silent - 5 < 5, String(silent));
  assert.ok(lag.Threshold! >= 10 * 2, "well above the target's 2 s, which a healthy sender meets");
});

test('the purge-failure alarm: a failed call retried with success is no page; calls failing minute after minute are', () => {
  const failures = alarms(withEdge).find((a) => a.AlarmName!.endsWith('purge-failures'))!;
  const quiet = [0, 0, 0, 0, 0];
  assert.equal(firstAlarm(states(failures, [...quiet, 1, 0, 0, 2, 0, 0, 0])), -1);
  // No calls, no failures: a sender with nothing to send publishes nothing, and the alarm stays OK.
  assert.equal(firstAlarm(states(failures, [null, null, null, null, null, null])), -1);
  const refusing = firstAlarm(states(failures, [...quiet, 3, 2, 2, 2]));
  assert.equal(refusing, 7, 'the third minute of refusals');
});

test("the dashboard charts Nginx's last good answers beside its shells, and the copies written, removed and on disk", () => {
  const body = dashboardBody(options) as { widgets: { properties: { title: string; metrics: unknown[][] } }[] };
  const named = (prefix: string) => body.widgets.find((w) => w.properties.title.startsWith(prefix))!.properties.metrics.map((row) => row[1]);
  assert.deepEqual(named('Answered by Nginx'), [metricNames.nginxLastGood, metricNames.nginxShell, metricNames.nginxBusy503]);
  assert.deepEqual(named('Last good copies'), [metricNames.lastGoodWritten, metricNames.lastGoodPurged, metricNames.lastGoodSwept, metricNames.lastGoodCopies]);
});
