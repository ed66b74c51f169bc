// EC2 Auto Scaling's own policies beside Elastic Beanstalk's trigger, as AWS documents them
// (docs/capacity-planning.md cites the pages): what a step scaling or a target tracking policy
// asks the group for when its alarm invokes it. Pure arithmetic on the group's counts; when it
// runs and what blocks it is simulate.ts's business.
import type { Expression } from './metric-math';

/** The series the simulator can produce: the group's CPU, and Kiosk's page counts per period. */
export type MetricSource = 'cpu' | 'serverRendered' | 'shell' | 'nginxShell' | 'nginxLastGood';

export type Comparison = 'GreaterThanThreshold' | 'GreaterThanOrEqualToThreshold' | 'LessThanThreshold' | 'LessThanOrEqualToThreshold';

/** A CloudWatch metric alarm on one metric or on a metric math expression over several. */
export interface AlarmSpec {
  /** The resource's logical id (or a name of the simulator's own, for target tracking's alarms). */
  name: string;
  metrics: { id: string; source: MetricSource }[];
  /** The value of each datapoint: the expression, or the one metric's id. */
  expression: Expression;
  /** 10, 20 or 30 make a high-resolution alarm; otherwise a multiple of 60. */
  periodS: number;
  evaluationPeriods: number;
  datapointsToAlarm: number;
  threshold: number;
  comparison: Comparison;
}

export type AdjustmentType = 'ChangeInCapacity' | 'PercentChangeInCapacity' | 'ExactCapacity';

/** Bounds relative to the alarm's threshold; null is minus or plus infinity. */
export interface StepAdjustment {
  lower: number | null;
  upper: number | null;
  adjustment: number;
}

export interface StepPolicy {
  kind: 'step';
  name: string;
  alarm: AlarmSpec;
  adjustmentType: AdjustmentType;
  steps: StepAdjustment[];
  minAdjustmentMagnitude: number | null;
  /** EstimatedInstanceWarmup; null: the group's default instance warmup, else its default cooldown. */
  warmupS: number | null;
  aggregation: 'Average' | 'Minimum' | 'Maximum';
}

export interface TargetTrackingPolicy {
  kind: 'target-tracking';
  name: string;
  /** Average CPU of the group, percent (ASGAverageCPUUtilization). */
  targetValue: number;
  disableScaleIn: boolean;
  warmupS: number | null;
}

export type ResourcePolicy = StepPolicy | TargetTrackingPolicy;

export interface ScalingResources {
  /** DefaultInstanceWarmup on the group; null: not enabled. */
  defaultInstanceWarmupS: number | null;
  policies: ResourcePolicy[];
}

export const noResources: ScalingResources = { defaultInstanceWarmupS: null, policies: [] };

/**
 * Target tracking's alarms, which Auto Scaling creates and the user may not edit. AWS's pages
 * give neither their datapoints nor the scale-in threshold beyond "usually more than 10% lower"
 * than the target: these are what the alarms show on a 1-minute metric (our assumption).
 */
export const targetTrackingAlarms = { highDatapoints: 3, lowDatapoints: 15, lowFactor: 0.9 };

export function breaches(value: number, threshold: number, comparison: Comparison): boolean {
  if (Number.isNaN(value)) return false;
  switch (comparison) {
    case 'GreaterThanThreshold':
      return value > threshold;
    case 'GreaterThanOrEqualToThreshold':
      return value >= threshold;
    case 'LessThanThreshold':
      return value < threshold;
    case 'LessThanOrEqualToThreshold':
      return value <= threshold;
  }
}

export function aggregate(values: number[], kind: StepPolicy['aggregation']): number {
  if (kind === 'Maximum') return Math.max(...values);
  if (kind === 'Minimum') return Math.min(...values);
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/**
 * The step for a breach (metric minus threshold): above the threshold the lower bound is
 * inclusive and the upper exclusive, below it the other way round.
 */
export function stepFor(steps: StepAdjustment[], breach: number): StepAdjustment | null {
  const above = breach >= 0;
  return (
    steps.find((s) => {
      const lower = s.lower ?? -Infinity;
      const upper = s.upper ?? Infinity;
      return above ? breach >= lower && breach < upper : breach > lower && breach <= upper;
    }) ?? null
  );
}

/** PercentChangeInCapacity's rounding: above 1 down, between 0 and ±1 to ±1, below -1 up. */
export function roundPercentChange(change: number): number {
  if (change > 1) return Math.floor(change);
  if (change > 0) return 1;
  if (change === 0) return 0;
  if (change >= -1) return -1;
  return Math.ceil(change);
}

/** The capacity an adjustment makes of `current`. */
export function adjusted(type: AdjustmentType, amount: number, current: number, minMagnitude: number | null): number {
  if (type === 'ExactCapacity') return amount;
  if (type === 'ChangeInCapacity') return current + amount;
  let change = roundPercentChange((current * amount) / 100);
  if (minMagnitude !== null && Math.abs(change) < minMagnitude) change = Math.sign(amount) * minMagnitude;
  return current + change;
}

export interface GroupCounts {
  /** InService and past the policy's warm-up: what scale-out counts as the group's capacity. */
  current: number;
  /** Launched and not terminating: pending, warming and taking traffic. */
  desired: number;
  /** desired plus instances still draining: what scale-in counts as the group's capacity. */
  withTerminating: number;
  minSize: number;
  maxSize: number;
}

const clamp = (n: number, g: GroupCounts) => Math.min(g.maxSize, Math.max(g.minSize, n));

/**
 * What a step policy asks for, from the aggregated value of its alarm's datapoints: scale-out
 * adds to the instances past their warm-up and never lowers the desired capacity (breaches in
 * the same step while instances warm up make one activity); scale-in takes from the capacity
 * with the terminating instances counted in. Null: no step matches, or no change.
 */
export function stepTarget(policy: StepPolicy, value: number, g: GroupCounts): { target: number; unclamped: number } | null {
  const step = stepFor(policy.steps, value - policy.alarm.threshold);
  if (!step || step.adjustment === 0) return null;
  if (step.adjustment > 0 || policy.adjustmentType === 'ExactCapacity') {
    const unclamped = adjusted(policy.adjustmentType, step.adjustment, g.current, policy.minAdjustmentMagnitude);
    if (unclamped > g.desired) return { target: clamp(unclamped, g), unclamped };
    if (policy.adjustmentType !== 'ExactCapacity') return null;
  }
  const unclamped = adjusted(policy.adjustmentType, step.adjustment, g.withTerminating, policy.minAdjustmentMagnitude);
  return unclamped < g.desired ? { target: clamp(unclamped, g), unclamped } : null;
}

/**
 * Target tracking: the capacity that brings the metric to the target, rounded up ("we round up
 * and add two instances"; removing 1.5 "we remove just one"). AWS does not publish the formula:
 * proportional to the metric, as its pages describe it, is our reading.
 */
export function targetTrackingTarget(policy: TargetTrackingPolicy, value: number, g: GroupCounts, direction: 'out' | 'in'): number | null {
  if (direction === 'out') {
    const wanted = Math.ceil((g.current * value) / policy.targetValue - 1e-9);
    return wanted > g.desired ? clamp(wanted, g) : null;
  }
  const wanted = Math.ceil((g.withTerminating * value) / policy.targetValue - 1e-9);
  return wanted < g.desired ? clamp(wanted, g) : null;
}
