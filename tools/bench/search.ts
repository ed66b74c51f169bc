// Finding the highest rate that passes: up in geometric steps until one fails, then bisect
// (geometrically) between the last pass and the first failure.

export interface SearchOptions {
  startPerS: number;
  factor: number;
  /** Stop once the first failure is within this ratio of the last pass (1.05 = 5%). */
  precision: number;
  minPerS: number;
  maxPerS: number;
}

export interface SearchResult<T> {
  /** Highest passing rate, 0 if even the minimum failed. */
  ratePerS: number;
  /** The step at that rate, and the lowest failing one above it (if any). */
  passed: T | null;
  failedAbove: T | null;
  /** True when the search stopped at maxPerS without a failure. */
  hitCeiling: boolean;
}

/** Rates are offered in whole requests per second. */
function between(lo: number, hi: number): number {
  return Math.round(Math.sqrt(lo * hi));
}

export async function searchMaxRate<T>(run: (ratePerS: number) => Promise<{ pass: boolean; step: T }>, options: SearchOptions): Promise<SearchResult<T>> {
  let lo = 0;
  let hi = Infinity;
  let passed: T | null = null;
  let failedAbove: T | null = null;
  const probe = async (rate: number) => {
    const { pass, step } = await run(rate);
    if (pass) [lo, passed] = [rate, step];
    else [hi, failedAbove] = [rate, step];
    return pass;
  };

  let rate = Math.round(options.startPerS);
  if (await probe(rate)) {
    while (hi === Infinity && rate < options.maxPerS) {
      rate = Math.min(options.maxPerS, Math.round(rate * options.factor));
      await probe(rate);
    }
  } else {
    while (lo === 0 && rate > options.minPerS) {
      rate = Math.max(options.minPerS, Math.round(rate / options.factor));
      await probe(rate);
    }
  }
  while (lo > 0 && hi !== Infinity && hi / lo > options.precision) {
    const next = between(lo, hi);
    if (next <= lo || next >= hi) break;
    await probe(next);
  }
  return { ratePerS: lo, passed, failedAbove, hitCeiling: hi === Infinity && lo > 0 };
}
