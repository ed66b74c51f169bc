// The text report: inputs, the minute-by-minute timeline, the summary (the recommendation: report-recommend.ts).
import type { BenchFigures } from './bench-input';
import { clock, span } from './duration';
import { formatRange, type Range } from './launch';
import type { ResourcePolicy, ScalingResources } from './policies';
import type { PolicyReading } from './policy';
import type { ScalingAction } from './simulate';
import type { MinuteRow, Summary } from './summary';
import { serveOnInstance, type InstanceCapacity, type Traffic } from './workload';
import { percentile } from '@kiosk/surface';

export interface ReportInputs {
  capacity: InstanceCapacity;
  /** How vCPUs were decided and where the per-vCPU rates came from. */
  capacitySources: string[];
  bench: BenchFigures | null;
  traffic: Traffic;
  profile: string;
  launch: LaunchInputs;
  initialInstances: number;
  reading: PolicyReading;
  pricePerHour: number | null;
}

export interface LaunchInputs {
  inService: Range;
  deploy: Range;
  warmingCpu: number;
  metricDelayS: number;
  customMetricDelayS: number;
  runs: number;
  seed: number;
}

export const count = (n: number) => Math.round(n).toLocaleString('en-US');
/** Per-vCPU figures can be small (the newsroom's 22.5): keep a decimal there. */
export const rate = (n: number) => (n < 100 && !Number.isInteger(n) ? n.toFixed(1) : count(n));
// Never show 100% or 0% for a share that is not quite that: a 0.4% shell share is still shells.
export const pct = (share: number) => (share > 0 && share < 0.005 ? '<1%' : share < 1 && share > 0.995 ? '>99%' : `${Math.round(share * 100)}%`);
export const money = (n: number) => `$${n.toFixed(2)}`;

export function table(header: string[], rows: string[][], leftColumns = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < leftColumns || i === cells.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function describePolicy(reading: PolicyReading, launch: LaunchInputs): string[] {
  const p = reading.policy;
  const periods = p.evaluationPeriods === 1 ? '1 period' : `${p.evaluationPeriods} periods`;
  const lines = [
    `Scaling policy: ${reading.source}`,
    `  ${p.measureName} ${p.statistic} of the group over ${span(p.periodS)} periods (instances report every ${span(p.metricResolutionS)}), ` +
      `seen by the alarm ${span(launch.metricDelayS)} after each period (--metric-delay); ` +
      `ALARM when ${p.datapointsToAlarm} of the last ${periods} breach; in ALARM the policy is invoked every ${span(p.periodS)}`,
    `  above ${p.upperThreshold}%: ${p.upperIncrement >= 0 ? '+' : ''}${p.upperIncrement}; below ${p.lowerThreshold}%: ${p.lowerIncrement >= 0 ? '+' : ''}${p.lowerIncrement}; ` +
      `${p.minSize} to ${p.maxSize} instances; cooldown ${p.cooldownS} s from the last new instance InService (a scale-in: after the ${p.deregistrationDelayS} s deregistration delay)`,
    `  a new instance: InService after ${formatRange(launch.inService)} (--in-service), app up ${formatRange(launch.deploy)} later (--deploy), ` +
      `then health checks every ${p.healthCheckIntervalS} s (one pass while initial; after ${p.unhealthyThreshold} failures, ${p.healthyThreshold} passes); ` +
      `until it takes traffic it reports ${pct(launch.warmingCpu)} CPU (--warming-cpu)`,
    ...describeResources(reading.resources, launch, p.cooldownS),
    `  ${launch.runs} run${launch.runs === 1 ? '' : 's'} with launch times drawn anew (--runs), from seed ${launch.seed} (--seed)`,
    '  options read (value, from):',
    ...reading.rows.map((row) => `    ${row.namespace} ${row.option} = ${row.value || '(none)'}  (${row.from})`),
  ];
  for (const note of reading.notes) lines.push(`  note: ${note}`);
  for (const warning of reading.warnings) lines.push(`  WARNING: ${warning}`);
  return lines;
}

const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));

