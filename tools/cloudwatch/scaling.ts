// The scaling alarms the environment's stack creates (.ebextensions/09-overload-scaling.config),
// as the dashboard shows them: their names for this environment, and the scale-out alarm's
// period, threshold and steps, and the dashboard's widgets for them. Read from the same files
// Elastic Beanstalk deploys, so the chart's lines cannot drift from the alarm's.
import { loadConfigFiles, metricNames, optionSettings, resolveOptionSettings, resources, type ConfigFile } from '@kiosk/surface';
import type { MonitoringOptions, WidgetMetric } from './monitoring';

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
    ((p.Metrics as Json[]) ?? []).some((m) => ['Shell', 'NginxShell', 'NginxLastGood'].includes(String(((m.MetricStat as Json)?.Metric as Json)?.MetricName))),
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

type MetricRow = (name: string, options: Record<string, unknown>) => WidgetMetric;
type Widget = (title: string, metrics: WidgetMetric[], extra?: Record<string, unknown>) => Record<string, unknown>;

/**
 * What the scale-out alarm watches, at its own period, with a line where it fires and where each
 * step starts; and the scaling alarms' states, once setup has found them.
 */
export function scalingWidgets(o: MonitoringOptions, metric: MetricRow, expression: MetricRow, widget: Widget): Record<string, unknown>[] {
  const view = o.scaling;
  if (!view) return [];
  const at = { period: view.periodS };
  const chart = widget(
    `Overload scaling: shell share every ${view.periodS} s, as the scale-out alarm sees it (%)`,
    [
      metric(metricNames.serverRendered, { stat: 'Sum', id: 'ssrHi', visible: false, ...at }),
      metric(metricNames.shell, { stat: 'Sum', id: 'shellHi', visible: false, ...at }),
      metric(metricNames.nginxShell, { stat: 'Sum', id: 'nginxShellHi', visible: false, ...at }),
      expression('IF(ssrHi+shellHi+nginxShellHi > 0, 100*(shellHi+nginxShellHi)/(ssrHi+shellHi+nginxShellHi), 0)', {
        label: 'shell share',
        id: 'scaleOutShare',
      }),
    ],
    {
      period: view.periodS,
      yAxis: { left: { min: 0, max: 100 } },
      annotations: {
        horizontal: [
          { label: `scale-out alarm (above ${view.threshold}%)`, value: view.threshold },
          ...view.steps.slice(1).map((step) => ({ label: `${step.adjustment} from ${step.fromShare}%`, value: step.fromShare })),
        ],
      },
    },
  );
  const arns = o.scalingAlarmArns ?? [];
  const states =
    arns.length === 0
      ? []
      : [
          {
            type: 'alarm',
            width: 12,
            height: 3,
            properties: { title: 'Scaling alarms (the environment stack: scale out on shells, guarded scale-in)', alarms: arns },
          },
        ];
  return [chart, ...states];
}
