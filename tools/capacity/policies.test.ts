// Step scaling's arithmetic on AWS's own worked example ("Step adjustments for step scaling" and
// "Instance warm-up" in the EC2 Auto Scaling user guide): a group of 10, an alarm threshold of
// 50%, scale-out steps +10% from 60 and +30% from 70, scale-in −10% below 40 and −30% below 30.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseExpression } from './metric-math';
import { adjusted, roundPercentChange, stepFor, stepTarget, targetTrackingTarget, type AlarmSpec, type GroupCounts, type StepPolicy } from './policies';

const alarm: Omit<AlarmSpec, 'threshold' | 'comparison'> = {
  name: 'a',
  metrics: [],
  expression: parseExpression('1'),
  periodS: 60,
  evaluationPeriods: 1,
  datapointsToAlarm: 1,
};
const out: StepPolicy = {
  kind: 'step',
  name: 'out',
  alarm: { ...alarm, threshold: 50, comparison: 'GreaterThanOrEqualToThreshold' },
  adjustmentType: 'PercentChangeInCapacity',
  steps: [
    { lower: 0, upper: 10, adjustment: 0 },
    { lower: 10, upper: 20, adjustment: 10 },
    { lower: 20, upper: null, adjustment: 30 },
  ],
  minAdjustmentMagnitude: null,
  warmupS: null,
  aggregation: 'Average',
};
const scaleIn: StepPolicy = {
  ...out,
  name: 'in',
  alarm: { ...alarm, threshold: 50, comparison: 'LessThanOrEqualToThreshold' },
  steps: [
    { lower: -10, upper: 0, adjustment: 0 },
    { lower: -20, upper: -10, adjustment: -10 },
    { lower: null, upper: -20, adjustment: -30 },
  ],
};
const group = (current: number, desired: number, withTerminating = desired): GroupCounts => ({ current, desired, withTerminating, minSize: 1, maxSize: 20 });

describe("step adjustments, on AWS's example", () => {
  test('the metric at 60: +10% of 10 → 11', () => {
    assert.deepEqual(stepTarget(out, 60, group(10, 10)), { target: 11, unclamped: 11 });
  });

  test('at 62 while the new instance warms up: capacity is still 10, 10% of it is 1, desired is already 11: no change', () => {
    assert.equal(stepTarget(out, 62, group(10, 11)), null);
  });

  test('at 70 while it warms up: +30% of 10 → 13, two more', () => {
    assert.deepEqual(stepTarget(out, 70, group(10, 11))?.target, 13);
  });

  test('at 70 after it has warmed up: +30% of 11 = 3.3, rounded down → 14', () => {
    assert.deepEqual(stepTarget(out, 70, group(11, 11))?.target, 14);
  });

  test('scale-in from 14: at 40 −10% (1.4, rounded to 1) → 13; at 30 −30% of 13 (3.9, to 3) → 10', () => {
    assert.equal(stepTarget(scaleIn, 40, group(14, 14))?.target, 13);
    assert.equal(stepTarget(scaleIn, 30, group(13, 13))?.target, 10);
  });

  test('scale-in counts terminating instances as capacity, so a second breach removes no more than needed', () => {
    // 14 desired after one went, 15 while it drains: −10% of 15 = 1.5 → 1 → 14: no change.
    assert.equal(stepTarget(scaleIn, 40, group(14, 14, 15)), null);
  });

  test('bounds: above the threshold the lower bound is inclusive and the upper exclusive; below, the other way round', () => {
    assert.equal(stepFor(out.steps, 10)?.adjustment, 10);
    assert.equal(stepFor(out.steps, 9.99)?.adjustment, 0);
    // "If the metric value gets to 40": 10 below the threshold is the −10% step, 9.99 below is not.
    assert.equal(stepFor(scaleIn.steps, -10)?.adjustment, -10);
    assert.equal(stepFor(scaleIn.steps, -9.99)?.adjustment, 0);
  });

  test("PercentChangeInCapacity's rounding and MinAdjustmentMagnitude", () => {
    assert.deepEqual([12.7, 0.67, -0.58, -6.67, 0].map(roundPercentChange), [12, 1, -1, -6, 0]);
    // "a policy that adds 25 percent and a minimum increment of 2 instances": 25% of 4 is 1, 2 are added.
    assert.equal(adjusted('PercentChangeInCapacity', 25, 4, 2), 6);
    assert.equal(adjusted('PercentChangeInCapacity', 25, 4, null), 5);
    assert.equal(adjusted('ChangeInCapacity', 5, 3, null), 8);
    assert.equal(adjusted('ExactCapacity', 5, 3, null), 5);
  });

  test('the group never leaves MinSize..MaxSize', () => {
    assert.deepEqual(stepTarget(out, 90, { ...group(18, 18), maxSize: 20 }), { target: 20, unclamped: 23 });
    // At MinSize the ask is held there: no change (the simulator counts it as held at the limit).
    assert.deepEqual(stepTarget(scaleIn, 20, { ...group(2, 2), minSize: 2 }), { target: 2, unclamped: 1 });
  });
});

describe('target tracking: proportional, rounded up', () => {
  const policy = { kind: 'target-tracking', name: 'cpu', targetValue: 50, disableScaleIn: false, warmupS: null } as const;

  test('"adding 1.5 instances … we round up and add two"; "removing 1.5 … we remove just one"', () => {
    // 3 instances at 75%: 4.5 → 5 wanted... from 3, 1.5 more → 2 added.
    assert.equal(targetTrackingTarget(policy, 75, group(3, 3), 'out'), 5);
    // 5 instances at 35%: 3.5 → 4, one removed where 1.5 could be.
    assert.equal(targetTrackingTarget(policy, 35, group(5, 5), 'in'), 4);
    assert.equal(targetTrackingTarget(policy, 50, group(4, 4), 'out'), null);
  });
});
