import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { optionSettings, parseConfigFile, repositoryRoot } from '@kiosk/surface';
import { InputError } from './duration';
import { readPolicy } from './policy';
import { readScalingResources } from './scaling-resources';

const ebextensions = path.join(repositoryRoot, '.ebextensions');

function read(resources: string, options = '') {
  const file = parseConfigFile('99-test.config', `${options}Resources:\n${resources}`, () => {})!;
  const warnings: string[] = [];
  return { resources: readScalingResources([file], optionSettings([file]), warnings), warnings };
}

const policy = `  Out:
    Type: AWS::AutoScaling::ScalingPolicy
    Properties:
      AutoScalingGroupName: { Ref: AWSEBAutoScalingGroup }
      PolicyType: StepScaling
      AdjustmentType: ChangeInCapacity
      StepAdjustments:
        - MetricIntervalLowerBound: 0
          ScalingAdjustment: 1
`;
const singleMetricAlarm = (props: string) => `  High:
    Type: AWS::CloudWatch::Alarm
    Properties:
      EvaluationPeriods: 2
      Threshold: 75
      ComparisonOperator: GreaterThanThreshold
      AlarmActions: [{ Ref: Out }]
${props}`;
const groupCpu = `      Namespace: AWS/EC2
      MetricName: CPUUtilization
      Dimensions: [{ Name: AutoScalingGroupName, Value: { Ref: AWSEBAutoScalingGroup } }]
`;

describe('the scaling Resources, read as the simulator runs them', () => {
  test("the repository's: a 240 s default instance warmup, a scale-out on the shell share every 10 s, a guarded scale-in", () => {
    const { resources, warnings } = readPolicy({ dir: ebextensions, design: false, overrides: [] });
    assert.deepEqual(warnings, []);
    assert.equal(resources.defaultInstanceWarmupS, 240);
    const [out, scaleIn] = resources.policies;
    assert.ok(out?.kind === 'step' && scaleIn?.kind === 'step');
    assert.deepEqual(
      [out.name, out.alarm.name, out.alarm.periodS, out.alarm.evaluationPeriods, out.alarm.threshold],
      ['KioskOverloadScaleOutPolicy', 'KioskOverloadAlarm', 10, 3, 1],
    );
    assert.deepEqual(
      out.alarm.metrics.map((m) => m.source),
      ['serverRendered', 'shell', 'nginxShell', 'nginxLastGood'],
    );
    // The alarm's own expression, evaluated: a quarter of the pages not rendered fresh is 25.
    assert.equal(out.alarm.expression.evaluate({ ssr: 750, shell: 0, nginxShell: 250, nginxLastGood: 0 }), 25);
    assert.equal(out.alarm.expression.evaluate({ ssr: 750, shell: 0, nginxShell: 50, nginxLastGood: 200 }), 25);
    assert.deepEqual([scaleIn.alarm.periodS, scaleIn.alarm.threshold, scaleIn.alarm.comparison], [60, 35, 'LessThanThreshold']);
    assert.equal(scaleIn.alarm.expression.evaluate({ cpu: 20, shell: 0, nginxShell: 1, nginxLastGood: 0 }), 100);
    assert.equal(scaleIn.alarm.expression.evaluate({ cpu: 20, shell: 0, nginxShell: 0, nginxLastGood: 1 }), 100);
    assert.equal(scaleIn.alarm.expression.evaluate({ cpu: 20, shell: 0, nginxShell: 0, nginxLastGood: 0 }), 20);
  });

  test('a single-metric alarm on the group CPU and a CPU target tracking policy', () => {
    const tracking = `  Tracking:
    Type: AWS::AutoScaling::ScalingPolicy
    Properties:
      AutoScalingGroupName: { Ref: AWSEBAutoScalingGroup }
      PolicyType: TargetTrackingScaling
      EstimatedInstanceWarmup: 180
      TargetTrackingConfiguration:
        PredefinedMetricSpecification: { PredefinedMetricType: ASGAverageCPUUtilization }
        TargetValue: 60
        DisableScaleIn: true
`;
    const { resources } = read(policy + singleMetricAlarm(`${groupCpu}      Statistic: Average\n      Period: 60\n`) + tracking);
    assert.deepEqual(
      resources.policies.map((p) => [p.kind, p.name]),
      [
        ['step', 'Out'],
        ['target-tracking', 'Tracking'],
      ],
    );
    assert.deepEqual(resources.policies[1], { kind: 'target-tracking', name: 'Tracking', targetValue: 60, disableScaleIn: true, warmupS: 180 });
  });

  test('what the simulator cannot run as AWS would is refused, with the reason', () => {
    const refused = (alarmProps: string, pattern: RegExp) =>
      assert.throws(
        () => read(policy + singleMetricAlarm(alarmProps)),
        (e: Error) => e instanceof InputError && pattern.test(e.message),
      );
    refused(`${groupCpu}      Statistic: Sum\n      Period: 60\n`, /Average statistic only/);
    refused(`${groupCpu}      Statistic: Average\n      Period: 10\n`, /per minute at best/);
    refused(`${groupCpu}      Statistic: Average\n      Period: 45\n`, /10, 20, 30 or a multiple of 60/);
    refused(`      Namespace: AWS/ApplicationELB\n      MetricName: RequestCount\n      Statistic: Sum\n      Period: 60\n`, /not simulated/);
    refused(
      `      Namespace: Kiosk\n      MetricName: Shell\n      Dimensions: [{ Name: Environment, Value: prod }, { Name: Instance, Value: i-1 }]\n      Statistic: Sum\n      Period: 60\n`,
      /Environment dimension alone/,
    );
    // Kiosk's metrics are looked for in the namespace the instances send them to.
    refused(
      `      Namespace: News\n      MetricName: Shell\n      Dimensions: [{ Name: Environment, Value: prod }]\n      Statistic: Sum\n      Period: 60\n`,
      /News Shell is not simulated/,
    );
  });

  test('the namespace comes from METRICS_NAMESPACE when the files set it', () => {
    const options = 'option_settings:\n  aws:elasticbeanstalk:application:environment:\n    METRICS_NAMESPACE: News\n';
    const { resources } = read(
      policy +
        singleMetricAlarm(
          `      Namespace: News\n      MetricName: NginxShell\n      Dimensions: [{ Name: Environment, Value: prod }]\n      Statistic: Sum\n      Period: 60\n`,
        ),
      options,
    );
    assert.deepEqual(resources.policies[0]?.kind === 'step' && resources.policies[0].alarm.metrics, [{ id: 'm1', source: 'nginxShell' }]);
  });

  test('a policy no alarm invokes, or on another group, is a warning', () => {
    const other = policy.replace('Out:', 'Other:').replace('{ Ref: AWSEBAutoScalingGroup }', 'some-other-group');
    const { resources, warnings } = read(policy + other);
    assert.deepEqual(resources.policies, []);
    assert.match(warnings.join('\n'), /Resources Out: no alarm invokes it/);
    assert.match(warnings.join('\n'), /Resources Other scales another group/);
  });
});
