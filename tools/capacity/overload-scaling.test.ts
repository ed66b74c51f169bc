// Scaling on the overload signal (.ebextensions/09-overload-scaling.config) against what the
// instances publish (server/metrics/) and what Elastic Beanstalk's trigger leaves to it
// (01-capacity.config). cfn-lint checks the same resources in scripts/deploy/cfn-lint.services.test.ts; the capacity
// simulator runs them here (recommend.test.ts: the objective from MinSize 2).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  dimensionNames,
  environmentProperties,
  loadConfig,
  loadConfigFiles,
  metricNames,
  optionSettings,
  resolveOptionSettings,
  resources,
  settingValue,
} from '@kiosk/surface';
import { parseExpression } from './metric-math';

type Json = Record<string, unknown>;
interface Query {
  Id: string;
  Expression?: string;
  ReturnData?: boolean;
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] }; Period: number; Stat: string };
}
interface Step {
  MetricIntervalLowerBound?: number;
  MetricIntervalUpperBound?: number;
  ScalingAdjustment: number;
}

const files = loadConfigFiles();
const settings = optionSettings(files);
const all = resolveOptionSettings(resources(files), settings);
const env = environmentProperties(settings);
const props = (name: string) => all[name]!.Properties as Json;
const ref = (v: unknown) => (v as { Ref?: string } | null)?.Ref;

/** The alarms that invoke a policy, by logical id. */
function alarmsOf(policy: string): [string, Json][] {
  return Object.entries(all)
    .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm' && ((r.Properties?.AlarmActions as unknown[]) ?? []).some((a) => ref(a) === policy))
    .map(([name, r]) => [name, r.Properties!]);
}

function expressionOf(alarm: Json): { source: string; queries: Query[] } {
  const queries = alarm.Metrics as Query[];
  const returned = queries.filter((q) => q.ReturnData !== false);
  assert.equal(returned.length, 1, 'one series decides');
  return { source: returned[0]!.Expression!, queries };
}

const metricsOn = loadConfig({ ...env, METRICS_CLOUDWATCH: '1', AWS_REGION: 'eu-west-1', KIOSK_ENV: 'kiosk-prod' });

test("the scale-out policy adds to the environment's group in proportion to the shell share of Kiosk's own counts", () => {
  const policy = props('KioskOverloadScaleOutPolicy');
  assert.equal(ref(policy.AutoScalingGroupName), 'AWSEBAutoScalingGroup');
  assert.deepEqual([policy.PolicyType, policy.AdjustmentType, policy.MinAdjustmentMagnitude], ['StepScaling', 'PercentChangeInCapacity', 1]);
  const invoking = alarmsOf('KioskOverloadScaleOutPolicy');
  assert.deepEqual(
    invoking.map(([name]) => name),
    ['KioskOverloadAlarm'],
  );
  const alarm = invoking[0]![1];
  const { source, queries } = expressionOf(alarm);
  const stats = queries.filter((q) => q.MetricStat);
  // The names the workers and the primary send, in their namespace, under the environment-wide dimension set.
  assert.deepEqual(
    stats.map((q) => q.MetricStat!.Metric.MetricName).sort(),
    [metricNames.nginxLastGood, metricNames.nginxShell, metricNames.serverRendered, metricNames.shell].sort(),
  );
  for (const q of stats) {
    assert.equal(q.MetricStat!.Metric.Namespace, metricsOn.metrics.namespace);
    assert.equal(q.MetricStat!.Stat, 'Sum');
    assert.deepEqual(q.MetricStat!.Metric.Dimensions, [{ Name: dimensionNames.environment, Value: { Ref: 'AWSEBEnvironmentName' } }]);
  }
  const share = parseExpression(source);
  const values = (ssr: number, shell: number, nginxShell: number, nginxLastGood = 0) =>
    Object.fromEntries(
      stats.map((q) => [
        q.Id,
        {
          [metricNames.serverRendered]: ssr,
          [metricNames.shell]: shell,
          [metricNames.nginxShell]: nginxShell,
          [metricNames.nginxLastGood]: nginxLastGood,
        }[q.MetricStat!.Metric.MetricName]!,
      ]),
    );
  assert.equal(share.evaluate(values(750, 50, 200)), 25, "Node's and Nginx's shells both count");
  // A flood the last good copies absorb is as short of capacity as one answered with shells.
  assert.equal(share.evaluate(values(750, 0, 50, 200)), 25, 'last good copies count as pages not rendered fresh');
  assert.equal(share.evaluate(values(0, 0, 0)), 0, 'no pages is no overload');
  assert.deepEqual([alarm.ComparisonOperator, alarm.TreatMissingData], ['GreaterThanThreshold', 'notBreaching']);
});

