// --recommend's report: the objective, the policies compared over the same runs and the one
// recommended, then the search of EB's trigger alone (the smallest increment per MinSize).
import { policyLabels, type Comparison, type PolicyRow } from './compare';
import { span } from './duration';
import type { Objective, Recommendation, Trial } from './recommend';
import { count, money, pct, table } from './report';

export interface RecommendContext {
  objective: Objective;
  settleS: number;
  holdS: number;
  maxShellShare: number;
  minSizeFloor: number;
  maxSize: number;
  pricePerHour: number | null;
  runs: number;
  meetShare: number;
}

const indent = (text: string) => text.split('\n').map((l) => `  ${l}`);
const hours = (h: number, pricePerHour: number | null) => h.toFixed(1) + (pricePerHour === null ? '' : ` (${money(h * pricePerHour)})`);
/** A run's length: "24 h" for a day, minutes below two hours. */
const length = (s: number) => (s >= 7200 && s % 3600 === 0 ? `${s / 3600} h` : span(s));
/** A small share keeps a decimal: 2.1% of pages as shells is not 2%. */
const share = (x: number) => (x > 0 && x < 0.1 ? `${(x * 100).toFixed(1)}%` : pct(x));
const meets = (trial: Trial) => (trial.meets ? (trial.runs === 1 ? 'yes' : `yes (${trial.metRuns}/${trial.runs} runs)`) : `no: ${trial.reason}`);

export function objectiveLines(context: RecommendContext): string[] {
  const { objective } = context;
  return [
    `Objective: ${count(objective.baseViewsPerS)} → ${count(objective.peakViewsPerS)} page views/s at the edge, met within ${span(objective.deadlineS)}`,
    `  run: ${span(context.settleS)} at ${count(objective.baseViewsPerS)}/s from MinSize instances (--settle), then ${count(objective.peakViewsPerS)}/s held ${span(context.holdS)} (--hold)`,
    `  met means: no request shed in the whole run, and from ${span(objective.deadlineS)} after the step to the end of the hold, at most ` +
      `${pct(context.maxShellShare)} of pages answered with the shell in any second (--max-shell-share); ` +
      `a candidate must meet it in ${pct(context.meetShare)} of ${context.runs} runs (--meet-share, --runs); ` +
      `"within bound after" is the ${pct(context.meetShare)} quantile of the runs`,
  ];
}

function comparisonRow(row: PolicyRow, pricePerHour: number | null): string[] {
  const { trial, withoutMetrics } = row;
  return [
    policyLabels[row.key],
    String(row.minSize),
    trial.metAfterS === null ? 'never' : span(trial.metAfterS),
    trial.timeToTripleS === null ? 'not reached' : span(trial.timeToTripleS),
    `${count(trial.shellsInHold)} (${share(trial.shellShareInHold)})`,
    String(trial.peakFleet),
    hours(trial.holdInstanceHours, null),
    hours(trial.runInstanceHours, pricePerHour),
    withoutMetrics.metAfterS === null ? 'never' : span(withoutMetrics.metAfterS),
    meets(trial),
  ];
}

