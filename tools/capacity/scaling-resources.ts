// The EC2 Auto Scaling policies a configuration declares in Resources beside Elastic Beanstalk's
// trigger: step scaling and CPU target tracking policies on the environment's Auto Scaling group
// (Ref AWSEBAutoScalingGroup), the CloudWatch alarms that invoke them, and the group's
// DefaultInstanceWarmup. Fn::GetOptionSetting is resolved as Elastic Beanstalk resolves it; the
// alarms' metrics must be ones the simulator produces (policies.ts, MetricSource).
import { metricNames, resolveOptionSettings, resources as mergedResources, type ConfigFile, type OptionSetting } from '@kiosk/surface';
import { InputError } from './duration';
import { parseExpression } from './metric-math';
import {
  noResources,
  type AdjustmentType,
  type AlarmSpec,
  type Comparison,
  type MetricSource,
  type ResourcePolicy,
  type ScalingResources,
  type StepAdjustment,
} from './policies';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const refTo = (v: unknown) => (isRecord(v) && typeof v.Ref === 'string' ? v.Ref : null);

export const groupResource = 'AWSEBAutoScalingGroup';
const comparisons: Comparison[] = ['GreaterThanThreshold', 'GreaterThanOrEqualToThreshold', 'LessThanThreshold', 'LessThanOrEqualToThreshold'];
const adjustmentTypes: AdjustmentType[] = ['ChangeInCapacity', 'PercentChangeInCapacity', 'ExactCapacity'];
const kioskSources: Record<string, MetricSource> = {
  [metricNames.serverRendered]: 'serverRendered',
  [metricNames.shell]: 'shell',
  [metricNames.nginxShell]: 'nginxShell',
  [metricNames.nginxLastGood]: 'nginxLastGood',
};

function number(value: unknown, where: string, check: (n: number) => boolean = Number.isFinite): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !check(n)) throw new InputError(`${where}: ${JSON.stringify(value)} is not a valid number here`);
  return n;
}

function optional(value: unknown, where: string): number | null {
  return value === undefined || value === null ? null : number(value, where);
}

/** The metric one MetricStat (or a single-metric alarm) names, as a series the simulator makes. */
function sourceOf(metric: Json, stat: unknown, where: string, namespace: string): MetricSource {
  const dimensions = Array.isArray(metric.Dimensions) ? (metric.Dimensions as Json[]) : [];
  const names = dimensions.map((d) => String(d.Name)).join(',');
  if (metric.Namespace === 'AWS/EC2' && metric.MetricName === 'CPUUtilization') {
    const group = dimensions.length === 1 && dimensions[0]!.Name === 'AutoScalingGroupName' && refTo(dimensions[0]!.Value) === groupResource;
    if (!group) throw new InputError(`${where}: CPUUtilization must be the group's (dimension AutoScalingGroupName, Ref ${groupResource})`);
    if (stat !== 'Average') throw new InputError(`${where}: the group's CPUUtilization is simulated with the Average statistic only, not ${String(stat)}`);
    return 'cpu';
  }
  const source = kioskSources[String(metric.MetricName)];
  if (metric.Namespace === namespace && source) {
    if (stat !== 'Sum') throw new InputError(`${where}: ${String(metric.MetricName)} is a count: its statistic must be Sum, not ${String(stat)}`);
    if (names !== 'Environment') throw new InputError(`${where}: Kiosk's metrics reach alarms under the Environment dimension alone, not [${names}]`);
    return source;
  }
  throw new InputError(
    `${where}: ${String(metric.Namespace)} ${String(metric.MetricName)} is not simulated: only the group's CPUUtilization and ${namespace}'s ${Object.keys(kioskSources).join(', ')}`,
  );
}

