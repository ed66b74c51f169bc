import { performance, type EventLoopUtilization } from 'node:perf_hooks';

// How much of a worker's time its last good copies may take (docs/overload.md, "The cost of a
// copy"). A budget in time, not in writes: the worker times each copy's synchronous write and,
// once a second, sets the next second's allowance from how busy its event loop was over the
// last one:
//
//   allowance = 1 s × max(busyShare, idleShare × (1 − utilization / busyUtilization))
//
// A saturated worker (utilization at or past busyUtilization) spends at most busyShare of each
// second writing; one serving below capacity may spend up to idleShare of each second when
// idle, less the busier it is, so it copies every page it renders. A write begins only while
// the second's allowance is not spent; the write that crosses it is the last one of that second.

export interface WriteBudgetSettings {
  /** The share of each second a busy worker may spend writing copies. */
  busyShare: number;
  /** The share of each second a worker whose event loop was idle may spend writing copies. */
  idleShare: number;
  /** Event-loop utilization (0–1) from which a worker counts as busy. */
  busyUtilization: number;
}

/** The event loop's utilization since the previous call (0–1): what the allowance is set from. */
export type UtilizationMeter = () => number;

/** Node's own meter: `performance.eventLoopUtilization()` over the interval since it was last read. */
export function eventLoopUtilizationMeter(): UtilizationMeter {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, last);
    last = now;
    return since.utilization;
  };
}

const windowMs = 1_000;

export class WriteBudget {
  /** When the current second began (the clock's ms), and what it allows and has spent. */
  #window = { start: Number.NEGATIVE_INFINITY, allowanceMs: 0, spentMs: 0 };
  /** Every write's time added up, in ms. */
  spentMs = 0;
  readonly #utilization: UtilizationMeter;
  readonly #clock: () => number;
  readonly #onSpent: (ms: number) => void;

  /**
   * `utilization` and `clock` are the event loop's and performance.now() unless a test stands in
   * for them; `onSpent` is told each write's time (the worker's LastGoodWriteTime counter).
   */
  constructor(
    private readonly settings: WriteBudgetSettings,
    options: { utilization?: UtilizationMeter; clock?: () => number; onSpent?: (ms: number) => void } = {},
  ) {
    this.#utilization = options.utilization ?? eventLoopUtilizationMeter();
    this.#clock = options.clock ?? (() => performance.now());
    this.#onSpent = options.onSpent ?? (() => {});
  }

  /** The share of a second the rule allows at a given utilization. */
  shareAt(utilization: number): number {
    const { busyShare, idleShare, busyUtilization } = this.settings;
    return Math.max(busyShare, idleShare * (1 - utilization / busyUtilization));
  }

  /** Whether a write may begin now. */
  allows(): boolean {
    const now = this.#clock();
    if (now - this.#window.start >= windowMs) {
      this.#window = { start: now, allowanceMs: windowMs * this.shareAt(this.#utilization()), spentMs: 0 };
    }
    return this.#window.spentMs < this.#window.allowanceMs;
  }

  /** Times `write` against the current second's allowance; returns what it returned. */
  timed<T>(write: () => T): T {
    const start = this.#clock();
    try {
      return write();
    } finally {
      const ms = this.#clock() - start;
      this.#window.spentMs += ms;
      this.spentMs += ms;
      this.#onSpent(ms);
    }
  }
}
