// The fleet second by second, and Elastic Beanstalk's two CloudWatch alarms on its CPU, with the
// mechanics AWS documents (docs/capacity-planning.md cites the pages):
//   - Load spreads evenly over the instances the load balancer sends traffic to (healthy ones),
//     each serving as workload.ts says.
//   - The alarms watch the group's CPUUtilization: every instance from InService counts, so an
//     instance still deploying or waiting for its health checks reports its own low CPU
//     (warmingCpu) and pulls the group's average down.
//   - Instances report CPU every metricResolutionS; a datapoint is the statistic of those reports
//     over each period, and the alarm sees it metricDelayS after its period ends.
//   - Alarms are evaluated every minute on their last evaluationPeriods datapoints: ALARM when at
//     least datapointsToAlarm of them breach, else OK. An alarm in ALARM invokes its simple
//     scaling policy when it enters ALARM and again every period while it stays there.
//   - A simple scaling policy does nothing while its group's activity is under way or the
//     cooldown runs. A scale-out's activity ends when its last instance is InService, and the
//     cooldown starts then; a scale-in takes instances out of the load balancer at once, and its
//     cooldown starts when their deregistration delay is over.
import { healthyAfterS, type HealthCheck, type LaunchTiming } from './launch';
import type { ScalingPolicy } from './policy';
import { originLoad, serveOnInstance, type InstanceCapacity, type Traffic } from './workload';

export interface LaunchModel {
  /** One launched instance's timing; called once per instance, in launch order. */
  draw: () => LaunchTiming;
  /** CPU an instance reports from InService until it takes traffic, 0..1. */
  warmingCpu: number;
}

export interface SimulationInput {
  policy: ScalingPolicy;
  capacity: InstanceCapacity;
  traffic: Traffic;
  /** Page views per second at the edge during second t. */
  rateAt: (t: number) => number;
  durationS: number;
  launch: LaunchModel;
  /** From a period's end until its datapoint is there for the alarm. */
  metricDelayS: number;
  /** Instances taking traffic at t = 0 (MinSize..MaxSize). */
  initialInstances: number;
}

export interface ScalingAction {
  /** When the policy ran (an alarm evaluation that invoked it). */
  atS: number;
  direction: 'up' | 'down';
  /** Desired capacity before and after. */
  from: number;
  to: number;
  /** Up: when the last new instance is InService (the activity's end). Down: atS. */
  inServiceAtS: number;
  /** Up: when each new instance takes traffic, in launch order. Down: []. */
  healthyAtS: number[];
  /** Up: when the last new instance takes traffic. Down: atS. */
  readyAtS: number;
  cooldownUntilS: number;
  /** The datapoints the alarm evaluated, oldest first. */
  datapoints: number[];
}

/** One second of the run; rates per second, summed over the fleet. */
export interface Second {
  /** Taking traffic. */
  ready: number;
  /** Launched, not taking traffic yet (pending and warming). */
  booting: number;
  /** InService but not taking traffic yet: counted in the alarm's CPU. */
  warming: number;
  viewsPerS: number;
  originPerS: number;
  ssr: number;
  shell: number;
  api: number;
  shed: number;
  /** CPU of the instances taking traffic, 0..1 (all equal: load spreads evenly). */
  cpu: number;
  /** The group's CPU as the alarm's statistic sees it, warming instances included, 0..1. */
  groupCpu: number;
}

export interface Datapoint {
  /** End of the period. */
  atS: number;
  /** When the alarm can see it. */
  availableAtS: number;
  /** Percent. */
  value: number;
}

export type AlarmName = 'high' | 'low';

export interface AlarmChange {
  atS: number;
  alarm: AlarmName;
  state: 'ALARM' | 'OK';
}

export interface Invocation {
  atS: number;
  alarm: AlarmName;
  outcome: 'scaled' | 'activity under way' | 'cooldown' | 'at limit';
}