function alarmSpec(name: string, alarm: Json, namespace: string): AlarmSpec {
  const where = `Resources ${name}`;
  const comparison = alarm.ComparisonOperator as Comparison;
  if (!comparisons.includes(comparison)) throw new InputError(`${where}: ComparisonOperator ${String(alarm.ComparisonOperator)} is not simulated`);
  const evaluationPeriods = number(alarm.EvaluationPeriods, `${where} EvaluationPeriods`, (n) => Number.isInteger(n) && n >= 1);
  const datapointsToAlarm = optional(alarm.DatapointsToAlarm, `${where} DatapointsToAlarm`) ?? evaluationPeriods;
  if (datapointsToAlarm < 1 || datapointsToAlarm > evaluationPeriods) throw new InputError(`${where}: DatapointsToAlarm must be from 1 to EvaluationPeriods`);
  const threshold = number(alarm.Threshold, `${where} Threshold`);
  let metrics: AlarmSpec['metrics'];
  let source: string;
  let periodS: number;
  if (Array.isArray(alarm.Metrics)) {
    const queries = alarm.Metrics as Json[];
    const stats = queries.filter((q) => isRecord(q.MetricStat));
    metrics = stats.map((q) => {
      const stat = q.MetricStat as Json;
      return { id: String(q.Id), source: sourceOf(stat.Metric as Json, stat.Stat, `${where} ${String(q.Id)}`, namespace) };
    });
    const periods = new Set(stats.map((q) => number((q.MetricStat as Json).Period, `${where} ${String(q.Id)} Period`)));
    if (periods.size !== 1) throw new InputError(`${where}: every metric of a math expression alarm uses the same period`);
    periodS = [...periods][0]!;
    const returned = queries.filter((q) => q.ReturnData !== false);
    if (returned.length !== 1) throw new InputError(`${where}: exactly one of Metrics returns data (the others say ReturnData: false)`);
    source = typeof returned[0]!.Expression === 'string' ? (returned[0]!.Expression as string) : String(returned[0]!.Id);
    const expression = queries.filter((q) => typeof q.Expression === 'string' && q !== returned[0]);
    if (expression.length > 0) throw new InputError(`${where}: one expression over the metrics is simulated, not nested ones`);
  } else {
    metrics = [{ id: 'm1', source: sourceOf(alarm, alarm.Statistic, where, namespace) }];
    periodS = number(alarm.Period, `${where} Period`);
    source = 'm1';
  }
  if (![10, 20, 30].includes(periodS) && (periodS < 60 || periodS % 60 !== 0))
    throw new InputError(`${where}: Period ${periodS} s: CloudWatch takes 10, 20, 30 or a multiple of 60`);
  if (periodS < 60 && metrics.some((m) => m.source === 'cpu'))
    throw new InputError(`${where}: EC2's CPUUtilization is per minute at best; a ${periodS} s period sees no data`);
  const expression = parseExpression(source);
  const unknown = expression.ids.filter((id) => !metrics.some((m) => m.id === id));
  if (unknown.length > 0) throw new InputError(`${where}: the expression names ${unknown.join(', ')}, which no metric defines`);
  return { name, metrics, expression, periodS, evaluationPeriods, datapointsToAlarm, threshold, comparison };
}

function steps(raw: unknown, where: string): StepAdjustment[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new InputError(`${where}: StepAdjustments must list at least one step`);
  return (raw as Json[]).map((s, i) => ({
    lower: optional(s.MetricIntervalLowerBound, `${where} step ${i + 1} MetricIntervalLowerBound`),
    upper: optional(s.MetricIntervalUpperBound, `${where} step ${i + 1} MetricIntervalUpperBound`),
    adjustment: number(s.ScalingAdjustment, `${where} step ${i + 1} ScalingAdjustment`, Number.isInteger),
  }));
}

/**
 * Reads the scaling Resources of parsed .ebextensions files. `warnings` gets what is declared
 * but not simulated; a declaration the simulator cannot run as AWS would is an InputError.
 */
