import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { repositoryRoot } from '@kiosk/surface';
import { InputError } from './duration';
import { collectSettings, readPolicy, resolvePolicy, type ConfigFile } from './policy';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

function fromText(...texts: string[]) {
  const warnings: string[] = [];
  const files: ConfigFile[] = texts.map((text, i) => ({ name: `${String(i + 1).padStart(2, '0')}.config`, text }));
  return resolvePolicy(collectSettings(files, warnings), 'test', [], warnings);
}

const cpuTrigger = `option_settings:
  aws:autoscaling:trigger:
    MeasureName: CPUUtilization
    Unit: Percent
`;

describe('reading .ebextensions', () => {
  test('map form: comments, CloudFormation Resources with short-form tags and files blocks change nothing', () => {
    const reading = readPolicy({ dir: path.join(fixtures, 'ebextensions-map'), design: false, overrides: [] });
    assert.deepEqual(reading.policy, {
      measureName: 'CPUUtilization',
      statistic: 'Average',
      unit: 'Percent',
      periodS: 60,
      breachDurationS: 120,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      metricResolutionS: 60,
      upperThreshold: 75,
      lowerThreshold: 35,
      upperIncrement: 4,
      lowerIncrement: -2,
      minSize: 2,
      maxSize: 12,
      cooldownS: 300,
      // HealthCheckPath is set in the process namespace, the rest are EB's defaults for an ALB.
      healthCheckIntervalS: 15,
      healthyThreshold: 3,
      unhealthyThreshold: 5,
      deregistrationDelayS: 20,
      instanceType: 'c5.xlarge',
    });
    assert.deepEqual(reading.warnings, []);
    assert.deepEqual(reading.notes, []);
    assert.match(reading.source, /01-autoscaling\.config, 02-instances\.config/);
    const minSize = reading.rows.find((row) => row.option === 'MinSize')!;
    assert.equal(minSize.from, path.join('ebextensions-map', '01-autoscaling.config'));
  });

  test('list form: namespace, option_name, value; BreachDuration from Period × EvaluationPeriods; defaults for the rest', () => {
    const reading = readPolicy({ dir: path.join(fixtures, 'ebextensions-list'), design: false, overrides: [] });
    const p = reading.policy;
    assert.deepEqual(
      [p.minSize, p.maxSize, p.periodS, p.evaluationPeriods, p.breachDurationS, p.upperThreshold, p.lowerThreshold, p.upperIncrement, p.lowerIncrement],
      [3, 9, 60, 3, 180, 70, 30, 2, -1],
    );
    assert.equal(p.statistic, 'Average');
    assert.equal(p.cooldownS, 360);
    assert.equal(p.instanceType, null);
    assert.ok(reading.notes.some((n) => n.includes('BreachDuration not set')));
    assert.equal(reading.warnings.length, 1);
    assert.match(reading.warnings[0]!, /Resources overrides EB's AWSEBAutoScalingGroup \(HealthCheckType, HealthCheckGracePeriod\)/);
  });

  test("missing options take EB's documented defaults, and the report says which", () => {
    const reading = readPolicy({ dir: path.join(fixtures, 'ebextensions-partial'), design: false, overrides: [] });
    const p = reading.policy;
    assert.deepEqual(
      [
        p.statistic,
        p.periodS,
        p.breachDurationS,
        p.evaluationPeriods,
        p.metricResolutionS,
        p.upperIncrement,
        p.lowerIncrement,
        p.minSize,
        p.maxSize,
        p.cooldownS,
      ],
      ['Average', 300, 300, 1, 300, 1, -1, 1, 4, 360],
    );
    const defaulted = reading.rows.filter((row) => row.from === 'EB default').map((row) => row.option);
    assert.deepEqual(defaulted.sort(), [
      'BreachDuration',
      'Cooldown',
      'DeregistrationDelay',
      'EvaluationPeriods',
      'HealthCheckInterval',
      'HealthyThresholdCount',
      'InstanceTypes',
      'LowerBreachScaleIncrement',
      'MaxSize',
      'MinSize',
      'MonitoringInterval',
      'Period',
      'Statistic',
      'UnhealthyThresholdCount',
      'UpperBreachScaleIncrement',
    ]);
    assert.ok(reading.notes.some((n) => n.includes("MaxSize not set: EB's default is 4")));
  });

  test("no .ebextensions/: the newsroom's field policy, with a note that says so", () => {
    const reading = readPolicy({ dir: path.join(fixtures, 'no-such-dir'), design: false, overrides: [] });
    assert.match(reading.notes[0]!, /^\S*no-such-dir\/ does not exist: using the newsroom's field policy instead\.$/);
    const p = reading.policy;
    assert.deepEqual(
      [p.upperThreshold, p.lowerThreshold, p.periodS, p.breachDurationS, p.upperIncrement, p.lowerIncrement, p.minSize],
      [75, 35, 60, 120, 4, -2, 2],
    );
    assert.equal(reading.source, "the newsroom's field policy");
  });

  test('--option overrides the files', () => {
    const reading = readPolicy({
      dir: path.join(fixtures, 'ebextensions-map'),
      design: false,
      overrides: ['aws:autoscaling:asg:MaxSize=20', 'aws:autoscaling:trigger:UpperBreachScaleIncrement=2'],
    });
    assert.deepEqual([reading.policy.maxSize, reading.policy.upperIncrement], [20, 2]);
    assert.equal(reading.rows.find((row) => row.option === 'MaxSize')!.from, '--option');
    assert.throws(() => readPolicy({ dir: fixtures, design: true, overrides: ['MaxSize=3'] }), InputError);
  });

  test('the default trigger (NetworkOut) is refused with a message that says what to set', () => {
    assert.throws(
      () => fromText('option_settings:\n  aws:autoscaling:asg:\n    MinSize: 2\n'),
      /MeasureName is NetworkOut \(EB default: the files do not set it\)/,
    );
  });

  test("EB's default thresholds are network bytes: on CPU they would mean always scaling down", () => {
    const reading = fromText(cpuTrigger);
    assert.deepEqual([reading.policy.upperThreshold, reading.policy.lowerThreshold], [6000000, 2000000]);
    assert.match(reading.warnings.join('\n'), /UpperThreshold 6000000 is above 100% CPU/);
    assert.match(reading.warnings.join('\n'), /LowerThreshold 2000000 is above 100% CPU: the low alarm is always in ALARM/);
  });

  test('a unit other than Percent is a warning: CloudWatch would never fire that alarm', () => {
    const reading = fromText('option_settings:\n  aws:autoscaling:trigger:\n    MeasureName: CPUUtilization\n');
    assert.match(reading.warnings.join('\n'), /Unit is Bytes \(EB default\), not Percent.*INSUFFICIENT_DATA/);
  });

  test('a 1-minute period on basic (5-minute) monitoring is simulated at 5 minutes, with a warning', () => {
    const reading = fromText(cpuTrigger + '    Period: 1\n    BreachDuration: 2\n    EvaluationPeriods: 2\n');
    assert.equal(reading.policy.periodS, 300);
    assert.equal(reading.policy.evaluationPeriods, 1);
    assert.match(reading.warnings.join('\n'), /MonitoringInterval "5 minute", EB default/);
  });

  test('BreachDuration that is not Period × EvaluationPeriods is a warning; BreachDuration rules', () => {
    const reading = fromText(cpuTrigger + '    Period: 1\n    BreachDuration: 3\n  aws:autoscaling:launchconfiguration:\n    MonitoringInterval: 1 minute\n');
    assert.equal(reading.policy.evaluationPeriods, 3);
    assert.match(reading.warnings.join('\n'), /BreachDuration \(3 min\) ≠ Period \(1 min\) × EvaluationPeriods \(1, EB default\)/);
  });

  test('later files win, as EB applies them in alphabetical order, with a warning', () => {
    const reading = fromText(cpuTrigger + '  aws:autoscaling:asg:\n    MinSize: 2\n', 'option_settings:\n  aws:autoscaling:asg:\n    MinSize: 4\n');
    assert.equal(reading.policy.minSize, 4);
    assert.match(reading.warnings.join('\n'), /MinSize: 02\.config sets 4 over 2 from 01\.config/);
  });

  test('option names are case-sensitive: a near miss is a warning, not a setting', () => {
    const reading = fromText(cpuTrigger + '  aws:autoscaling:asg:\n    Minsize: 5\n');
    assert.equal(reading.policy.minSize, 1);
    assert.match(reading.warnings.join('\n'), /no option "Minsize" \(option names are case-sensitive: MinSize\?\)/);
  });

  test('a positive LowerBreachScaleIncrement is taken as EB takes it, with a warning', () => {
    const reading = fromText(cpuTrigger + '    LowerBreachScaleIncrement: 2\n');
    assert.equal(reading.policy.lowerIncrement, 2);
    assert.match(reading.warnings.join('\n'), /adds that many instances on LOW CPU/);
  });

  test('saved-configuration namespaces with a resource prefix are read', () => {
    const reading = fromText(
      cpuTrigger +
        '  AWSEBCloudwatchAlarmHigh.aws:autoscaling:trigger:\n    UpperThreshold: 80\n  AWSEBCloudwatchAlarmLow.aws:autoscaling:trigger:\n    LowerThreshold: 20\n',
    );
    assert.deepEqual([reading.policy.upperThreshold, reading.policy.lowerThreshold], [80, 20]);
  });

  test('bad values and bad YAML name the file and the option', () => {
    assert.throws(() => fromText(cpuTrigger + '  aws:autoscaling:asg:\n    MinSize: two\n'), /aws:autoscaling:asg MinSize is "two" \(01\.config\)/);
    assert.throws(() => fromText(cpuTrigger + '  aws:autoscaling:asg:\n    MinSize: 5\n    MaxSize: 3\n'), /MaxSize \(3\) is below MinSize \(5\)/);
    assert.throws(() => fromText('option_settings: [\n'), /01\.config: not valid YAML/);
  });
});

test("the real .ebextensions give the newsroom's field trigger for scaling out, no scale-in by EB, from a MinSize of 2, with nothing to warn about", () => {
  const reading = readPolicy({ dir: path.join(repositoryRoot, '.ebextensions'), design: false, overrides: [] });
  const p = reading.policy;
  assert.deepEqual(
    [p.measureName, p.statistic, p.unit, p.periodS, p.breachDurationS, p.upperThreshold, p.lowerThreshold, p.upperIncrement, p.lowerIncrement, p.minSize],
    // LowerThreshold 0: the guarded scale-in in Resources takes EB's place (scaling-resources.test.ts).
    ['CPUUtilization', 'Average', 'Percent', 60, 120, 75, 0, 4, -2, 2],
  );
  assert.match(reading.notes.join('\n'), /EB's trigger never scales in/);
  assert.equal(p.metricResolutionS, 60, '1-minute monitoring feeds the 1-minute period');
  assert.equal(p.instanceType, 'c5.xlarge');
  assert.ok(p.maxSize >= 6, 'room for one +4 step from the minimum');
  // The load balancer's checks as 02-load-balancer.config sets them, not EB's defaults (15 s, 3, 5).
  assert.deepEqual([p.healthCheckIntervalS, p.healthyThreshold, p.unhealthyThreshold, p.deregistrationDelayS], [10, 2, 3, 20]);
  assert.deepEqual(reading.warnings, []);
});
