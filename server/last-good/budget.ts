import { performance, type EventLoopUtilization } from 'node:perf_hooks';

// How much of a worker's time its last good copies may take (docs/overload.md, "The cost of a
// copy"). A budget in time, not in writes: the worker times each copy's synchronous write and,
// every 100 ms, sets the next window's allowance from how busy serving kept its event loop over
// the last second, or over the last window where that was busier (its utilization less the
// writes' own time):
//
//   allowance = 100 ms × max(busyShare × onCpu, idleShare × (1 − utilization / busyUtilization))
//
// where onCpu is the share of the last window the worker's process had the CPU (its CPU time over
// the window's, at most 1). A saturated worker (utilization at or past busyUtilization) spends at
// most busyShare of its CPU time writing: of its time when it has a core to itself, less of the
// clock's when it shares one (with Nginx at capacity; with the other server in the bench's copies
// rounds, where a budget of the clock's time let writes take 2.2% of a worker's CPU at 1%). The
// writes are timed by the clock, so a write the scheduler interrupts counts its wait too: the
// bound errs toward fewer writes. One serving below capacity may spend up to idleShare of its
// time when idle, less the busier it is, so it copies every page it renders. A write begins only
// while the window's allowance is not spent; what the write that crosses it spends over is taken
// from the next window's, so over time a busy worker stays within busyShare. Windows of 100 ms,
// so a write over is paid back within a few. The last second's utilization tells a worker
// serving below capacity from an idle one; the last window's, where it is higher, tells a flood that follows an idle spell at once:
// with the last second's alone the allowance fell to busyShare only once that second's average
// caught up, half a second into the flood, and a worker brought from idle to 72% of its capacity
// spent up to half of that half second writing copies, its answers queueing behind them (p99 of
// 169–3,189 ms over the first 1.5 s in the bench's copies rounds, against 3–115 ms without copies).

export interface WriteBudgetSettings {
  /** The share of its CPU time a busy worker may spend writing copies. */
  busyShare: number;
  /** The share of its time a worker whose event loop was idle may spend writing copies. */
  idleShare: number;
  /** Event-loop utilization (0–1) from which a worker counts as busy. */
  busyUtilization: number;
}

/**
 * The event loop's utilization (0–1) over about the last second, less the share the copies' own
 * writes took (`writtenMs`: every write's time so far): what each window's allowance is set from.
 */
export type UtilizationMeter = (writtenMs: number) => number;

interface Reading {
  at: number;
  elu: EventLoopUtilization;
  writtenMs: number;
}

/** The share of the time between two readings that serving kept the event loop busy: the writes' own time taken out. */
function servingBetween(then: Reading, now: Reading): number {
  const { active, idle } = performance.eventLoopUtilization(now.elu, then.elu);
  return active + idle > 0 ? Math.max(0, active - (now.writtenMs - then.writtenMs)) / (active + idle) : 0;
}

/**
 * Node's own meter, `performance.eventLoopUtilization()`: the higher of the utilization over the
 * last second and since the reading before (the last window). The readings of the last second's
 * windows are kept (about ten), and the second is measured from the newest one at least a second
 * old (or the oldest kept). The second tells a worker serving below capacity from an idle one;
 * the last window tells a flood at once (the rule at the top of this file). The writes' own time
 * is taken out: how busy serving keeps the worker decides the budget, or the writes an idle
 * worker makes would read as business and refuse the next ones.
 */
export function eventLoopUtilizationMeter(spanMs = 1_000): UtilizationMeter {
  const readings: Reading[] = [{ at: performance.now(), elu: performance.eventLoopUtilization(), writtenMs: 0 }];
  return (writtenMs) => {
    const now = { at: performance.now(), elu: performance.eventLoopUtilization(), writtenMs };
    while (readings.length > 1 && now.at - readings[1]!.at >= spanMs) readings.shift();
    const utilization = Math.max(servingBetween(readings[0]!, now), servingBetween(readings.at(-1)!, now));
    readings.push(now);
    return utilization;
  };
}

const windowMs = 100;

/** The CPU time this process has used, in ms (every thread: what the worker costs its core). */
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export class WriteBudget {
  /** When the current window began (the clock's ms, and the process's CPU ms), and what it allows and has spent. */
  #window = { start: Number.NEGATIVE_INFINITY, cpuStart: 0, allowanceMs: 0, spentMs: 0 };
  /** Every write's time added up, in ms. */
  spentMs = 0;
  readonly #utilization: UtilizationMeter;
  readonly #clock: () => number;
  readonly #cpuClock: () => number;
  readonly #onSpent: (ms: number) => void;

  /**
   * `utilization`, `clock` and `cpuClock` are the event loop's, performance.now() and the
   * process's CPU time (processCpuMs) unless a test stands in for them; `onSpent` is told each
   * write's time (the worker's LastGoodWriteTime counter).
   */
  constructor(
    private readonly settings: WriteBudgetSettings,
    options: { utilization?: UtilizationMeter; clock?: () => number; cpuClock?: () => number; onSpent?: (ms: number) => void } = {},
  ) {
    this.#utilization = options.utilization ?? eventLoopUtilizationMeter();
    this.#clock = options.clock ?? (() => performance.now());
    this.#cpuClock = options.cpuClock ?? processCpuMs;
    this.#onSpent = options.onSpent ?? (() => {});
  }

  /**
   * The share of the time the rule allows at a given utilization, for a worker that had the CPU
   * `onCpu` of the time (0–1): the busy share is of its CPU time, not of the clock's.
   */
  shareAt(utilization: number, onCpu = 1): number {
    const { busyShare, idleShare, busyUtilization } = this.settings;
    return Math.max(busyShare * onCpu, idleShare * (1 - utilization / busyUtilization));
  }

  /** Whether a write may begin now. */
  allows(): boolean {
    const now = this.#clock();
    if (now - this.#window.start >= windowMs) {
      const cpu = this.#cpuClock();
      const over = Math.max(0, this.#window.spentMs - this.#window.allowanceMs);
      // How much of the last window the worker had the CPU (all of it for the first window).
      const onCpu = Number.isFinite(this.#window.start) ? Math.min(1, Math.max(0, cpu - this.#window.cpuStart) / (now - this.#window.start)) : 1;
      const share = this.shareAt(this.#utilization(this.spentMs), onCpu);
      this.#window = { start: now, cpuStart: cpu, allowanceMs: windowMs * share - over, spentMs: 0 };
    }
    return this.#window.spentMs < this.#window.allowanceMs;
  }

  /** Times `write` against the current window's allowance; returns what it returned. */
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
