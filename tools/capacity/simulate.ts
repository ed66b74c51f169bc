// The fleet second by second, with Elastic Beanstalk's trigger (two CloudWatch alarms on the
// group's CPU and two simple scaling policies) and any EC2 Auto Scaling policies declared beside
// it in Resources, with the mechanics AWS documents (docs/capacity-planning.md cites the pages):
//   - Load spreads evenly over the instances the load balancer sends traffic to (healthy ones),
//     each serving as workload.ts says; every shell is Nginx's (NginxShell): Nginx admits a page
//     to a worker under the same limit as Node's guard, so Node's own Shell is the rare race.
//   - The group's CPU counts an instance from InService, or from the end of the group's default
//     instance warmup when it has one; an instance still deploying reports warmingCpu.
//   - EB's alarms: the CPU reports every metricResolutionS, a datapoint is their statistic over
//     each period, seen metricDelayS after its period ends (trigger.ts); other alarms: alarms.ts.
//   - A simple scaling policy does nothing while its own activity is under way or its cooldown
//     runs (the activity ends when its last instance is InService). Step and target tracking
//     policies have no cooldown: they count the instances past their warm-up (policies.ts).
//   - Policies invoked at the same moment: the one asking for the most capacity wins. A scale-in
//     waits while a scale-out is under way and, with a default instance warmup, while instances
//     warm up; removed instances leave the load balancer at once and drain for the
//     deregistration delay.
import { evaluateAlarm, recordSecond, startAlarm, type AlarmDatapoint, type AlarmRun, type MetricSample } from './alarms';
import { healthyAfterS, type HealthCheck, type LaunchTiming } from './launch';
import { parseExpression } from './metric-math';
import {
  aggregate,
  noResources,
  stepTarget,
  targetTrackingAlarms,
  targetTrackingTarget,
  type AlarmSpec,
  type GroupCounts,
  type ResourcePolicy,
  type ScalingResources,
} from './policies';
import type { ScalingPolicy } from './policy';
import { startTrigger, triggerSecond, type TriggerAlarm } from './trigger';
import { originLoad, serveOnInstance, type InstanceCapacity, type Traffic } from './workload';

export interface LaunchModel {
  /** One launched instance's timing; called once per instance, in launch order. */
  draw: () => LaunchTiming;
  /** CPU an instance reports from InService until it takes traffic, 0..1. */
  warmingCpu: number;
}

export interface SimulationInput {
  /** EB's trigger and the group's settings (MinSize, MaxSize, cooldown, health checks). */
  policy: ScalingPolicy;
  /** EC2 Auto Scaling policies and the group's default instance warmup from Resources; none by default. */
  resources?: ScalingResources;
  /** Which of EB's two trigger alarms act; both by default. */
  trigger?: { up: boolean; down: boolean };
  capacity: InstanceCapacity;
  traffic: Traffic;
  /** Page views per second at the edge during second t. */
  rateAt: (t: number) => number;
  durationS: number;
  launch: LaunchModel;
  /** From a period's end until its datapoint is there for the alarm: EC2's CPU. */
  metricDelayS: number;
  /** The same for Kiosk's own metrics (PutMetricData); metricDelayS when not given. */
  customMetricDelayS?: number;
  /** Instances taking traffic at t = 0 (MinSize..MaxSize). */
  initialInstances: number;
}

export interface ScalingAction {
  /** When the policy ran (an alarm evaluation that invoked it). */
  atS: number;
  /** "trigger" (EB's), or the policy's logical id. */
  by: string;
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
  /** EB's trigger: the end of its cooldown; other policies have none: atS. */
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
  /** InService but not taking traffic yet. */
  warming: number;
  viewsPerS: number;
  originPerS: number;
  ssr: number;
  shell: number;
  api: number;
  shed: number;
  /** CPU of the instances taking traffic, 0..1 (all equal: load spreads evenly). */
  cpu: number;
  /** The group's CPU as EB's alarm statistic sees it, 0..1. */
  groupCpu: number;
}

export type { AlarmDatapoint as Datapoint } from './alarms';

export interface AlarmChange {
  atS: number;
  /** "high" and "low" are EB's trigger; others are alarms' logical ids. */
  alarm: string;
  state: 'ALARM' | 'OK';
}