export function readScalingResources(files: ConfigFile[], settings: OptionSetting[], warnings: string[]): ScalingResources {
  let all: Record<string, { Type: string; Properties?: Json; file: string }>;
  try {
    all = resolveOptionSettings(mergedResources(files), settings);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  if (Object.keys(all).length === 0) return noResources;
  const namespace = String(
    settings.filter((s) => s.namespace === 'aws:elasticbeanstalk:application:environment' && s.option === 'METRICS_NAMESPACE').at(-1)?.value ?? 'Kiosk',
  );
  const group = all[groupResource];
  let defaultInstanceWarmupS: number | null = null;
  if (group) {
    const { DefaultInstanceWarmup, ...others } = group.Properties ?? {};
    const warmup = optional(DefaultInstanceWarmup, `${group.file}: ${groupResource} DefaultInstanceWarmup`);
    defaultInstanceWarmupS = warmup === null || warmup < 0 ? null : warmup;
    if (Object.keys(others).length > 0)
      warnings.push(
        `${group.file}: Resources overrides EB's ${groupResource} (${Object.keys(others).join(', ')}); not simulated: of its properties only DefaultInstanceWarmup is read.`,
      );
  }
  const alarms = Object.entries(all).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
  const policies: ResourcePolicy[] = [];
  for (const [name, resource] of Object.entries(all)) {
    if (resource.Type !== 'AWS::AutoScaling::ScalingPolicy') continue;
    const p = resource.Properties ?? {};
    const where = `${resource.file}: Resources ${name}`;
    if (refTo(p.AutoScalingGroupName) !== groupResource) {
      warnings.push(`${where} scales another group than ${groupResource}; not simulated.`);
      continue;
    }
    const warmupS = optional(p.EstimatedInstanceWarmup, `${where} EstimatedInstanceWarmup`);
    if (p.PolicyType === 'TargetTrackingScaling') {
      const config = (p.TargetTrackingConfiguration ?? {}) as Json;
      const metric = (config.PredefinedMetricSpecification ?? {}) as Json;
      if (metric.PredefinedMetricType !== 'ASGAverageCPUUtilization')
        throw new InputError(`${where}: only target tracking on ASGAverageCPUUtilization is simulated`);
      const disableScaleIn = config.DisableScaleIn === true || config.DisableScaleIn === 'true';
      policies.push({ kind: 'target-tracking', name, targetValue: number(config.TargetValue, `${where} TargetValue`, (n) => n > 0), disableScaleIn, warmupS });
      continue;
    }
    if (p.PolicyType !== 'StepScaling') {
      warnings.push(`${where}: PolicyType ${String(p.PolicyType ?? 'SimpleScaling')} is not simulated (EB's trigger is the simple scaling modelled).`);
      continue;
    }
    const adjustmentType = p.AdjustmentType as AdjustmentType;
    if (!adjustmentTypes.includes(adjustmentType))
      throw new InputError(`${where}: AdjustmentType ${String(p.AdjustmentType)} is not one of ${adjustmentTypes.join(', ')}`);
    const aggregation = (p.MetricAggregationType ?? 'Average') as 'Average' | 'Minimum' | 'Maximum';
    if (!['Average', 'Minimum', 'Maximum'].includes(aggregation)) throw new InputError(`${where}: MetricAggregationType ${String(aggregation)}`);
    const invoking = alarms.filter(
      ([, a]) => Array.isArray(a.Properties?.AlarmActions) && (a.Properties.AlarmActions as unknown[]).some((x) => refTo(x) === name),
    );
    if (invoking.length === 0) warnings.push(`${where}: no alarm invokes it (AlarmActions with Ref ${name}); it never runs.`);
    for (const [alarmName, alarm] of invoking) {
      policies.push({
        kind: 'step',
        name,
        alarm: alarmSpec(alarmName, alarm.Properties ?? {}, namespace),
        adjustmentType,
        steps: steps(p.StepAdjustments, where),
        minAdjustmentMagnitude: optional(p.MinAdjustmentMagnitude, `${where} MinAdjustmentMagnitude`),
        warmupS,
        aggregation,
      });
    }
  }
  return { defaultInstanceWarmupS, policies };
}
