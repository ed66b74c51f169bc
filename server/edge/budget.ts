import { purgedCacheControl } from '../cache-policy';

// The purge budget: how many invalidation paths the sender may spend (CloudFront bills each "#tag"
// item and each "/*" as one path past the account's first 1,000 a month). A token bucket refilled
// at EDGE_PURGE_MONTHLY_PATHS spread evenly over a month, holding at most an hour's share (the
// burst): a quiet day's pushes go out at once, a storm of pushes spends an hour's share and then
// what the month allows, never more. A batch that costs more than the bucket holds waits, and
// keeps gathering changes: its tags are a set, and front, l:all and the busy sections and tags
// repeat from push to push, so a longer batch costs fewer paths per push. It never drops a tag; a
// batch that would wait past the shortest edge lifetime goes out as "/*" (one path) instead
// (server/edge/purge.ts). `budgetDelay` is what that does at a steady rate of pushes: the table in
// docs/operations.md comes from it (npm run capacity -- --edge).

/**
 * EDGE_PURGE_MONTHLY_PATHS's default: a month of 1,000 pushes a day at about 7 paths each
 * (210,000) with room to spare, and at most (300,000 − 1,000 free) × $0.005 ≈ $1,500 a month.
 */
export const defaultMonthlyPaths = 300_000;
/** CloudFront's price of an invalidation path past the account's first 1,000 a month, USD (its pricing page as this is written). */
export const pathPriceUsd = 0.005;
export const freePathsPerMonth = 1_000;

/** A month, as CloudFront bills: 365/12 days. */
export const monthS = (365 / 12) * 86_400;
/** The bucket holds at most this share of the monthly budget: an hour's. */
export const burstS = 3_600;

/**
 * The shortest edge lifetime of a tagged answer while purging (server/cache-policy.ts, the most
 * read list excepted: it keeps 10 s whatever is purged). A purge that would wait longer than this
 * comes after the page has expired anyway: past it the sender sends "/*" instead.
 */
export const shortestPurgedLifetimeS = Math.min(
  ...Object.entries(purgedCacheControl)
    .filter(([name]) => name !== 'mostRead')
    .map(([, value]) => Number(/s-maxage=(\d+)/.exec(value)![1])),
);

/** Paths the bucket holds when full, for a monthly budget (0: unlimited, Infinity). */
export function burstPaths(monthlyPaths: number): number {
  return monthlyPaths === 0 ? Infinity : Math.max(1, (monthlyPaths * burstS) / monthS);
}

export class PurgeBudget {
  readonly #perMs: number;
  readonly #burst: number;
  #tokens: number;
  #at: number;
  #spent = 0;

  /** `monthlyPaths` 0: unlimited. The bucket starts full. */
  constructor(
    readonly monthlyPaths: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#perMs = monthlyPaths / (monthS * 1000);
    this.#burst = burstPaths(monthlyPaths);
    this.#tokens = this.#burst;
    this.#at = now();
  }

  get unlimited(): boolean {
    return this.monthlyPaths === 0;
  }

  /** Paths the bucket holds when full. */
  get burst(): number {
    return this.#burst;
  }

  /** Paths spent since start (refunds deducted). */
  get spent(): number {
    return this.#spent;
  }

  /** Paths that may be spent now. */
  available(): number {
    if (this.unlimited) return Infinity;
    const now = this.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
    return this.#tokens;
  }

  /** Spends `paths` if the bucket holds them; false (nothing spent) when it does not. */
  trySpend(paths: number): boolean {
    if (paths > this.available()) return false;
    this.#tokens -= paths;
    this.#spent += paths;
    return true;
  }

  /** Spends `paths` whatever the bucket holds (a stopping sender's last call); it may go below 0. */
  spendAnyway(paths: number): void {
    this.available();
    this.#tokens -= paths;
    this.#spent += paths;
  }

  /** Paths of a call CloudFront refused: not billed, back into the bucket. */
  refund(paths: number): void {
    this.available();
    this.#tokens = Math.min(this.#burst, this.#tokens + paths);
    this.#spent -= paths;
  }

  /** Milliseconds until the bucket holds `paths`: 0 when it does now, Infinity when it never can (more than the burst). */
  msUntil(paths: number): number {
    const have = this.available();
    if (paths <= have) return 0;
    if (paths > this.#burst) return Infinity;
    return Math.ceil((paths - have) / this.#perMs);
  }
}

export interface BudgetDelayInput {
  /** EDGE_PURGE_MONTHLY_PATHS; 0: unlimited. */
  monthlyPaths: number;
  /** The sender's batch (EDGE_PURGE_INTERVAL_MS), seconds: it looks again this often. */
  intervalS: number;
  /** Past this age the oldest change goes out in a "/*" (the shortest edge lifetime). */
  maxWaitS?: number;
  /** A batch with more items is one "/*" (server/edge/purge.ts maxItemsPerCall). */
  maxItems: number;
  /** Distinct paths in a batch that gathered `seconds` of pushes. */
  pathsIn: (seconds: number) => number;
}

export interface BudgetDelay {
  /** Seconds from one call to the next with the bucket spent: how long the oldest change in a batch waits. */
  delayS: number;
  /** The batches go out as "/*": the precise tags never became affordable in time. */
  everything: boolean;
  /** Paths per call, and a month of such calls. */
  pathsPerCall: number;
  pathsPerMonth: number;
}

/**
 * What the budget does to a steady stream of pushes, once the burst is spent: the sender looks
 * every interval and sends when the batch's paths (one for "/*") fit in what the bucket gained
 * since the last call. The batch waits as long as it needs to, up to `maxWaitS`, where it goes out
 * as "/*".
 */
export function budgetDelay(input: BudgetDelayInput): BudgetDelay {
  const maxWaitS = input.maxWaitS ?? shortestPurgedLifetimeS;
  const cost = (seconds: number) => {
    const paths = input.pathsIn(seconds);
    return paths > input.maxItems ? 1 : paths;
  };
  const result = (delayS: number, pathsPerCall: number, everything: boolean): BudgetDelay => ({
    delayS,
    everything,
    pathsPerCall,
    pathsPerMonth: (pathsPerCall * monthS) / delayS,
  });
  if (input.monthlyPaths === 0) return result(input.intervalS, cost(input.intervalS), input.pathsIn(input.intervalS) > input.maxItems);
  const perS = input.monthlyPaths / monthS;
  const burst = burstPaths(input.monthlyPaths);
  for (let t = input.intervalS; t < maxWaitS; t += input.intervalS) {
    const paths = cost(t);
    if (paths <= Math.min(burst, perS * t)) return result(t, paths, input.pathsIn(t) > input.maxItems);
  }
  // "/*" at the shortest lifetime, or as soon after it as one path is in the bucket.
  const t = Math.max(maxWaitS, Math.ceil(1 / perS / input.intervalS) * input.intervalS);
  return result(t, 1, true);
}