function describeOne(policy: ResourcePolicy, warmup: string, launch: LaunchInputs): string[] {
  if (policy.kind === 'target-tracking') {
    return [
      `  ${policy.name}: target tracking, the group's CPU at ${policy.targetValue}%, ${warmup}; out on 3 one-minute datapoints above it, ` +
        (policy.disableScaleIn ? 'never in (DisableScaleIn)' : `in on 15 below ${policy.targetValue * 0.9}%`),
    ];
  }
  const a = policy.alarm;
  const kiosk = a.metrics.some((m) => m.source !== 'cpu');
  const cadence = a.periodS < 60 ? 'high-resolution, looked at every 10 s' : 'looked at every minute';
  const unit = policy.adjustmentType === 'PercentChangeInCapacity' ? '%' : '';
  const steps = policy.steps.map((step) => {
    const at = (bound: number | null, fallback: string) => (bound === null ? fallback : String(a.threshold + bound));
    return `[${at(step.lower, '−∞')}, ${at(step.upper, '∞')}): ${signed(step.adjustment)}${unit}`;
  });
  return [
    `  ${policy.name}: step scaling, ${policy.adjustmentType}${policy.minAdjustmentMagnitude === null ? '' : ` (at least ${policy.minAdjustmentMagnitude})`}, ${warmup}; ` +
      `invoked by ${a.name}: ${a.expression.source} ${a.comparison.replace('Threshold', '')} ${a.threshold} in ${a.datapointsToAlarm} of ${a.evaluationPeriods} periods of ${a.periodS} s ` +
      `(${cadence}; seen ${span(kiosk ? Math.max(launch.customMetricDelayS, a.metrics.some((m) => m.source === 'cpu') ? launch.metricDelayS : 0) : launch.metricDelayS)} after each period)`,
    `    steps on ${policy.aggregation === 'Average' ? 'the mean of' : `the ${policy.aggregation.toLowerCase()} of`} its datapoints: ${steps.join('; ')}`,
  ];
}

export function describeResources(resources: ScalingResources, launch: LaunchInputs, cooldownS: number): string[] {
  if (resources.policies.length === 0 && resources.defaultInstanceWarmupS === null) return [];
  const group = resources.defaultInstanceWarmupS;
  const lines = [
    `  Resources: ${group === null ? 'no default instance warmup on the group' : `the group's default instance warmup ${group} s (an instance counts in the CPU and as capacity ${group} s after InService; no scale-in meanwhile)`}`,
  ];
  for (const policy of resources.policies) {
    const warmup =
      policy.warmupS !== null
        ? `warm-up ${policy.warmupS} s`
        : group !== null
          ? `warm-up ${group} s (the group's)`
          : `warm-up ${cooldownS} s (the group's default cooldown)`;
    lines.push(...describeOne(policy, warmup, launch));
  }
  return lines;
}

export function describeInputs(inputs: ReportInputs): string[] {
  const { capacity, traffic } = inputs;
  const htmlShare = 1 / traffic.pagesPerSession;
  return [
    `Instance: ${inputs.reading.policy.instanceType ?? 'type not set'}, ${capacity.vcpus} vCPUs`,
    ...inputs.capacitySources.map((line) => `  ${line}`),
    `  per instance: ${count(capacity.ssrPerS)} server-rendered pages/s, or ${count(capacity.shellPerS)} shells/s; ` +
      `an /api request costs ${capacity.apiCost.toFixed(3)} of a server-rendered page`,
    `Traffic at the edge: ${inputs.profile}; CloudFront answers ${pct(traffic.cdnHit)}; ` +
      `${traffic.pagesPerSession} page views per session, so ${pct(htmlShare)} of origin requests are page loads and ${pct(1 - htmlShare)} /api`,
    `Start: ${inputs.initialInstances} instances ready`,
    ...describePolicy(inputs.reading, inputs.launch),
  ];
}

function trafficFrom(action: ScalingAction): string {
  const first = Math.min(...action.healthyAtS);
  return first === action.readyAtS ? clock(first) : `${clock(first)}–${clock(action.readyAtS)}`;
}

function actionText(action: ScalingAction): string {
  const change = action.to - action.from;
  const sign = change > 0 ? '+' : '';
  const by = action.by === 'trigger' ? '' : ` (${action.by})`;
  return action.direction === 'up'
    ? `${sign}${change} → ${action.to} at ${clock(action.atS)}${by}, in service ${clock(action.inServiceAtS)}, traffic ${trafficFrom(action)}`
    : `${change} → ${action.to} at ${clock(action.atS)}${by}`;
}

export function timelineTable(rows: MinuteRow[]): string {
  return table(
    ['minute', 'ready', 'booting', 'CPU', 'group CPU', 'alarm', 'views/s', 'origin/s', 'served/s', 'SSR', 'shell', 'shed/s', 'scaling'],
    rows.map((row) => [
      String(row.minute),
      String(row.ready),
      String(row.booting),
      pct(row.cpu),
      pct(row.groupCpu),
      row.alarm,
      count(row.viewsPerS),
      count(row.originPerS),
      count(row.servedPerS),
      row.ssrShare === null ? '-' : pct(row.ssrShare),
      row.shellShare === null ? '-' : pct(row.shellShare),
      count(row.shedPerS),
      row.actions.map(actionText).join('; '),
    ]),
  );
}

