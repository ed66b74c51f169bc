import type { PoolStats } from './connection-pool';
import type { StepCounts } from './open-loop';

/** One open-loop step as the orchestrator asks the generator process to run it. */
export interface StepSpec {
  id: number;
  host: string;
  port: number;
  ratePerS: number;
  warmupS: number;
  durationS: number;
  timeoutMs: number;
  maxConnections: number;
}

export interface GeneratorResult {
  counts: StepCounts;
  warmup: StepCounts;
  pool: PoolStats;
}

export type ToGenerator = { type: 'run'; step: StepSpec } | { type: 'exit' };

/** `measuring`/`measured` bracket the window so the orchestrator samples CPU over exactly it. */
export type FromGenerator =
  | { type: 'ready' }
  | { type: 'measuring'; id: number }
  | { type: 'measured'; id: number }
  | { type: 'result'; id: number; result: GeneratorResult }
  | { type: 'failed'; id: number; message: string };