test('the steps cover every share above the threshold without gaps, and grow with it: 50% shells at least doubles the fleet', () => {
  const steps = props('KioskOverloadScaleOutPolicy').StepAdjustments as Step[];
  assert.equal(steps[0]!.MetricIntervalLowerBound, 0);
  steps.forEach((step, i) => {
    const next = steps[i + 1];
    if (next) assert.equal(step.MetricIntervalUpperBound, next.MetricIntervalLowerBound, `step ${i + 1} ends where step ${i + 2} starts`);
    else assert.equal(step.MetricIntervalUpperBound, undefined, 'the last step is open-ended');
    if (next) assert.ok(next.ScalingAdjustment > step.ScalingAdjustment, 'a larger share adds more');
  });
  const threshold = props('KioskOverloadAlarm').Threshold as number;
  const at = (share: number) =>
    steps.find((s) => share - threshold >= (s.MetricIntervalLowerBound ?? -Infinity) && share - threshold < (s.MetricIntervalUpperBound ?? Infinity))!;
  assert.ok(at(50).ScalingAdjustment >= 100);
  assert.ok(at(threshold + 0.5).ScalingAdjustment > 0);
});

test('10-second alarm periods have 10-second, high-resolution data to look at', () => {
  const periods = (expressionOf(props('KioskOverloadAlarm')).queries.filter((q) => q.MetricStat) as Query[]).map((q) => q.MetricStat!.Period);
  const cloudwatch = metricsOn.metrics.cloudwatch!;
  assert.deepEqual([cloudwatch.flushIntervalS, cloudwatch.storageResolutionS], [10, 1]);
  for (const period of periods) {
    assert.ok([10, 20, 30].includes(period) || period % 60 === 0, `${period} s is a period CloudWatch takes`);
    assert.equal(period % cloudwatch.flushIntervalS, 0, 'each period holds whole flushes');
    if (period < 60) assert.equal(cloudwatch.storageResolutionS, 1, 'a sub-minute period needs high-resolution metrics');
  }
});

test("scale-in is the guarded policy's alone: low CPU in minutes without a shell, never while pages get the shell", () => {
  // Elastic Beanstalk's low alarm compares CPU below 0%: it never fires.
  assert.equal(settingValue(settings, 'aws:autoscaling:trigger', 'LowerThreshold'), 0);
  const policy = props('KioskScaleInPolicy');
  assert.equal(ref(policy.AutoScalingGroupName), 'AWSEBAutoScalingGroup');
  assert.ok((policy.StepAdjustments as Step[]).every((s) => s.ScalingAdjustment < 0));
  const alarm = alarmsOf('KioskScaleInPolicy')[0]?.[1];
  const { source, queries } = expressionOf(alarm!);
  const cpu = queries.find((q) => q.MetricStat?.Metric.MetricName === 'CPUUtilization')!;
  assert.deepEqual(cpu.MetricStat!.Metric.Dimensions, [{ Name: 'AutoScalingGroupName', Value: { Ref: 'AWSEBAutoScalingGroup' } }]);
  assert.equal(cpu.MetricStat!.Metric.Namespace, 'AWS/EC2');
  const shells = queries.filter((q) =>
    [metricNames.shell, metricNames.nginxShell, metricNames.nginxLastGood].includes(q.MetricStat?.Metric.MetricName as 'Shell'),
  );
  assert.equal(shells.length, 3);
  const guard = parseExpression(source);
  const values = (cpuValue: number, counts: number[]) => ({ [cpu.Id]: cpuValue, ...Object.fromEntries(shells.map((q, i) => [q.Id, counts[i] ?? 0])) });
  const threshold = alarm!.Threshold as number;
  assert.ok(guard.evaluate(values(5, [0, 0, 0])) < threshold, 'low CPU and no shell: scale in');
  for (const [i, q] of shells.entries()) {
    const one = [0, 0, 0].map((_, j) => (j === i ? 1 : 0));
    assert.ok(!(guard.evaluate(values(5, one)) < threshold), `a single ${q.MetricStat!.Metric.MetricName} holds it`);
  }
  assert.equal(alarm!.ComparisonOperator, 'LessThanThreshold');
  // Without Kiosk's metrics the expression has no value: missing is not breaching, the fleet stays.
  assert.equal(alarm!.TreatMissingData, 'notBreaching');
});

test("the group's default instance warmup is on, and lasts longer than the scale-out alarm's window", () => {
  const warmup = props('AWSEBAutoScalingGroup').DefaultInstanceWarmup as number;
  const alarm = props('KioskOverloadAlarm');
  const period = (alarm.Metrics as Query[]).find((q) => q.MetricStat)!.MetricStat!.Period;
  assert.ok(warmup >= 0 && warmup <= 3600);
  assert.ok(warmup > period * (alarm.EvaluationPeriods as number));
});
