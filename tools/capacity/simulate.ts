// The fleet second by second, and Elastic Beanstalk's two CloudWatch alarms on its CPU.
//   Each second: instances whose boot has finished join; the edge's page views become origin
//   requests, spread evenly over the ready instances, each serving as workload.ts says.
//   CPU: instances report it every metricResolutionS; a datapoint is the statistic of those
//   reports over each period; an alarm is in ALARM while its last evaluationPeriods
//   datapoints are all above UpperThreshold (or all below LowerThreshold).
//   Every minute an alarm in ALARM invokes its scaling policy (CloudWatch repeats Auto
//   Scaling actions while the alarm stays in ALARM), which changes the desired capacity by
//   its increment within MinSize..MaxSize, unless an activity is under way or the cooldown
//   runs: a scale-up is under way until its instances are ready (after bootS), and the
//   cooldown starts then; a scale-down takes instances out at once and starts the cooldown.
import type { ScalingPolicy } from './policy';
import { originLoad, serveOnInstance, type InstanceCapacity, type Traffic } from './workload';

export interface SimulationInput {
  policy: ScalingPolicy;
  capacity: InstanceCapacity;
  traffic: Traffic;
  /** Page views per second at the edge during second t. */
  rateAt: (t: number) => number;
  durationS: number;
  /** From launch to taking traffic at the load balancer. */
  bootS: number;
  /** Instances ready at t = 0 (MinSize..MaxSize). */
  initialInstances: number;
}

export interface ScalingAction {
  /** When the policy ran (end of the minute whose evaluation found the alarm in ALARM). */
  atS: number;
  direction: 'up' | 'down';
  /** Desired capacity before and after. */
  from: number;
  to: number;
  /** Up: when the new instances take traffic. Down: atS. */
  readyAtS: number;
  cooldownUntilS: number;
  /** The datapoints that put the alarm in ALARM, oldest first. */
  datapoints: number[];
}

/** One second of the run; rates per second, summed over the fleet. */
export interface Second {
  ready: number;
  booting: number;
  viewsPerS: number;
  originPerS: number;
  ssr: number;
  shell: number;
  api: number;
  shed: number;
  /** Average CPU of the ready instances, 0..1 (all equal: load spreads evenly). */
  cpu: number;
}

export interface Datapoint {
  /** End of the period. */
  atS: number;
  /** Percent. */
  value: number;
}

export interface SimulationResult {
  seconds: Second[];
  actions: ScalingAction[];
  datapoints: Datapoint[];
  /** Minutes in which an alarm was in ALARM but the fleet was already at MaxSize (up) or MinSize (down). */
  heldAtLimit: { up: number; down: number };
}

function statistic(values: number[], kind: ScalingPolicy['statistic']): number {
  if (kind === 'Maximum') return Math.max(...values);
  if (kind === 'Minimum') return Math.min(...values);
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function validateInput(input: SimulationInput): void {
  const { policy, initialInstances, bootS, durationS, capacity } = input;
  if (!Number.isInteger(initialInstances) || initialInstances < policy.minSize || initialInstances > policy.maxSize) {
    throw new RangeError(`initial instances (${initialInstances}) must be a whole number within MinSize..MaxSize (${policy.minSize}..${policy.maxSize})`);
  }
  if (policy.periodS % 60 !== 0 || policy.periodS % policy.metricResolutionS !== 0)
    throw new RangeError('the period must be whole minutes and a multiple of the metric resolution');
  if (bootS < 0 || durationS <= 0) throw new RangeError('boot time must be ≥ 0 and the duration > 0');
  if (capacity.shellPerS <= capacity.ssrPerS) throw new RangeError('a shell must be cheaper than a server-rendered page (shell rate above SSR rate)');
}

export function simulate(input: SimulationInput): SimulationResult {
  validateInput(input);
  const { policy, capacity, traffic, bootS } = input;
  const seconds: Second[] = [];
  const actions: ScalingAction[] = [];
  const datapoints: Datapoint[] = [];
  const heldAtLimit = { up: 0, down: 0 };
  let ready = input.initialInstances;
  let bootingUntil: number[] = [];
  let busyUntilS = 0;
  let reportSum = 0;
  let reportCount = 0;
  let periodReports: number[] = [];

  for (let t = 0; t < input.durationS; t++) {
    const joining = bootingUntil.filter((at) => at <= t).length;
    if (joining > 0) {
      ready += joining;
      bootingUntil = bootingUntil.filter((at) => at > t);
    }
    const viewsPerS = input.rateAt(t);
    const load = originLoad(viewsPerS, traffic);
    const one = serveOnInstance(load.htmlPerS / ready, load.apiPerS / ready, capacity);
    seconds.push({
      ready,
      booting: bootingUntil.length,
      viewsPerS,
      originPerS: load.originPerS,
      ssr: one.ssr * ready,
      shell: one.shell * ready,
      api: one.api * ready,
      shed: one.shed * ready,
      cpu: one.cpu,
    });

    const now = t + 1;
    reportSum += one.cpu * 100;
    reportCount++;
    if (now % policy.metricResolutionS === 0) {
      periodReports.push(reportSum / reportCount);
      reportSum = 0;
      reportCount = 0;
    }
    if (now % policy.periodS === 0) {
      datapoints.push({ atS: now, value: statistic(periodReports, policy.statistic) });
      periodReports = [];
    }
    if (now % 60 !== 0 || datapoints.length < policy.evaluationPeriods) continue;

    const recent = datapoints.slice(-policy.evaluationPeriods).map((d) => d.value);
    const high = recent.every((v) => v > policy.upperThreshold);
    const low = recent.every((v) => v < policy.lowerThreshold);
    if (!high && !low) continue;
    const desired = ready + bootingUntil.length;
    const target = Math.min(policy.maxSize, Math.max(policy.minSize, desired + (high ? policy.upperIncrement : policy.lowerIncrement)));
    if (now < busyUntilS) continue;
    if (target === desired) {
      heldAtLimit[high ? 'up' : 'down']++;
      continue;
    }
    if (target > desired) {
      bootingUntil = [...bootingUntil, ...Array.from({ length: target - desired }, () => now + bootS)];
      busyUntilS = now + bootS + policy.cooldownS;
      actions.push({ atS: now, direction: 'up', from: desired, to: target, readyAtS: now + bootS, cooldownUntilS: busyUntilS, datapoints: recent });
    } else {
      ready = target;
      busyUntilS = now + policy.cooldownS;
      actions.push({ atS: now, direction: 'down', from: desired, to: target, readyAtS: now, cooldownUntilS: busyUntilS, datapoints: recent });
    }
  }
  return { seconds, actions, datapoints, heldAtLimit };
}