export type Outcome = 'scaled' | 'activity under way' | 'cooldown' | 'at limit' | 'scale-out under way' | 'warming up' | 'no change' | 'superseded';

export interface Invocation {
  atS: number;
  alarm: string;
  outcome: Outcome;
}

export interface SimulationResult {
  seconds: Second[];
  actions: ScalingAction[];
  /** EB's CPU datapoints. */
  datapoints: AlarmDatapoint[];
  /** Every other alarm's datapoints, by alarm name. */
  alarmDatapoints: Record<string, AlarmDatapoint[]>;
  alarmChanges: AlarmChange[];
  invocations: Invocation[];
  /** Scale-out (scale-in) invocations with the fleet already at MaxSize (MinSize). */
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
  if (input.metricDelayS < 0 || (input.customMetricDelayS ?? 0) < 0 || durationS <= 0) throw new RangeError('metric delays must be ≥ 0 and the duration > 0');
  if (input.launch.warmingCpu < 0 || input.launch.warmingCpu > 1) throw new RangeError('the warming CPU must be a share from 0 to 1');
  if (capacity.shellPerS <= capacity.ssrPerS) throw new RangeError('a shell must be cheaper than a server-rendered page (shell rate above SSR rate)');
}

interface Instance {
  inServiceAtS: number;
  healthyAtS: number;
}

/** An alarm and what it invokes. */
interface Watcher {
  run: AlarmRun;
  policy: ResourcePolicy;
  direction: 'out' | 'in' | 'either';
}

const cpuOnly = (name: string, threshold: number, comparison: AlarmSpec['comparison'], datapoints: number): AlarmSpec => ({
  name,
  metrics: [{ id: 'cpu', source: 'cpu' }],
  expression: parseExpression('cpu'),
  periodS: 60,
  evaluationPeriods: datapoints,
  datapointsToAlarm: datapoints,
  threshold,
  comparison,
});

function watchers(resources: ScalingResources, metricDelayS: number, customDelayS: number): Watcher[] {
  const delay = (spec: AlarmSpec) => Math.max(...spec.metrics.map((m) => (m.source === 'cpu' ? metricDelayS : customDelayS)));
  return resources.policies.flatMap((policy): Watcher[] => {
    if (policy.kind === 'step') return [{ run: startAlarm(policy.alarm, delay(policy.alarm)), policy, direction: 'either' }];
    const { highDatapoints, lowDatapoints, lowFactor } = targetTrackingAlarms;
    const high = cpuOnly(`${policy.name} AlarmHigh`, policy.targetValue, 'GreaterThanThreshold', highDatapoints);
    const low = cpuOnly(`${policy.name} AlarmLow`, policy.targetValue * lowFactor, 'LessThanThreshold', lowDatapoints);
    return [
      { run: startAlarm(high, metricDelayS), policy, direction: 'out' },
      ...(policy.disableScaleIn ? [] : [{ run: startAlarm(low, metricDelayS), policy, direction: 'in' as const }]),
    ];
  });
}

interface Proposal {
  alarm: string;
  by: string;
  /** The desired capacity asked for; null when the invocation asks for nothing. */
  target: number | null;
  outcome: Outcome;
  recent: number[];
}