export function comparisonLines(comparison: Comparison, context: RecommendContext): string[] {
  const { objective, pricePerHour } = context;
  const header = [
    'policy',
    'MinSize',
    'within bound after',
    'time to triple',
    'shells in hold',
    'peak fleet',
    'instance-hours: hold',
    `in ${length(comparison.dayS)}`,
    "without Kiosk's metrics",
    'meets',
  ];
  const lines = [
    `Policies compared over the same ${context.runs} runs, each from --min-size-floor up to the MinSize at which it meets the objective:`,
    `  a run of ${length(comparison.dayS)} (--day): ${span(context.settleS)} at ${count(objective.baseViewsPerS)}/s, ${span(context.holdS)} at ${count(objective.peakViewsPerS)}/s, ` +
      `then ${count(objective.baseViewsPerS)}/s to the end; every row keeps the configuration's scale-in`,
    `  "time to triple" is the median of the runs; "without Kiosk's metrics" is "within bound after" again with Kiosk's metrics missing (METRICS_CLOUDWATCH off, another KIOSK_ENV)`,
    ...comparison.notes.map((note) => `  note: ${note}`),
    ...indent(
      table(
        header,
        comparison.rows.map((row) => comparisonRow(row, pricePerHour)),
      ),
    ),
    '',
  ];
  const best = comparison.best;
  if (!best)
    return [
      ...lines,
      `No policy meets it from MinSize ${context.minSizeFloor} to ${context.minSizeFloor + 4}: raise MaxSize, or look at the capacity per instance.`,
      '',
    ];
  const cpuAlone = comparison.rows.find((row) => row.key === 'cpu' && row.trial.meets);
  const against =
    cpuAlone && cpuAlone !== best
      ? `, against ${hours(cpuAlone.trial.runInstanceHours, pricePerHour)} for ${policyLabels.cpu} alone at MinSize ${cpuAlone.minSize}, the smallest at which it meets it`
      : '';
  lines.push(
    `Recommended: ${policyLabels[best.key]}, with MinSize ${best.minSize}: meets it in ${best.trial.metRuns} of ${best.trial.runs} runs; ` +
      `${hours(best.trial.runInstanceHours, pricePerHour)} instance-hours in ${length(comparison.dayS)}${against}`,
    best.withoutMetrics.metAfterS === null
      ? "  (no policy that meets it stops the shells without Kiosk's metrics: check that they reach CloudWatch)"
      : `  without Kiosk's metrics it still stops the shells, ${span(best.withoutMetrics.metAfterS)} after the step: a CPU trigger to fall back on`,
    '  in .ebextensions:',
    '    option_settings:',
    '      aws:autoscaling:asg:',
    `        MinSize: ${best.minSize}`,
    best.key === 'cpu'
      ? '    and no step policy on the shell share in Resources'
      : best.key === 'overload'
        ? "    with EB's trigger scaling out never (UpperThreshold: 100) and the Resources as configured"
        : '    with the Resources as configured',
    '',
  );
  return lines;
}

function trialRow(trial: Trial, pricePerHour: number | null): string[] {
  return [
    String(trial.minSize),
    `+${trial.upperIncrement}`,
    String(trial.fleetAtStep),
    trial.metAfterS === null ? 'never' : span(trial.metAfterS),
    String(trial.peakFleet),
    pct(trial.peakShellShare),
    hours(trial.holdInstanceHours, pricePerHour),
    meets(trial),
  ];
}

/** EB's CPU trigger alone: the smallest UpperBreachScaleIncrement per MinSize. */
export function recommendationLines(recommendation: Recommendation, context: RecommendContext): string[] {
  const { pricePerHour } = context;
  const header = ['MinSize', 'increment', 'fleet at step', 'within bound after', 'peak fleet', 'peak shell', 'instance-hours in hold', 'meets'];
  const lines = [
    'The policy as configured:',
    ...indent(table(header, [trialRow(recommendation.current, pricePerHour)])),
    '',
    `${policyLabels.cpu} alone, the smallest increment that meets it, for each MinSize from ${context.minSizeFloor} (--min-size-floor):`,
    ...indent(
      table(
        header,
        recommendation.frontier.map((t) => trialRow(t, pricePerHour)),
      ),
    ),
    '',
  ];
  const best = recommendation.best;
  if (!best) {
    lines.push(
      `No MinSize from ${context.minSizeFloor} to MaxSize (${context.maxSize}) meets it with any increment: ` +
        'raise MaxSize (--option aws:autoscaling:asg:MaxSize=N), or look at the capacity per instance.',
    );
    return lines;
  }
  const baseCost = pricePerHour === null ? '' : ` (${money(best.fleetAtStep * pricePerHour * 24)} a day)`;
  lines.push(
    `With the CPU trigger alone: MinSize ${best.minSize}, UpperBreachScaleIncrement ${best.upperIncrement} (the smallest MinSize that can meet it, with its smallest increment)`,
    `  ${best.fleetAtStep} instances at the base rate${baseCost}; ${best.peakFleet} at the peak; ` +
      `${best.holdInstanceHours.toFixed(1)} instance-hours over the ${span(context.holdS)} hold` +
      (pricePerHour === null ? ' (--price for the cost)' : `, ${money(best.holdInstanceHours * pricePerHour)}`),
  );
  const cheaper = recommendation.cheaper;
  if (cheaper) {
    lines.push(
      `  cheaper over the hold with MinSize ${cheaper.minSize}: +${cheaper.upperIncrement}, ${cheaper.holdInstanceHours.toFixed(1)} instance-hours` +
        (pricePerHour === null ? '' : ` (${money(cheaper.holdInstanceHours * pricePerHour)})`) +
        ` against ${best.holdInstanceHours.toFixed(1)} (a smaller step can take a second scale-up, and its cooldown, to settle)`,
    );
  }
  return lines;
}
