// What keeping the last good copy of every page costs server rendering. Two servers through
// Nginx, one worker each on the same core, the guard out of reach (every request rendered):
// one keeps its copies (LAST_GOOD_DIR, a directory of its own), the other keeps none
// (LAST_GOOD_SECONDS=0). Both are warm; then, in rounds, both serve at once for one window,
// each half of a fixed rate below saturation from a generator of its own, and the CPU per
// request (server and Nginx) of the two is compared. Below saturation CPU per request is the
// work a request costs, not a queue's. At once, not one after the other: the host's drift moves
// two windows taken one after the other by ±5-10% (docs/benchmarks/README.md), more than the 3%
// judged, and two windows taken together share it. What is left between them (a major
// collection in one and not the other, each process's own layout) the median of the rounds'
// ratios is judged against, as for the churn rounds; capacity goes as the inverse of CPU per
// request, so "capacity with copies at least 97% of without" is a median ratio of at most 1/0.97.
import fs from 'node:fs';
import path from 'node:path';
import { median } from '@kiosk/surface';
import { cpuRatio } from './churn';
import { sharedCore, type StepRecord } from './measure';
import type { ServerUnderTest } from './processes';

/**
 * Rounds of the pair unless --last-good-rounds says otherwise: five windows, where the rounds
 * one after the other took six for three rounds (the whole run stays within its 20 minutes).
 * Five resolve the median to about ±2%; fifteen, a targeted run of about 6 minutes, to about ±1%
 * (docs/benchmarks/2026-11-28-copies-at-once.md), and they judge the 3%.
 */
export const defaultLastGoodRounds = 5;

/**
 * Where the rounds' rate is first tried: 90% of the SSR capacity, as the churn rounds. That
 * capacity is measured straight to Node, and here Nginx shares the core: the rate is then
 * lowered until the two servers together, each at half of it and both at once as in the rounds
 * (workers and Nginx), keep the core about copiesBusyPct busy (calibratedRate), or both arms
 * saturate and the ratio says nothing of the copies' cost. Until 2026-11-28 the rate was found
 * with the server without copies alone: two servers at once then kept the core 89–100% busy
 * (docs/benchmarks/2026-11-28-copies-cpu-budget.md), at the edge of saturation the method means
 * to stay below.
 */
export const copiesRateShare = 0.9;

/** How busy the rounds keep the core with both servers (or, in records before, the server without copies alone): below saturation, with room for the host's drift. */
export const copiesBusyPct = 80;

/** A calibration window: the rate tried (both servers' together) and how busy the servers were. */
export interface CopiesCalibration {
  ratePerS: number;
  serverCpuPct: number;
}

/**
 * The rate after a calibration window: scaled down in proportion so the server is
 * copiesBusyPct busy; the same rate where it already is no busier (never raised: a rate
 * below 90% of capacity is below saturation however idle the window looked).
 */
export function calibratedRate(window: CopiesCalibration): number {
  if (!(window.serverCpuPct > copiesBusyPct)) return window.ratePerS;
  return Math.max(1, Math.round((window.ratePerS * copiesBusyPct) / window.serverCpuPct));
}

/**
 * Rounds, not recorded, between the calibration and the rounds. Two servers doing the same work
 * (both without copies, 2026-11-27, one after the other) read 1.39x, 1.16x, 1.06x over three
 * rounds after a single window had brought the first-started from its idle spell, and 1.09x,
 * 1.03x, 1.04x, 1.00x, 0.97x over five in a second run: the server that sat idle longer stays
 * slower for about a minute of windows. Three rounds of settling; a quick run (a smoke run,
 * whose figures judge nothing) takes none.
 */
export function copiesSettlingRounds(quick: boolean): number {
  return quick ? 0 : 3;
}

/** A settling window's measured seconds: it is there for the load, not the figure, so shorter than a step. */
export const copiesSettlingSeconds = 3;

/** A settling window's measured seconds in a run whose steps last `stepSeconds`: never longer than a step. */
export function copiesSettlingWindowS(stepSeconds: number): number {
  return Math.min(copiesSettlingSeconds, stepSeconds);
}

/** The target: SSR capacity with the copies kept at least this share of without. */
export const copiesCapacityShare = 0.97;

