// The statistics the commands and tools report, each defined once.

/** The median: the middle value, or the mean of the two middle values for an even count; NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The nearest-rank percentile: the smallest value that at least `share` (0 to 1) of the values
 * are at or below, so always one of the values (share 0 gives the smallest, 1 the largest); NaN
 * for none. loadgen.c (in C) reports its percentiles by the same definition.
 */
export function percentile(values: readonly number[], share: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
}