export function simulate(input: SimulationInput): SimulationResult {
  validateInput(input);
  const { policy, capacity, traffic, launch } = input;
  const resources = input.resources ?? noResources;
  const sides = input.trigger ?? { up: true, down: true };
  const check: HealthCheck = {
    intervalS: policy.healthCheckIntervalS,
    healthyThreshold: policy.healthyThreshold,
    unhealthyThreshold: policy.unhealthyThreshold,
  };
  const groupWarmupS = resources.defaultInstanceWarmupS;
  const seconds: Second[] = [];
  const actions: ScalingAction[] = [];
  const alarmChanges: AlarmChange[] = [];
  const invocations: Invocation[] = [];
  const heldAtLimit = { up: 0, down: 0 };
  const trigger = startTrigger(policy, input.metricDelayS, sides);
  const resourceAlarms = watchers(resources, input.metricDelayS, input.customMetricDelayS ?? input.metricDelayS);
  const instances: Instance[] = Array.from({ length: input.initialInstances }, () => ({ inServiceAtS: -Infinity, healthyAtS: -Infinity }));
  let draining: number[] = [];
  let triggerActivityUntilS = 0;
  let triggerCooldownUntilS = 0;
  const clamp = (n: number) => Math.min(policy.maxSize, Math.max(policy.minSize, n));

  const counts = (now: number, warmupS: number): GroupCounts => ({
    current: instances.filter((i) => i.inServiceAtS + warmupS <= now).length,
    desired: instances.length,
    withTerminating: instances.length + draining.length,
    minSize: policy.minSize,
    maxSize: policy.maxSize,
  });
  // Without a default instance warmup, a step or target tracking policy warms instances up for the group's default cooldown.
  const warmupOf = (p: ResourcePolicy) => p.warmupS ?? groupWarmupS ?? policy.cooldownS;
  const scaleInBlock = (now: number): Outcome | null => {
    if (instances.some((i) => i.inServiceAtS > now)) return 'scale-out under way';
    if (groupWarmupS !== null && instances.some((i) => i.inServiceAtS + groupWarmupS > now)) return 'warming up';
    return null;
  };

  const triggerProposal = (alarm: TriggerAlarm, now: number, recent: number[]): Proposal => {
    const base = { alarm: alarm.name, by: 'trigger', recent };
    const desired = instances.length;
    if (now < triggerActivityUntilS) return { ...base, target: null, outcome: 'activity under way' };
    if (now < triggerCooldownUntilS) return { ...base, target: null, outcome: 'cooldown' };
    const target = clamp(desired + (alarm.name === 'high' ? policy.upperIncrement : policy.lowerIncrement));
    if (target === desired) {
      heldAtLimit[alarm.name === 'high' ? 'up' : 'down']++;
      return { ...base, target: null, outcome: 'at limit' };
    }
    const blocked = target < desired ? scaleInBlock(now) : null;
    return blocked ? { ...base, target: null, outcome: blocked } : { ...base, target, outcome: 'scaled' };
  };

  const resourceProposal = (w: Watcher, now: number, recent: number[]): Proposal => {
    const base = { alarm: w.run.spec.name, by: w.policy.name, recent };
    const g = counts(now, warmupOf(w.policy));
    let target: number | null;
    let unclamped: number | null;
    if (w.policy.kind === 'step') {
      const asked = stepTarget(w.policy, aggregate(recent, w.policy.aggregation), g);
      target = asked?.target ?? null;
      unclamped = asked?.unclamped ?? null;
    } else {
      target = targetTrackingTarget(w.policy, recent[recent.length - 1]!, g, w.direction === 'in' ? 'in' : 'out');
      unclamped = target;
    }
    if (target === null || target === g.desired) {
      if (unclamped !== null && unclamped > policy.maxSize && g.desired === policy.maxSize) heldAtLimit.up++;
      if (unclamped !== null && unclamped < policy.minSize && g.desired === policy.minSize) heldAtLimit.down++;
      return { ...base, target: null, outcome: unclamped === null ? 'no change' : 'at limit' };
    }
    const blocked = target < g.desired ? scaleInBlock(now) : null;
    return blocked ? { ...base, target: null, outcome: blocked } : { ...base, target, outcome: 'scaled' };
  };

  const apply = (winner: Proposal, now: number): void => {
    const from = instances.length;
    const to = winner.target!;
    const fromTrigger = winner.by === 'trigger';
    if (to > from) {
      const added = Array.from({ length: to - from }, () => {
        const timing = launch.draw();
        return { inServiceAtS: now + timing.inServiceS, healthyAtS: now + healthyAfterS(timing, check) };
      });
      instances.push(...added);
      const inServiceAtS = Math.max(...added.map((i) => i.inServiceAtS));
      if (fromTrigger) {
        triggerActivityUntilS = inServiceAtS;
        triggerCooldownUntilS = inServiceAtS + policy.cooldownS;
      }
      const healthyAtS = added.map((i) => i.healthyAtS);
      const cooldownUntilS = fromTrigger ? triggerCooldownUntilS : now;
      actions.push({
        atS: now,
        by: winner.by,
        direction: 'up',
        from,
        to,
        inServiceAtS,
        healthyAtS,
        readyAtS: Math.max(...healthyAtS),
        cooldownUntilS,
        datapoints: winner.recent,
      });
      return;
    }
    // The oldest instances taking traffic go: a scale-in never starts while a scale-out is under way.
    instances.splice(0, from - to);
    draining.push(...Array.from({ length: from - to }, () => now + policy.deregistrationDelayS));
    if (fromTrigger) {
      triggerActivityUntilS = now + policy.deregistrationDelayS;
      triggerCooldownUntilS = triggerActivityUntilS + policy.cooldownS;
    }
    const cooldownUntilS = fromTrigger ? triggerCooldownUntilS : now;
    actions.push({
      atS: now,
      by: winner.by,
      direction: 'down',
      from,
      to,
      inServiceAtS: now,
      healthyAtS: [],
      readyAtS: now,
      cooldownUntilS,
      datapoints: winner.recent,
    });
  };

  for (let t = 0; t < input.durationS; t++) {
    if (draining.length > 0) draining = draining.filter((until) => until > t);
    let ready = 0;
    let warming = 0;
    let countedReady = 0;
    let countedWarming = 0;
    for (const i of instances) {
      const counted = i.inServiceAtS + (groupWarmupS ?? 0) <= t;
      if (i.healthyAtS <= t) {
        ready++;
        if (counted) countedReady++;
      } else if (i.inServiceAtS <= t) {
        warming++;
        if (counted) countedWarming++;
      }
    }
    const viewsPerS = input.rateAt(t);
    const load = originLoad(viewsPerS, traffic);
    const one = ready > 0 ? serveOnInstance(load.htmlPerS / ready, load.apiPerS / ready, capacity) : null;
    const cpu = one?.cpu ?? 0;
    const counted = countedReady + countedWarming;
    const averageCpu = counted === 0 ? null : (countedReady * cpu + countedWarming * launch.warmingCpu) / counted;
    const groupCpu = trigger.statistic(countedReady, cpu, countedWarming, launch.warmingCpu);
    const second: Second = {
      ready,
      booting: instances.length - ready,
      warming,
      viewsPerS,
      originPerS: load.originPerS,
      ssr: (one?.ssr ?? 0) * ready,
      shell: (one?.shell ?? 0) * ready,
      api: (one?.api ?? 0) * ready,
      shed: one ? one.shed * ready : load.originPerS,
      cpu,
      groupCpu: groupCpu ?? cpu,
    };
    seconds.push(second);

    const now = t + 1;
    const sample: MetricSample = { cpu: averageCpu, serverRendered: second.ssr, shell: 0, nginxShell: second.shell, nginxLastGood: 0 };
    for (const w of resourceAlarms) recordSecond(w.run, sample, now);
    const proposals: Proposal[] = [];
    for (const call of triggerSecond(trigger, groupCpu, now)) {
      if (call.changed) alarmChanges.push({ atS: now, alarm: call.alarm.name, state: call.changed });
      if (call.invoke) proposals.push(triggerProposal(call.alarm, now, call.recent));
    }
    for (const w of resourceAlarms) {
      const evaluation = evaluateAlarm(w.run, now);
      if (!evaluation) continue;
      if (evaluation.changed) alarmChanges.push({ atS: now, alarm: w.run.spec.name, state: evaluation.changed });
      if (evaluation.invoke) proposals.push(resourceProposal(w, now, evaluation.recent));
    }
    if (proposals.length === 0) continue;
    // The largest capacity wins, for scale-out and scale-in alike.
    const changing = proposals.filter((p) => p.target !== null);
    const ups = changing.filter((p) => p.target! > instances.length);
    const candidates = ups.length > 0 ? ups : changing;
    const winner = candidates.reduce<Proposal | null>((best, p) => (best === null || p.target! > best.target! ? p : best), null);
    for (const p of proposals) invocations.push({ atS: now, alarm: p.alarm, outcome: p.target !== null && p !== winner ? 'superseded' : p.outcome });
    if (winner) apply(winner, now);
  }
  const alarmDatapoints = Object.fromEntries(resourceAlarms.map((w) => [w.run.spec.name, w.run.datapoints]));
  return { seconds, actions, datapoints: trigger.datapoints, alarmDatapoints, alarmChanges, invocations, heldAtLimit };
}
