// The scaling alarms the environment's stack creates (.ebextensions/09-overload-scaling.config),
// as the dashboard shows them: their names for this environment, and the scale-out alarm's
// period, threshold and steps. Read from the same files Elastic Beanstalk deploys, so the chart's
// lines cannot drift from the alarm's.
import { loadConfigFiles, optionSettings, resolveOptionSettings, resources, type ConfigFile } from '../../scripts/deploy/ebextensions';

export interface ScalingView {
  /** Every alarm that invokes a scaling policy on the environment's group, named for this environment. */
  alarmNames: string[];
  /** The scale-out alarm on the shell share: its period, threshold and where each step starts, in shell-share %. */
  periodS: number;
  threshold: number;
  steps: { fromShare: number; adjustment: string }[];
}

type Json = Record<string, unknown>;
const ref = (v: unknown) => (v as { Ref?: string } | null)?.Ref;

/** An AlarmName as CloudFormation makes it: a string, or Fn::Join over strings and Ref AWSEBEnvironmentName. */
function alarmName(value: unknown, environment: string): string | null {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] } | null)?.['Fn::Join'];
  if (!join) return null;
  const parts = join[1].map((p) => (ref(p) === 'AWSEBEnvironmentName' ? environment : typeof p === 'string' ? p : null));
  return parts.includes(null) ? null : parts.join(join[0]);
}

export function scalingView(environment: string, files: ConfigFile[] = loadConfigFiles()): ScalingView | null {
  const all = resolveOptionSettings(resources(files), optionSettings(files));
  const policies = new Map(
    Object.entries(all).filter(([, r]) => r.Type === 'AWS::AutoScaling::ScalingPolicy' && ref(r.Properties?.AutoScalingGroupName) === 'AWSEBAutoScalingGroup'),
  );
  const alarms = Object.values(all)
    .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
    .map((r) => r.Properties ?? {})
    .filter((p) => ((p.AlarmActions as unknown[]) ?? []).some((a) => policies.has(ref(a) ?? '')));
  const onShells = alarms.find((p) =>
    ((p.Metrics as Json[]) ?? []).some((m) => ['Shell', 'NginxShell'].includes(String(((m.MetricStat as Json)?.Metric as Json)?.MetricName))),
  );
  const scaleOut = onShells && policies.get(ref((onShells.AlarmActions as unknown[])[0]) ?? '')?.Properties;
  if (!onShells || !scaleOut) return null;
  const threshold = Number(onShells.Threshold);
  const percent = scaleOut.AdjustmentType === 'PercentChangeInCapacity' ? '%' : '';
  const steps = ((scaleOut.StepAdjustments as Json[]) ?? []).map((s) => ({
    fromShare: threshold + Number(s.MetricIntervalLowerBound ?? 0),
    adjustment: `${Number(s.ScalingAdjustment) >= 0 ? '+' : ''}${String(s.ScalingAdjustment)}${percent}`,
  }));
  const period = Number(((onShells.Metrics as Json[]).find((m) => m.MetricStat)!.MetricStat as Json).Period);
  const names = alarms.map((p) => alarmName(p.AlarmName, environment)).filter((n): n is string => n !== null);
  return { alarmNames: names, periodS: period, threshold, steps };
}
