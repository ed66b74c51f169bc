// A CloudWatch metric alarm on the simulated series, as AWS documents it (docs/capacity-planning.md
// cites the pages): a datapoint per period, the metric math expression evaluated on the period's
// values; seen by the alarm a delay after the period ends; evaluated every minute, or every 10
// seconds for a 10 s or 30 s (high-resolution) period; ALARM when at least DatapointsToAlarm of
// the last EvaluationPeriods breach; in ALARM it invokes its Auto Scaling action on entering and
// again every period.
import { breaches, type AlarmSpec, type MetricSource } from './policies';

/** One second of the series an alarm can watch. */
export interface MetricSample {
  /** The group's CPU as the aggregated metric counts it, 0..1; null: no instance contributes. */
  cpu: number | null;
  serverRendered: number;
  shell: number;
  nginxShell: number;
  /** Pages Nginx answered from a last good copy: the simulator models none (every page it does not render fresh is a shell). */
  nginxLastGood: number;
}

export interface AlarmDatapoint {
  /** End of the period. */
  atS: number;
  availableAtS: number;
  value: number;
}

export interface AlarmRun {
  spec: AlarmSpec;
  delayS: number;
  datapoints: AlarmDatapoint[];
  inAlarm: boolean;
  lastInvokedAtS: number;
  sums: Record<string, number>;
  seconds: Record<string, number>;
}

export interface Evaluation {
  /** The last EvaluationPeriods datapoints, oldest first. */
  recent: number[];
  /** Set when the state changed at this evaluation. */
  changed: 'ALARM' | 'OK' | null;
  invoke: boolean;
}

export function isHighResolution(spec: Pick<AlarmSpec, 'periodS'>): boolean {
  return spec.periodS < 60;
}

export function startAlarm(spec: AlarmSpec, delayS: number): AlarmRun {
  return { spec, delayS, datapoints: [], inAlarm: false, lastInvokedAtS: 0, sums: {}, seconds: {} };
}

function sampleOf(sample: MetricSample, source: MetricSource): number | null {
  if (source === 'cpu') return sample.cpu === null ? null : sample.cpu * 100;
  return sample[source];
}

/** Adds second `now - 1`; closes the period when `now` ends one. */
export function recordSecond(alarm: AlarmRun, sample: MetricSample, now: number): void {
  for (const metric of alarm.spec.metrics) {
    const value = sampleOf(sample, metric.source);
    if (value === null) continue;
    alarm.sums[metric.id] = (alarm.sums[metric.id] ?? 0) + value;
    alarm.seconds[metric.id] = (alarm.seconds[metric.id] ?? 0) + 1;
  }
  if (now % alarm.spec.periodS !== 0) return;
  const values: Record<string, number> = {};
  let complete = true;
  for (const metric of alarm.spec.metrics) {
    const seconds = alarm.seconds[metric.id] ?? 0;
    // Counts are the period's Sum; the CPU its Average (EC2's 1-minute reports, averaged).
    if (metric.source === 'cpu') {
      if (seconds === 0) complete = false;
      values[metric.id] = seconds === 0 ? NaN : alarm.sums[metric.id]! / seconds;
    } else {
      values[metric.id] = alarm.sums[metric.id] ?? 0;
    }
  }
  alarm.sums = {};
  alarm.seconds = {};
  if (!complete) return;
  alarm.datapoints.push({ atS: now, availableAtS: now + alarm.delayS, value: alarm.spec.expression.evaluate(values) });
}

/** The alarm looked at by CloudWatch at `now`; null when it is not looked at then or has too few datapoints for a state. */
export function evaluateAlarm(alarm: AlarmRun, now: number): Evaluation | null {
  const cadence = isHighResolution(alarm.spec) ? 10 : 60;
  if (now % cadence !== 0) return null;
  const { evaluationPeriods, datapointsToAlarm, threshold, comparison, periodS } = alarm.spec;
  let visible = alarm.datapoints.length;
  while (visible > 0 && alarm.datapoints[visible - 1]!.availableAtS > now) visible--;
  if (visible < evaluationPeriods) return null;
  const recent = alarm.datapoints.slice(visible - evaluationPeriods, visible).map((d) => d.value);
  const inAlarm = recent.filter((v) => breaches(v, threshold, comparison)).length >= datapointsToAlarm;
  const changed = inAlarm === alarm.inAlarm ? null : inAlarm ? 'ALARM' : 'OK';
  const invoke = inAlarm && (changed !== null || now - alarm.lastInvokedAtS >= periodS);
  alarm.inAlarm = inAlarm;
  if (invoke) alarm.lastInvokedAtS = now;
  return { recent, changed, invoke };
}
