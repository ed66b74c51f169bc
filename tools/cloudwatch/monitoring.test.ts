import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricNames } from '../../server/metrics/cloudwatch';
import { alarms, dashboardBody, dashboardName, monitoringDefaults, type MonitoringOptions } from './monitoring';

const options: MonitoringOptions = {
  region: 'eu-west-1',
  namespace: 'Kiosk',
  environment: 'prod',
  ...monitoringDefaults,
  ssrQueueLimit: 15,
  alarmActions: ['arn:aws:sns:eu-west-1:123456789012:pager'],
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
  ]) {
    assert.ok(
      titles.some((t) => t.startsWith(wanted)),
      `a chart "${wanted}" in ${titles.join(' | ')}`,
    );
  }
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
