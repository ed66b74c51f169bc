// A latency distribution with fixed log-spaced buckets: recording is O(1) and allocates
// nothing, so it can run on every request; percentiles come out within one bucket's width
// (a factor of 2^(1/4), about 19%).

const smallestMs = 0.1;
const bucketsPerDoubling = 4;
// 0.1 ms · 2^(80/4) ≈ 105 s: anything slower lands in the last bucket.
export const bucketCount = 81;

export interface HistogramSnapshot {
  count: number;
  sumMs: number;
  maxMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  /** Bucket upper bounds and counts, non-empty buckets only: CloudWatch's Values/Counts. */
  values: number[];
  counts: number[];
}

export function bucketUpperBound(index: number): number {
  return smallestMs * 2 ** (index / bucketsPerDoubling);
}

export class Histogram {
  private readonly buckets = new Float64Array(bucketCount);
  private count = 0;
  private sumMs = 0;
  private maxMs = 0;
  /** The largest value since the last takeWindowMax(): maxima cannot be taken as differences. */
  private windowMaxMs = 0;

  record(ms: number): void {
    const index = ms <= smallestMs ? 0 : Math.min(bucketCount - 1, Math.ceil(Math.log2(ms / smallestMs) * bucketsPerDoubling));
    this.buckets[index]! += 1;
    this.count += 1;
    this.sumMs += ms;
    if (ms > this.maxMs) this.maxMs = ms;
    if (ms > this.windowMaxMs) this.windowMaxMs = ms;
  }

  /** The largest value recorded since the previous call. */
  takeWindowMax(): number {
    const max = this.windowMaxMs;
    this.windowMaxMs = 0;
    return max;
  }

  /** Becomes a copy of `other`'s observations (a reader's starting point). */
  copyFrom(other: Histogram): void {
    this.buckets.set(other.buckets);
    this.count = other.count;
    this.sumMs = other.sumMs;
    this.maxMs = other.maxMs;
  }

  /** The observations in `now` that `before` (an earlier copy of it) had not seen; `maxMs` is their largest. */
  static difference(now: Histogram, before: Histogram, maxMs: number): Histogram {
    const since = new Histogram();
    for (let i = 0; i < bucketCount; i++) since.buckets[i] = now.buckets[i]! - before.buckets[i]!;
    since.count = now.count - before.count;
    since.sumMs = now.sumMs - before.sumMs;
    // Without a taken peak (no roll yet), the highest non-empty bucket's bound is the honest bound.
    let top = bucketCount - 1;
    while (top > 0 && since.buckets[top] === 0) top -= 1;
    since.maxMs = since.count === 0 ? 0 : maxMs > 0 ? maxMs : Math.min(bucketUpperBound(top), now.maxMs);
    return since;
  }

  /** The upper bound of the bucket holding the p-th percentile (0 < p ≤ 1); 0 when empty. */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(p * this.count);
    let seen = 0;
    for (let i = 0; i < bucketCount; i++) {
      seen += this.buckets[i]!;
      if (seen >= rank) return Math.min(bucketUpperBound(i), this.maxMs);
    }
    return this.maxMs;
  }

  snapshot(): HistogramSnapshot {
    const values: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < bucketCount; i++) {
      if (this.buckets[i]! > 0) {
        values.push(bucketUpperBound(i));
        counts.push(this.buckets[i]!);
      }
    }
    return {
      count: this.count,
      sumMs: this.sumMs,
      maxMs: this.maxMs,
      p50Ms: this.percentile(0.5),
      p90Ms: this.percentile(0.9),
      p99Ms: this.percentile(0.99),
      values,
      counts,
    };
  }

  /** Adds another histogram's observations to this one (readers fold intervals into totals). */
  merge(other: Histogram): void {
    for (let i = 0; i < bucketCount; i++) this.buckets[i]! += other.buckets[i]!;
    this.count += other.count;
    this.sumMs += other.sumMs;
    if (other.maxMs > this.maxMs) this.maxMs = other.maxMs;
  }

  reset(): void {
    this.buckets.fill(0);
    this.count = 0;
    this.sumMs = 0;
    this.maxMs = 0;
    this.windowMaxMs = 0;
  }
}