export interface SimulationResult {
  seconds: Second[];
  actions: ScalingAction[];
  datapoints: Datapoint[];
  alarmChanges: AlarmChange[];
  invocations: Invocation[];
  /** Invocations with the fleet already at MaxSize (high) or MinSize (low). */
  heldAtLimit: { up: number; down: number };
}

export function validateInput(input: SimulationInput): void {
  const { policy, initialInstances, durationS, capacity } = input;
  if (!Number.isInteger(initialInstances) || initialInstances < policy.minSize || initialInstances > policy.maxSize) {
    throw new RangeError(`initial instances (${initialInstances}) must be a whole number within MinSize..MaxSize (${policy.minSize}..${policy.maxSize})`);
  }
  if (policy.periodS % 60 !== 0 || policy.periodS % policy.metricResolutionS !== 0)
    throw new RangeError('the period must be whole minutes and a multiple of the metric resolution');
  if (policy.datapointsToAlarm < 1 || policy.datapointsToAlarm > policy.evaluationPeriods)
    throw new RangeError('DatapointsToAlarm must be from 1 to EvaluationPeriods');
  if (input.metricDelayS < 0 || durationS <= 0) throw new RangeError('the metric delay must be ≥ 0 and the duration > 0');
  if (input.launch.warmingCpu < 0 || input.launch.warmingCpu > 1) throw new RangeError('the warming CPU must be a share from 0 to 1');
  if (capacity.shellPerS <= capacity.ssrPerS) throw new RangeError('a shell must be cheaper than a server-rendered page (shell rate above SSR rate)');
}

