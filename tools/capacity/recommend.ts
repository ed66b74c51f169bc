// --recommend: the smallest scale-up increment and the smallest MinSize that meet an
// objective such as 1000:3000@5m (from 1,000 to 3,000 page views/s at the edge, met within
// 5 minutes). Each candidate policy is simulated on the same run:
//   the base rate for settleS, starting from MinSize instances, so the fleet settles;
//   then a step to the peak rate, held for holdS.
// A run meets the objective when no request is shed anywhere in it, and from the step + the
// deadline to the end, every second's shell share of pages is at most maxShellShare. Launch
// times are drawn per instance, so each candidate runs `runs` times (seeds seed, seed + 1, …)
// and meets the objective when at least meetShare of its runs do.
import { InputError, parseDuration } from './duration';
import type { ScalingResources } from './policies';
import type { ScalingPolicy } from './policy';
import { simulate, type LaunchModel, type Second, type SimulationInput } from './simulate';
import { shellShareOf } from './summary';
import { percentile } from '@kiosk/surface';

export interface Objective {
  baseViewsPerS: number;
  peakViewsPerS: number;
  deadlineS: number;
}

export function parseObjective(raw: string): Objective {
  const match = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)@(.+)$/.exec(raw.trim());
  if (!match) throw new InputError(`--objective "${raw}": expected BASE:PEAK@DEADLINE, e.g. 1000:3000@5m`);
  const objective = { baseViewsPerS: Number(match[1]), peakViewsPerS: Number(match[2]), deadlineS: parseDuration(match[3]!, '--objective deadline') };
  if (objective.peakViewsPerS <= objective.baseViewsPerS) throw new InputError(`--objective "${raw}": the peak must be above the base`);
  return objective;
}

export interface RecommendInput {
  /** Everything but the policy's MinSize and UpperBreachScaleIncrement, which are searched. */
  simulation: Omit<SimulationInput, 'rateAt' | 'durationS' | 'initialInstances' | 'launch' | 'trigger'>;
  /** The launch model of one run, from its seed. */
  launchFor: (seed: number) => LaunchModel;
  runs: number;
  seed: number;
  /** Share of runs that must meet the objective. */
  meetShare: number;
  objective: Objective;
  settleS: number;
  holdS: number;
  maxShellShare: number;
  /** The smallest MinSize considered (the newsroom's: at least 2 instances, in 2 zones). */
  minSizeFloor: number;
}

/** What acts in a run: EB's trigger alarms and the Resources policies; the configuration's when not given. */
export interface Variant {
  trigger: { up: boolean; down: boolean };
  resources: ScalingResources;
}

export interface RunSetup {
  variant?: Variant;
  /** The whole run: settle, hold, then the base rate again to the end (a day, say); settle + hold when not given. */
  durationS?: number;
  /** false: Kiosk's own metrics never reach CloudWatch (METRICS_CLOUDWATCH off, a wrong KIOSK_ENV). */
  kioskMetrics?: boolean;
}

export interface Trial {
  minSize: number;
  upperIncrement: number;
  meets: boolean;
  /** Why not, when it does not. */
  reason: string | null;
  /** Runs that met the objective, of `runs`. */
  metRuns: number;
  runs: number;
  /** Ready instances when the step comes. */
  fleetAtStep: number;
  peakFleet: number;
  peakShellShare: number;
  shedRequests: number;
  /** From the step until the shell share stays within the bound, at the meetShare quantile of the runs; null: never. */
  metAfterS: number | null;
  /** From the step until the ready fleet is three times the fleet at the step, median of the runs; null: not in most runs. */
  timeToTripleS: number | null;
  /** Pages answered with the shell during the hold, mean of the runs. */
  shellsInHold: number;
  /** The same as a share of the hold's pages. */
  shellShareInHold: number;
  /** From the step to the end of the hold, booting instances included; mean of the runs. */
  holdInstanceHours: number;
  /** Over the whole run (durationS), mean of the runs. */
  runInstanceHours: number;
  durationS: number;
}

type Run = Omit<Trial, 'metRuns' | 'runs' | 'durationS'>;