/**
 * The Zipf flood starts from the tier a serving site has: before its steps, the server reads
 * every article once at this share of the SSR capacity, a rate a site serves below capacity, so
 * the workers copy what they render within the time budget's idle share (server/last-good/
 * budget.ts). An eighth: at a fifth, the one whole bench run that tried it left 5,693 of 10,000
 * articles uncopied, a copy costing a worker about a millisecond on this disk beside Nginx's
 * work on the same core, more than the quarter of each second the budget then leaves covers;
 * at an eighth the event loop is about a seventh busy and the budget leaves about a third.
 */
export const tierWarmShare = 0.125;

/**
 * The multiples of capacity a mix's steps through Nginx offer: the uniform mix every one asked
 * for; the Zipf mix the floods only (above 1x), its targets' 5x, 10x and 20x, which pays for
 * the pass before them (the whole bench stays within 20 minutes). All of them when none is a flood.
 */
export function floodMultipliers(mix: string, multipliers: readonly number[]): number[] {
  const floods = multipliers.filter((m) => m > 1);
  return mix === 'uniform' || floods.length === 0 ? [...multipliers] : floods;
}

/** The copies on disk when a flood's steps began, and the pass that put them there. */
export interface FloodStart {
  /** The server's name in the run (serverEnv's key). */
  server: string;
  pathMix: string;
  /** The pass before the steps: every article once at this rate. */
  ratePerS: number;
  requests: number;
  copies: number;
  bytes: number;
}

/** The two arms' settings. The tier reads LAST_GOOD_DIR and LAST_GOOD_SECONDS; 0 seconds keeps nothing. */
export function copiesEnv(dir: string | null): Record<string, string> {
  return dir === null ? { LAST_GOOD_SECONDS: '0' } : { LAST_GOOD_DIR: dir };
}

export interface CopiesRound {
  kept: StepRecord;
  none: StepRecord;
}

export interface CopiesResult {
  ratePerS: number;
  /** The windows that chose ratePerS, in order; absent in results recorded before there were any. */
  calibration?: CopiesCalibration[];
  rounds: CopiesRound[];
  /**
   * Both arms of a round served at once, each half of ratePerS (measureCopies); absent in results
   * recorded before, whose rounds ran one arm after the other at the whole rate, alternating.
   */
  atOnce?: boolean;
  /** The method's control (--copies-control): neither server kept copies. */
  control?: boolean;
  /**
   * The calibration windows ran both servers at once, each at half the rate, and their
   * serverCpuPct is the two together; absent in results recorded before, calibrated with the
   * server without copies alone.
   */
  calibratedAtOnce?: boolean;
  /** Files and bytes under the kept arm's LAST_GOOD_DIR after its last window: 0 files, no tier in this build. */
  files: number;
  bytes: number;
}

/**
 * The share of a window's server CPU (worker and Nginx) the workers spent writing copies, as
 * the worker counts it (LastGoodWriteTime: the timed writes, wall time, so an upper bound on
 * their CPU); null where the server does not count it.
 */
export function copiesWriteShare(step: StepRecord): number | null {
  if (step.lastGoodWriteMs === undefined || step.lastGoodWriteMs === null) return null;
  const cpuMs = (step.serverCpuPct / 100) * step.windowS * 1_000;
  return cpuMs > 0 ? step.lastGoodWriteMs / cpuMs : null;
}

/** A round's CPU per request with copies kept over without. */
export function copiesRatio(round: CopiesRound): number {
  return cpuRatio(round.kept, round.none);
}

/** The median of the rounds' ratios; NaN for none. */
export function medianCopiesRatio(rounds: readonly CopiesRound[]): number {
  return median(rounds.map(copiesRatio));
}

/** Files and bytes under `dir`, however deep; nothing when it is gone. */
export function diskUse(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const walk = (at: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        files++;
        try {
          bytes += fs.statSync(full).size;
        } catch {
          // evicted while we looked
        }
      }
    }
  };
  walk(dir);
  return { files, bytes };
}

/**
 * `rounds` pairs of windows, the two of a round at once (`step` runs one arm's half of the
 * rounds' rate on its own generator); each window's "other processes on the server's core" is
 * then its own less the other arm's CPU (sharedCore).
 */
export async function measureCopies(
  arms: { kept: ServerUnderTest; none: ServerUnderTest },
  rounds: number,
  step: (server: ServerUnderTest, label: string) => Promise<StepRecord>,
): Promise<CopiesRound[]> {
  const result: CopiesRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    const of = `round ${round} of ${rounds}`;
    const [kept, none] = await Promise.all([step(arms.kept, `copies kept, ${of}`), step(arms.none, `no copies, ${of}`)]);
    result.push({ kept: sharedCore(kept, none), none: sharedCore(none, kept) });
  }
  return result;
}
