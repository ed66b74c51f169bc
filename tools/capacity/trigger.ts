// Elastic Beanstalk's trigger: two CloudWatch alarms on the group's CPUUtilization, as AWS
// documents them (docs/capacity-planning.md cites the pages). Instances report every
// metricResolutionS; a datapoint is the trigger's statistic of those reports over each period,
// seen by the alarms metricDelayS after its period ends. Every minute the alarms look at their
// last EvaluationPeriods datapoints: ALARM when at least DatapointsToAlarm breach, else OK; in
// ALARM an alarm invokes its simple scaling policy on entering and again every period.
import type { AlarmDatapoint } from './alarms';
import type { ScalingPolicy } from './policy';

export interface TriggerAlarm {
  name: 'high' | 'low';
  inAlarm: boolean;
  lastInvokedAtS: number;
}

export interface TriggerRun {
  policy: ScalingPolicy;
  metricDelayS: number;
  alarms: TriggerAlarm[];
  datapoints: AlarmDatapoint[];
  reportSum: number;
  reportCount: number;
  periodReports: number[];
  /** The group's CPU in one second for the trigger's statistic, 0..1; null when no instance counts. */
  statistic: (counted: number, cpu: number, warming: number, warmingCpu: number) => number | null;
}

export interface TriggerCall {
  alarm: TriggerAlarm;
  changed: 'ALARM' | 'OK' | null;
  invoke: boolean;
  recent: number[];
}

function across(values: number[], kind: ScalingPolicy['statistic']): number {
  if (kind === 'Maximum') return Math.max(...values);
  if (kind === 'Minimum') return Math.min(...values);
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function startTrigger(policy: ScalingPolicy, metricDelayS: number, sides: { up: boolean; down: boolean }): TriggerRun {
  const alarms: TriggerAlarm[] = [];
  if (sides.up) alarms.push({ name: 'high', inAlarm: false, lastInvokedAtS: 0 });
  if (sides.down) alarms.push({ name: 'low', inAlarm: false, lastInvokedAtS: 0 });
  return {
    policy,
    metricDelayS,
    alarms,
    datapoints: [],
    reportSum: 0,
    reportCount: 0,
    periodReports: [],
    statistic: (counted, cpu, warming, warmingCpu) => {
      if (counted + warming === 0) return null;
      if (warming === 0) return cpu;
      if (counted === 0) return warmingCpu;
      if (policy.statistic === 'Average') return (counted * cpu + warming * warmingCpu) / (counted + warming);
      return across([cpu, warmingCpu], policy.statistic);
    },
  };
}

/** Adds second `now - 1` (groupCpu null: no report that second); at a minute's end, the alarms' calls. */
export function triggerSecond(run: TriggerRun, groupCpu: number | null, now: number): TriggerCall[] {
  const { policy } = run;
  if (groupCpu !== null) {
    run.reportSum += groupCpu * 100;
    run.reportCount++;
  }
  if (now % policy.metricResolutionS === 0) {
    if (run.reportCount > 0) run.periodReports.push(run.reportSum / run.reportCount);
    run.reportSum = 0;
    run.reportCount = 0;
  }
  if (now % policy.periodS === 0) {
    if (run.periodReports.length > 0)
      run.datapoints.push({ atS: now, availableAtS: now + run.metricDelayS, value: across(run.periodReports, policy.statistic) });
    run.periodReports = [];
  }
  if (now % 60 !== 0 || run.alarms.length === 0) return [];
  let visible = run.datapoints.length;
  while (visible > 0 && run.datapoints[visible - 1]!.availableAtS > now) visible--;
  if (visible < policy.evaluationPeriods) return [];
  const recent = run.datapoints.slice(visible - policy.evaluationPeriods, visible).map((d) => d.value);
  return run.alarms.map((alarm) => {
    const breaching = recent.filter((v) => (alarm.name === 'high' ? v > policy.upperThreshold : v < policy.lowerThreshold)).length;
    const inAlarm = breaching >= policy.datapointsToAlarm;
    const changed = inAlarm === alarm.inAlarm ? null : inAlarm ? 'ALARM' : 'OK';
    const invoke = inAlarm && (changed !== null || now - alarm.lastInvokedAtS >= policy.periodS);
    alarm.inAlarm = inAlarm;
    if (invoke) alarm.lastInvokedAtS = now;
    return { alarm, changed, invoke, recent };
  });
}
