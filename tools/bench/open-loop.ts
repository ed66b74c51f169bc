// The open-loop generator's bookkeeping, kept free of I/O so it can be tested alone:
// when each request is due, and what a step counted.

/** How many of `total` requests are due `elapsedMs` after the step began (the first at 0). */
export function requestsDue(elapsedMs: number, ratePerS: number, total: number): number {
  if (elapsedMs < 0) return 0;
  return Math.min(total, Math.floor((elapsedMs * ratePerS) / 1000) + 1);
}

/** When request `index` is due. Latency counts from here, not from when it was written. */
export function scheduledTime(startMs: number, index: number, ratePerS: number): number {
  return startMs + (index * 1000) / ratePerS;
}

/** A growable list of numbers; sorted once when the step is summarised. */
export class Samples {
  private values = new Float64Array(1024);
  private length = 0;

  add(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  get count(): number {
    return this.length;
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}

/** Nearest-rank percentile of an ascending array; NaN when there is nothing to rank. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarise(samples: Samples): LatencySummary {
  const sorted = samples.sorted();
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
  };
}

export interface Answer {
  status: number;
  renderMode: string | null;
  retryAfter: boolean;
  /** Nginx's shell is a static file with Last-Modified; no answer from Node carries one. */
  staticFile?: boolean;
}

export interface StepCounts {
  offeredPerS: number;
  windowS: number;
  /** Requests scheduled inside the measured window: the denominator of every share. */
  scheduled: number;
  /** Request writes that happened during the window, whenever they were scheduled. */
  sentPerS: number;
  answered: number;
  ok: number;
  /** 2xx answers that arrived during the window, whenever they were scheduled: throughput. */
  achievedPerS: number;
  non2xx: number;
  status503: number;
  status503WithRetryAfter: number;
  errors: number;
  errorCodes: Record<string, number>;
  timeouts: number;
  /** Timed out before any connection took them: the generator never sent them. */
  timeoutsUnsent: number;
  ssr: number;
  /** Shells from Node and from Nginx; shellNginx counts Nginx's own. */
  shell: number;
  shellNginx: number;
  ssrShare: number;
  /** Server-rendered 2xx answers that arrived during the window. */
  ssrPerS: number;
  /** Timeouts enter the latency percentiles at the timeout, so a step cannot hide them. */
  latencyMs: LatencySummary;
  /** Scheduled-to-written delay: how far the generator itself fell behind. */
  sendDelayMs: LatencySummary;
}

/**
 * Counts one step. A request's fate (answer, failure, timeout, latency) counts when it was
 * scheduled inside [windowStart, windowEnd); throughput (sent, achieved, server-rendered per
 * second) counts what happened on the wire inside it.
 */
export class StepTally {
  private latency = new Samples();
  private sendDelay = new Samples();
  private writes = 0;
  private okInWindow = 0;
  private ssrInWindow = 0;
  private counts = {
    scheduled: 0,
    answered: 0,
    ok: 0,
    non2xx: 0,
    status503: 0,
    status503WithRetryAfter: 0,
    errors: 0,
    timeouts: 0,
    timeoutsUnsent: 0,
    ssr: 0,
    shell: 0,
    shellNginx: 0,
  };
  private errorCodes: Record<string, number> = {};

  constructor(
    private readonly windowStartMs: number,
    private readonly windowEndMs: number,
    private readonly timeoutMs: number,
  ) {}

  inWindow(at: number): boolean {
    return at >= this.windowStartMs && at < this.windowEndMs;
  }

  scheduledOne(scheduledAt: number): void {
    if (this.inWindow(scheduledAt)) this.counts.scheduled++;
  }

  written(scheduledAt: number, at: number): void {
    if (this.inWindow(at)) this.writes++;
    if (this.inWindow(scheduledAt)) this.sendDelay.add(at - scheduledAt);
  }

  answered(scheduledAt: number, at: number, answer: Answer): void {
    const ok = answer.status >= 200 && answer.status < 300;
    if (ok && this.inWindow(at)) {
      this.okInWindow++;
      if (answer.renderMode === 'ssr') this.ssrInWindow++;
    }
    if (!this.inWindow(scheduledAt)) return;
    const c = this.counts;
    c.answered++;
    this.latency.add(at - scheduledAt);
    if (ok) {
      c.ok++;
      if (answer.renderMode === 'ssr') c.ssr++;
      else if (answer.renderMode === 'shell') {
        c.shell++;
        if (answer.staticFile) c.shellNginx++;
      }
    } else {
      c.non2xx++;
    }
    if (answer.status === 503) {
      c.status503++;
      if (answer.retryAfter) c.status503WithRetryAfter++;
    }
  }

  timedOut(scheduledAt: number, wasSent: boolean): void {
    if (!this.inWindow(scheduledAt)) return;
    this.counts.timeouts++;
    if (!wasSent) this.counts.timeoutsUnsent++;
    this.latency.add(this.timeoutMs);
  }

  failed(scheduledAt: number, code: string): void {
    if (!this.inWindow(scheduledAt)) return;
    this.counts.errors++;
    this.errorCodes[code] = (this.errorCodes[code] ?? 0) + 1;
  }

  summary(offeredPerS: number): StepCounts {
    const windowS = (this.windowEndMs - this.windowStartMs) / 1000;
    const c = this.counts;
    return {
      offeredPerS,
      windowS,
      ...c,
      sentPerS: this.writes / windowS,
      achievedPerS: this.okInWindow / windowS,
      errorCodes: { ...this.errorCodes },
      ssrShare: c.scheduled === 0 ? 0 : c.ssr / c.scheduled,
      ssrPerS: this.ssrInWindow / windowS,
      latencyMs: summarise(this.latency),
      sendDelayMs: summarise(this.sendDelay),
    };
  }
}