/** After the hold, runs this long at the base rate before a constant fleet is taken to last the rest of the run. */
const settleAfterHoldS = 2 * 60 * 60;
const steadyS = 30 * 60;

/** The fleet was constant for the last `steadyS`, nothing booting, shed or shelled: at a constant rate it stays so. */
function steadyFleet(seconds: Second[]): number | null {
  const last = seconds.slice(-steadyS);
  const fleet = last[0]!.ready;
  return last.every((s) => s.ready === fleet && s.booting === 0 && s.shed === 0 && s.shell === 0) ? fleet : null;
}

function runOnce(input: RecommendInput, minSize: number, upperIncrement: number, seed: number, setup: RunSetup): Run {
  const { objective, settleS, holdS } = input;
  const policy: ScalingPolicy = { ...input.simulation.policy, minSize, upperIncrement, maxSize: Math.max(input.simulation.policy.maxSize, minSize) };
  const durationS = Math.max(settleS + holdS, setup.durationS ?? 0);
  const simulateFor = (runS: number) =>
    simulate({
      ...input.simulation,
      ...(setup.variant ?? {}),
      ...(setup.kioskMetrics === false ? { customMetricDelayS: Infinity } : {}),
      launch: input.launchFor(seed),
      policy,
      initialInstances: minSize,
      durationS: runS,
      rateAt: (t) => (t >= settleS && t < settleS + holdS ? objective.peakViewsPerS : objective.baseViewsPerS),
    });
  // A day's run: the hours after the spike at a constant rate and fleet are counted, not simulated.
  const shortS = Math.min(durationS, settleS + holdS + settleAfterHoldS);
  let result = simulateFor(shortS);
  let tailInstanceSeconds = 0;
  if (shortS < durationS) {
    const fleet = steadyFleet(result.seconds);
    if (fleet === null) result = simulateFor(durationS);
    else tailInstanceSeconds = fleet * (durationS - shortS);
  }
  const seconds = result.seconds;
  const hold = seconds.slice(settleS, settleS + holdS);
  const shedRequests = seconds.reduce((sum, s) => sum + s.shed, 0);
  let lastOverBound = -1;
  hold.forEach((s, t) => {
    if (shellShareOf(s) > input.maxShellShare) lastOverBound = t;
  });
  const metAfterS = lastOverBound >= hold.length - 1 ? null : lastOverBound + 1;
  const deadlineMissed = metAfterS === null || metAfterS > objective.deadlineS;
  const reason =
    shedRequests > 0
      ? `${Math.round(shedRequests).toLocaleString('en-US')} requests shed`
      : deadlineMissed
        ? metAfterS === null
          ? 'shell share never back within the bound'
          : `shell share within the bound only after ${metAfterS} s`
        : null;
  const fleetAtStep = hold[0]!.ready;
  const tripled = hold.findIndex((s) => s.ready >= 3 * fleetAtStep);
  const shellsInHold = hold.reduce((sum, s) => sum + s.shell, 0);
  const pagesInHold = hold.reduce((sum, s) => sum + s.shell + s.ssr, 0);
  const instanceHours = (slice: Second[]) => slice.reduce((sum, s) => sum + s.ready + s.booting, 0) / 3600;
  return {
    minSize,
    upperIncrement,
    meets: reason === null,
    reason,
    fleetAtStep,
    peakFleet: Math.max(...seconds.map((s) => s.ready + s.booting)),
    peakShellShare: Math.max(...hold.map(shellShareOf)),
    shedRequests,
    metAfterS,
    timeToTripleS: tripled < 0 ? null : tripled,
    shellsInHold,
    shellShareInHold: pagesInHold > 0 ? shellsInHold / pagesInHold : 0,
    holdInstanceHours: instanceHours(hold),
    runInstanceHours: instanceHours(seconds) + tailInstanceSeconds / 3600,
  };
}

