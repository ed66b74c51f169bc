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
import type { ScalingPolicy } from './policy';
import { simulate, type LaunchModel, type SimulationInput } from './simulate';
import { shellShareOf } from './summary';

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
  simulation: Omit<SimulationInput, 'rateAt' | 'durationS' | 'initialInstances' | 'launch'>;
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
  /** From the step to the end of the hold, booting instances included; mean of the runs. */
  holdInstanceHours: number;
}

type Run = Omit<Trial, 'metRuns' | 'runs'>;

function runOnce(input: RecommendInput, minSize: number, upperIncrement: number, seed: number): Run {
  const { objective, settleS, holdS } = input;
  const policy: ScalingPolicy = { ...input.simulation.policy, minSize, upperIncrement, maxSize: Math.max(input.simulation.policy.maxSize, minSize) };
  const result = simulate({
    ...input.simulation,
    launch: input.launchFor(seed),
    policy,
    initialInstances: minSize,
    durationS: settleS + holdS,
    rateAt: (t) => (t < settleS ? objective.baseViewsPerS : objective.peakViewsPerS),
  });
  const { seconds } = result;
  const shedRequests = seconds.reduce((sum, s) => sum + s.shed, 0);
  let lastOverBound = -1;
  seconds.forEach((s, t) => {
    if (shellShareOf(s) > input.maxShellShare) lastOverBound = t;
  });
  const metAtS = Math.max(settleS, lastOverBound + 1);
  const metAfterS = lastOverBound >= seconds.length - 1 ? null : metAtS - settleS;
  const deadlineMissed = metAfterS === null || metAfterS > objective.deadlineS;
  const reason =
    shedRequests > 0
      ? `${Math.round(shedRequests).toLocaleString('en-US')} requests shed`
      : deadlineMissed
        ? metAfterS === null
          ? 'shell share never back within the bound'
          : `shell share within the bound only after ${metAfterS} s`
        : null;
  const hold = seconds.slice(settleS);
  return {
    minSize,
    upperIncrement,
    meets: reason === null,
    reason,
    fleetAtStep: seconds[settleS]!.ready,
    peakFleet: Math.max(...seconds.map((s) => s.ready + s.booting)),
    peakShellShare: Math.max(...hold.map(shellShareOf)),
    shedRequests,
    metAfterS,
    holdInstanceHours: hold.reduce((sum, s) => sum + s.ready + s.booting, 0) / 3600,
  };
}

/** Quantile q of values (null: never, sorts last). */
function quantile(values: (number | null)[], q: number): number | null {
  const sorted = [...values].sort((a, b) => (a ?? Infinity) - (b ?? Infinity));
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** One candidate over every run: it meets the objective when at least meetShare of its runs do. */
export function runTrial(input: RecommendInput, minSize: number, upperIncrement: number): Trial {
  const runs = Array.from({ length: input.runs }, (_, i) => runOnce(input, minSize, upperIncrement, input.seed + i));
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
    holdInstanceHours: runs.reduce((sum, run) => sum + run.holdInstanceHours, 0) / runs.length,
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

export function recommend(input: RecommendInput, progress: Progress = () => {}): Recommendation {
  const { policy } = input.simulation;
  const trial = (minSize: number, increment: number) => {
    progress(minSize, increment);
    return runTrial(input, minSize, increment);
  };
  const current = trial(policy.minSize, policy.upperIncrement);
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