function across(values: number[], kind: ScalingPolicy['statistic']): number {
  if (kind === 'Maximum') return Math.max(...values);
  if (kind === 'Minimum') return Math.min(...values);
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** The group's CPU in one second for the alarm's statistic: ready instances at cpu, warming ones at warmingCpu. */
function groupStatistic(ready: number, cpu: number, warming: number, warmingCpu: number, kind: ScalingPolicy['statistic']): number {
  if (warming === 0) return cpu;
  if (kind === 'Average') return (ready * cpu + warming * warmingCpu) / (ready + warming);
  return across([cpu, warmingCpu], kind);
}

interface Launched {
  inServiceAtS: number;
  healthyAtS: number;
}

interface AlarmState {
  name: AlarmName;
  inAlarm: boolean;
  lastInvokedAtS: number;
}

export function simulate(input: SimulationInput): SimulationResult {
  validateInput(input);
  const { policy, capacity, traffic, launch } = input;
  const check: HealthCheck = {
    intervalS: policy.healthCheckIntervalS,
    healthyThreshold: policy.healthyThreshold,
    unhealthyThreshold: policy.unhealthyThreshold,
  };
  const seconds: Second[] = [];
  const actions: ScalingAction[] = [];
  const datapoints: Datapoint[] = [];
  const alarmChanges: AlarmChange[] = [];
  const invocations: Invocation[] = [];
  const heldAtLimit = { up: 0, down: 0 };
  const alarms: AlarmState[] = [
    { name: 'high', inAlarm: false, lastInvokedAtS: 0 },
    { name: 'low', inAlarm: false, lastInvokedAtS: 0 },
  ];
  let ready = input.initialInstances;
  let launched: Launched[] = [];
  let activityUntilS = 0;
  let cooldownUntilS = 0;
  let reportSum = 0;
  let reportCount = 0;
  let periodReports: number[] = [];

  const runPolicy = (alarm: AlarmState, now: number, recent: number[]): void => {
    const high = alarm.name === 'high';
    const desired = ready + launched.length;
    const target = Math.min(policy.maxSize, Math.max(policy.minSize, desired + (high ? policy.upperIncrement : policy.lowerIncrement)));
    if (now < activityUntilS) return void invocations.push({ atS: now, alarm: alarm.name, outcome: 'activity under way' });
    if (now < cooldownUntilS) return void invocations.push({ atS: now, alarm: alarm.name, outcome: 'cooldown' });
    if (target === desired) {
      heldAtLimit[high ? 'up' : 'down']++;
      return void invocations.push({ atS: now, alarm: alarm.name, outcome: 'at limit' });
    }
    invocations.push({ atS: now, alarm: alarm.name, outcome: 'scaled' });
    if (target > desired) {
      const added = Array.from({ length: target - desired }, () => {
        const timing = launch.draw();
        return { inServiceAtS: now + timing.inServiceS, healthyAtS: now + healthyAfterS(timing, check) };
      });
      launched = [...launched, ...added];
      activityUntilS = Math.max(...added.map((i) => i.inServiceAtS));
      cooldownUntilS = activityUntilS + policy.cooldownS;
      const healthyAtS = added.map((i) => i.healthyAtS);
      actions.push({
        atS: now,
        direction: 'up',
        from: desired,
        to: target,
        inServiceAtS: activityUntilS,
        healthyAtS,
        readyAtS: Math.max(...healthyAtS),
        cooldownUntilS,
        datapoints: recent,
      });
    } else {
      // Instances that take traffic are the ones removed: a scale-in cannot start while a scale-out is under way.
      ready = target - launched.length;
      activityUntilS = now + policy.deregistrationDelayS;
      cooldownUntilS = activityUntilS + policy.cooldownS;
      actions.push({
        atS: now,
        direction: 'down',
        from: desired,
        to: target,
        inServiceAtS: now,
        healthyAtS: [],
        readyAtS: now,
        cooldownUntilS,
        datapoints: recent,
      });
    }
  };

  for (let t = 0; t < input.durationS; t++) {
    const joining = launched.filter((i) => i.healthyAtS <= t).length;
    if (joining > 0) {
      ready += joining;
      launched = launched.filter((i) => i.healthyAtS > t);
    }
    const warming = launched.filter((i) => i.inServiceAtS <= t).length;
    const viewsPerS = input.rateAt(t);
    const load = originLoad(viewsPerS, traffic);
    const one = serveOnInstance(load.htmlPerS / ready, load.apiPerS / ready, capacity);
    const groupCpu = groupStatistic(ready, one.cpu, warming, launch.warmingCpu, policy.statistic);
    seconds.push({
      ready,
      booting: launched.length,
      warming,
      viewsPerS,
      originPerS: load.originPerS,
      ssr: one.ssr * ready,
      shell: one.shell * ready,
      api: one.api * ready,
      shed: one.shed * ready,
      cpu: one.cpu,
      groupCpu,
    });

    const now = t + 1;
    reportSum += groupCpu * 100;
    reportCount++;
    if (now % policy.metricResolutionS === 0) {
      periodReports.push(reportSum / reportCount);
      reportSum = 0;
      reportCount = 0;
    }
    if (now % policy.periodS === 0) {
      datapoints.push({ atS: now, availableAtS: now + input.metricDelayS, value: across(periodReports, policy.statistic) });
      periodReports = [];
    }
    if (now % 60 !== 0) continue;

    const visible = datapoints.filter((d) => d.availableAtS <= now);
    if (visible.length < policy.evaluationPeriods) continue;
    const recent = visible.slice(-policy.evaluationPeriods).map((d) => d.value);
    for (const alarm of alarms) {
      const breaching = recent.filter((v) => (alarm.name === 'high' ? v > policy.upperThreshold : v < policy.lowerThreshold)).length;
      const inAlarm = breaching >= policy.datapointsToAlarm;
      const entered = inAlarm && !alarm.inAlarm;
      if (inAlarm !== alarm.inAlarm) alarmChanges.push({ atS: now, alarm: alarm.name, state: inAlarm ? 'ALARM' : 'OK' });
      alarm.inAlarm = inAlarm;
      if (inAlarm && (entered || now - alarm.lastInvokedAtS >= policy.periodS)) {
        alarm.lastInvokedAtS = now;
        runPolicy(alarm, now, recent);
      }
    }
  }
  return { seconds, actions, datapoints, alarmChanges, invocations, heldAtLimit };
}
