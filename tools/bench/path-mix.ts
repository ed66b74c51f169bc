// Which article pages a step reads, in what proportion. `uniform` rotates evenly over every
// seeded article (the bench's first workload); `zipf` reads them as a breaking-news day does:
// the article of popularity rank k (the newest first) is read in proportion to 1/k^s, s = 1,
// over all of them, so the newest story takes about a tenth of the reads and the 100 newest
// about half. The sequence is drawn once with a seeded generator, so every run and every
// machine reads the same paths in the same order, and the generator rotates through it as it
// rotates through the uniform list.
import { seededRandom } from '@kiosk/surface';

export const pathMixes = ['uniform', 'zipf'] as const;
export type PathMix = (typeof pathMixes)[number];

/** Popularity falls as 1/rank^s: s = 1, as the reading of a news site's articles does. */
export const zipfExponent = 1;
/** The seed the run's Zipf sequence is drawn with: the same sequence on every run. */
export const zipfSeed = 0x5eed;
/** Draws in the sequence the generator rotates through: every rank a reader reads at least ten times a step is in it. */
export const zipfDraws = 100_000;

/**
 * A sampler of ranks 0..n-1 (0 the most popular) with P(k) proportional to 1/(k+1)^s: a uniform
 * draw from `random` found in the cumulative weights by bisection (inverse transform).
 */
export function zipfSampler(n: number, s: number, random: () => number): () => number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`a Zipf sampler needs one rank or more, got ${n}`);
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) cumulative[k] = total += 1 / (k + 1) ** s;
  return () => {
    const target = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** `draws` ranks of n, deterministic for a seed. */
export function zipfRanks(n: number, draws: number, seed = zipfSeed, s = zipfExponent): number[] {
  const next = zipfSampler(n, s, seededRandom(seed));
  return Array.from({ length: draws }, next);
}

/** Article paths (/section/id) newest first: newsroom ids begin with their publish minute. */
export function newestFirst(paths: readonly string[]): string[] {
  const id = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  return [...paths].sort((a, b) => (id(a) < id(b) ? 1 : id(a) > id(b) ? -1 : 0));
}

/** The paths a step of this mix reads, in order: the run's list itself, or the Zipf sequence over it. */
export function mixPaths(mix: PathMix, paths: readonly string[], draws = zipfDraws): string[] {
  if (mix === 'uniform') return [...paths];
  const byRank = newestFirst(paths);
  return zipfRanks(byRank.length, draws).map((rank) => byRank[rank]!);
}

export function describeMix(mix: PathMix): string {
  return mix === 'uniform' ? 'uniform' : `Zipf s=${zipfExponent}`;
}