export function summaryLines(summary: Summary): string[] {
  const lines = ['Summary'];
  if (summary.riseAtS === null) {
    lines.push(`  time to triple capacity: no rise (${summary.riseNote})`);
  } else {
    const target = 3 * summary.fleetBeforeRise!;
    lines.push(
      `  rise at ${clock(summary.riseAtS)} (${summary.riseNote}), with ${summary.fleetBeforeRise} instances ready`,
      `  time to triple capacity (${target} ready): ${summary.timeToTripleS === null ? 'not reached' : span(summary.timeToTripleS)}`,
    );
  }
  lines.push(
    `  peak shell share: ${pct(summary.peakShellShare)} of pages${summary.peakShellAtS === null ? '' : ` (first at ${clock(summary.peakShellAtS)})`}` +
      `${summary.lastShellAtS === null ? '; no shell served' : `; last shell at ${clock(summary.lastShellAtS)}`}`,
    `  requests shed: ${count(summary.shedRequests)}`,
    `  scaling: ${summary.scaleUps} up, ${summary.scaleDowns} down; peak fleet ${summary.peakFleet}` +
      (summary.heldAtLimit.up > 0 ? `; high alarm in ALARM at MaxSize for ${summary.heldAtLimit.up} min` : '') +
      (summary.heldAtLimit.down > 0 ? `; low alarm in ALARM at MinSize for ${summary.heldAtLimit.down} min` : ''),
    `  instance-hours: ${summary.instanceHours.toFixed(2)} over ${span(summary.durationS)} (booting instances count)` +
      (summary.cost === null ? ' (--price for the cost)' : `, ${money(summary.cost)}`),
  );
  return lines;
}

function spread(values: (number | null)[], format: (v: number) => string): string {
  // null (never) sorts last, as Infinity.
  const finite = values.map((v) => v ?? Infinity);
  const show = (v: number) => (Number.isNaN(v) || v === Infinity ? 'never' : format(v));
  return [0, 0.5, 0.9, 1].map((share) => show(percentile(finite, share))).join(' / ');
}

/** The spread over runs with launch times drawn anew: fastest, median, 90th percentile, slowest. */
export function spreadLines(summaries: Summary[]): string[] {
  if (summaries.length < 2) return [];
  return [
    `Over ${summaries.length} runs (fastest / median / 90th percentile / slowest):`,
    `  time to triple capacity: ${spread(
      summaries.map((s) => s.timeToTripleS),
      span,
    )}`,
    `  last shell: ${spread(
      summaries.map((s) => s.lastShellAtS),
      clock,
    )}`,
    `  peak fleet: ${spread(
      summaries.map((s) => s.peakFleet),
      String,
    )}; instance-hours: ${spread(
      summaries.map((s) => s.instanceHours),
      (v) => v.toFixed(2),
    )}`,
  ];
}

/** The model on one vCPU against what the bench measured there (pages only, no /api). */
export function benchCheck(bench: BenchFigures, apiCost: number): string[] {
  const steps = bench.steps.filter((s) => s.mode !== 'off');
  if (steps.length === 0) return [];
  const capacity: InstanceCapacity = { vcpus: 1, ssrPerS: bench.ssrPerCore, shellPerS: bench.shellPerCore, apiCost };
  const rows = steps.map((step) => {
    const model = serveOnInstance(step.offeredPerS, 0, capacity);
    const served = model.ssr + model.shell;
    return [
      `${step.mode} ×${step.multiplier}`,
      count(step.offeredPerS),
      count(step.achievedPerS),
      pct(step.ssrShare),
      `${count(step.p99Ms)} ms`,
      count(step.timeouts + step.errors),
      pct(served > 0 ? model.ssr / served : 0),
      count(model.shed),
    ];
  });
  return [
    'The model against the bench, one vCPU, pages only (measured: achieved/s, SSR, p99, timeouts+errors; model: SSR, shed/s):',
    ...table(['fallback', 'offered/s', 'achieved/s', 'SSR', 'p99', 'failed', 'model SSR', 'model shed/s'], rows, 1)
      .split('\n')
      .map((l) => `  ${l}`),
    '  Both rates are limits with p99 under 100 ms (npm run bench), not raw throughput. Timeouts below the shell rate come from',
    '  connections waiting to be accepted (docs/overload.md), which the model does not see.',
  ];
}