/** The nearest-rank percentile q of values (null: never, sorts last). */
function quantile(values: (number | null)[], q: number): number | null {
  const value = percentile(
    values.map((v) => v ?? Infinity),
    q,
  );
  return value === Infinity ? null : value;
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** One candidate over every run: it meets the objective when at least meetShare of its runs do. */
export function runTrial(input: RecommendInput, minSize: number, upperIncrement: number, setup: RunSetup = {}): Trial {
  const runs = Array.from({ length: input.runs }, (_, i) => runOnce(input, minSize, upperIncrement, input.seed + i, setup));
  const metRuns = runs.filter((run) => run.meets).length;
  const meets = metRuns >= Math.ceil(input.meetShare * runs.length - 1e-9);
  const failed = runs.find((run) => !run.meets);
  return {
    minSize,
    upperIncrement,
    meets,
    reason: meets ? null : runs.length === 1 ? failed!.reason : `met in ${metRuns} of ${runs.length} runs; e.g. ${failed!.reason}`,
    metRuns,
    runs: runs.length,
    fleetAtStep: Math.min(...runs.map((run) => run.fleetAtStep)),
    peakFleet: Math.max(...runs.map((run) => run.peakFleet)),
    peakShellShare: Math.max(...runs.map((run) => run.peakShellShare)),
    shedRequests: Math.max(...runs.map((run) => run.shedRequests)),
    metAfterS: quantile(
      runs.map((run) => run.metAfterS),
      input.meetShare,
    ),
    timeToTripleS: quantile(
      runs.map((run) => run.timeToTripleS),
      0.5,
    ),
    shellsInHold: mean(runs.map((run) => run.shellsInHold)),
    shellShareInHold: mean(runs.map((run) => run.shellShareInHold)),
    holdInstanceHours: mean(runs.map((run) => run.holdInstanceHours)),
    runInstanceHours: mean(runs.map((run) => run.runInstanceHours)),
    durationS: Math.max(input.settleS + input.holdS, setup.durationS ?? 0),
  };
}

export interface Recommendation {
  /** The configured policy, as it is. */
  current: Trial;
  /** Per MinSize from the floor: the smallest increment that meets, or the last one tried. */
  frontier: Trial[];
  /** The smallest MinSize with an increment that meets, with its smallest increment; null: none within MaxSize. */
  best: Trial | null;
  /** For best's MinSize, the increment that meets with the fewest instance-hours in the hold, when not best's own. */
  cheaper: Trial | null;
}

/** Called before each candidate, for progress on long searches. */
export type Progress = (minSize: number, upperIncrement: number) => void;

/** `setup` says what acts in the search (EB's trigger alone, say); the configured policy's own row runs as configured. */
export function recommend(input: RecommendInput, progress: Progress = () => {}, setup: RunSetup = {}): Recommendation {
  const { policy } = input.simulation;
  const trial = (minSize: number, increment: number) => {
    progress(minSize, increment);
    return runTrial(input, minSize, increment, setup);
  };
  progress(policy.minSize, policy.upperIncrement);
  const current = runTrial(input, policy.minSize, policy.upperIncrement);
  const frontier: Trial[] = [];
  for (let minSize = Math.max(1, input.minSizeFloor); minSize <= policy.maxSize; minSize++) {
    let found: Trial | null = null;
    let last: Trial | null = null;
    for (let increment = 1; increment <= Math.max(1, policy.maxSize - minSize); increment++) {
      last = trial(minSize, increment);
      if (last.meets) {
        found = last;
        break;
      }
    }
    frontier.push(found ?? last!);
    // A larger MinSize cannot need a smaller increment than 1.
    if (found?.upperIncrement === 1) break;
  }
  const best = frontier.find((trial) => trial.meets) ?? null;
  // A small increment can cost more: it may take a second scale-up (and its cooldown) to settle.
  let cheaper: Trial | null = null;
  if (best) {
    for (let increment = best.upperIncrement + 1; increment <= policy.maxSize - best.minSize; increment++) {
      const candidate = trial(best.minSize, increment);
      if (candidate.meets && candidate.holdInstanceHours < (cheaper ?? best).holdInstanceHours - 1e-9) cheaper = candidate;
    }
  }
  return { current, frontier, best, cheaper };
}
