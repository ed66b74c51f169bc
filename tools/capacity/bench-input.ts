// Per-core figures from a `npm run bench` result (bench.json, BenchResults in
// tools/bench/results.ts): one worker pinned to one core, so per core is per vCPU.
import type { BenchResults, FallbackMode } from '../bench/results';
import { InputError } from './duration';

export interface BenchStep {
  mode: FallbackMode;
  multiplier: number;
  offeredPerS: number;
  achievedPerS: number;
  p99Ms: number;
  timeouts: number;
  errors: number;
  ssrShare: number;
}

export interface BenchFigures {
  file: string;
  startedAt: string;
  cpuModel: string;
  commit: string;
  /** capacity.ratePerS: server-rendered pages per second, p99 < 100 ms, no errors. */
  ssrPerCore: number;
  /** reference.shellPath.ratePerS: Kiosk answering the shell to every request. */
  shellPerCore: number;
  steps: BenchStep[];
}

function positiveNumber(value: unknown, field: string, file: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InputError(`${file}: ${field} is missing or not a positive number (is this a npm run bench result?)`);
  }
  return value;
}

export function readBenchJson(text: string, file: string): BenchFigures {
  let results: Partial<BenchResults>;
  try {
    results = JSON.parse(text) as Partial<BenchResults>;
  } catch (error) {
    throw new InputError(`${file}: not JSON (${(error as Error).message})`);
  }
  const ssrPerCore = positiveNumber(results.capacity?.ratePerS, 'capacity.ratePerS', file);
  const shellPerCore = positiveNumber(
    results.reference?.shellPath?.ratePerS,
    'reference.shellPath.ratePerS (a run with --skip-reference has none: pass --shell-per-vcpu)',
    file,
  );
  const steps = (Array.isArray(results.steps) ? results.steps : []).map((step) => ({
    mode: step.mode,
    multiplier: step.multiplier,
    offeredPerS: step.offeredPerS,
    achievedPerS: step.achievedPerS,
    p99Ms: step.latencyMs?.p99 ?? NaN,
    timeouts: step.timeouts,
    errors: step.errors,
    ssrShare: step.ssrShare,
  }));
  return {
    file,
    startedAt: results.startedAt ?? 'unknown',
    cpuModel: results.environment?.cpuModel ?? 'unknown',
    commit: results.environment?.commit ?? 'unknown',
    ssrPerCore,
    shellPerCore,
    steps,
  };
}
