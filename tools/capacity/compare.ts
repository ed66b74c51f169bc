// --recommend's comparison of policies over the same runs: Elastic Beanstalk's CPU trigger alone
// (simple scaling), the overload signal alone (the step policies on Kiosk's shell counts), and
// the two together as configured. Every row keeps the configuration's scale-in. Each runs a day:
// the objective's base rate, its peak for the hold, then the base rate to the end; and again
// with Kiosk's metrics missing, which is how the overload signal fails in the field.
import type { ScalingResources, StepPolicy } from './policies';
import { runTrial, type RecommendInput, type Trial, type Variant } from './recommend';

export type PolicyKey = 'cpu' | 'overload' | 'both';

export const policyLabels: Record<PolicyKey, string> = {
  cpu: "CPU: EB's trigger (simple scaling)",
  overload: 'overload signal (step scaling on the shell share)',
  both: 'both, as configured',
};

export interface PolicyRow {
  key: PolicyKey;
  minSize: number;
  trial: Trial;
  /** The same runs with Kiosk's metrics missing (settle and hold only). */
  withoutMetrics: Trial;
}

export interface Comparison {
  rows: PolicyRow[];
  /** The row recommended, null when none meets the objective. */
  best: PolicyRow | null;
  dayS: number;
  /** Why a policy is not compared (no overload policy declared, say). */
  notes: string[];
}

/** A step policy that adds instances on Kiosk's shell counts: the overload signal. */
export function isOverloadPolicy(p: ScalingResources['policies'][number]): p is StepPolicy {
  return (
    p.kind === 'step' &&
    p.alarm.metrics.some((m) => m.source === 'shell' || m.source === 'nginxShell' || m.source === 'nginxLastGood') &&
    p.steps.every((s) => s.adjustment >= 0)
  );
}

export function variants(resources: ScalingResources): Partial<Record<PolicyKey, Variant>> {
  const others = { ...resources, policies: resources.policies.filter((p) => !isOverloadPolicy(p)) };
  const both = { trigger: { up: true, down: true }, resources };
  if (others.policies.length === resources.policies.length) return { cpu: both };
  return { cpu: { trigger: { up: true, down: true }, resources: others }, overload: { trigger: { up: false, down: true }, resources }, both };
}

export type ComparisonProgress = (key: PolicyKey, minSize: number) => void;

/**
 * Each policy from the MinSize floor up to the smallest MinSize at which it meets the objective
 * (at most four steps up, never above MaxSize). Recommended: of the rows that meet, those that
 * still stop the shells within the hold without Kiosk's metrics (a CPU trigger to fall back on),
 * then the fewest instance-hours over the day.
 */
export function comparePolicies(input: RecommendInput, dayS: number, progress: ComparisonProgress = () => {}): Comparison {
  const { policy, resources = { defaultInstanceWarmupS: null, policies: [] } } = input.simulation;
  const found = variants(resources);
  const notes = found.overload ? [] : ['no step policy on the shell share is declared in Resources: only the CPU trigger is compared'];
  const rows: PolicyRow[] = [];
  for (const key of ['cpu', 'overload', 'both'] as const) {
    const variant = found[key];
    if (!variant) continue;
    const floor = Math.max(1, input.minSizeFloor);
    for (let minSize = floor; minSize <= Math.min(policy.maxSize, floor + 4); minSize++) {
      progress(key, minSize);
      const trial = runTrial(input, minSize, policy.upperIncrement, { variant, durationS: dayS });
      const withoutMetrics = runTrial(input, minSize, policy.upperIncrement, { variant, kioskMetrics: false });
      rows.push({ key, minSize, trial, withoutMetrics });
      if (trial.meets) break;
    }
  }
  const recovers = (row: PolicyRow) => row.withoutMetrics.metAfterS !== null;
  const meeting = rows.filter((row) => row.trial.meets);
  const preferred = meeting.some(recovers) ? meeting.filter(recovers) : meeting;
  const best = preferred.reduce<PolicyRow | null>((b, row) => (b === null || row.trial.runInstanceHours < b.trial.runInstanceHours - 1e-9 ? row : b), null);
  return { rows, best, dayS, notes };
}
