// Per-core figures from a `npm run bench` result (bench.json, BenchResults in
// tools/bench/results.ts): one worker pinned to one core, so per core is per vCPU. The file is
// what the two tools share, not a type (no tool imports another's): BenchJson names the fields
// read here as bench.json holds them, and the two rates the simulation needs are checked as they
// are read.
import { InputError } from './duration';

/** The part of a bench.json read here; the names are BenchResults's. */
interface BenchJson {
  startedAt: string;
  environment: { cpuModel: string; commit: string };
  capacity: { ratePerS: number } | null;
  reference: { shellPath: { ratePerS: number } | null };
  steps: {
    /** The fallback mode of tools/bench/results.ts: 'on', 'off', 'nginx', … */
    mode: string;
    multiplier: number;
    offeredPerS: number;
    achievedPerS: number;
    latencyMs: { p99: number };
    timeouts: number;
    errors: number;
    ssrShare: number;
  }[];
}

export interface BenchStep {
  mode: string;
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
  let results: Partial<BenchJson>;
  try {
    results = JSON.parse(text) as Partial<BenchJson>;
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
