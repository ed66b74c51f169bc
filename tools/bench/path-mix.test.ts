import assert from 'node:assert/strict';
import test from 'node:test';
import { seededRandom } from '@kiosk/surface';
import { mixPaths, newestFirst, zipfRanks, zipfSampler } from './path-mix';

const articles = 10_000;
const draws = 1_000_000;

/** How many times each rank was drawn. */
function counts(ranks: readonly number[], n: number): number[] {
  const seen = new Array<number>(n).fill(0);
  for (const rank of ranks) seen[rank]!++;
  return seen;
}

test('Zipf, s = 1 over 10,000 articles: each of the top ranks is read in proportion to 1/rank, within 5% over a million draws', () => {
  const seen = counts(zipfRanks(articles, draws), articles);
  let harmonic = 0;
  for (let k = 1; k <= articles; k++) harmonic += 1 / k;
  for (let k = 1; k <= 30; k++) {
    const expected = draws / k / harmonic;
    const got = seen[k - 1]!;
    assert.ok(Math.abs(got / expected - 1) < 0.05, `rank ${k}: ${got} draws, ${Math.round(expected)} expected`);
  }
  // The newest story takes about a tenth of the reads, the 100 newest about half.
  assert.ok(Math.abs(seen[0]! / draws - 0.102) < 0.003, `rank 1: ${seen[0]! / draws}`);
  const top100 = seen.slice(0, 100).reduce((a, b) => a + b, 0) / draws;
  assert.ok(Math.abs(top100 - 0.53) < 0.01, `top 100: ${top100}`);
});

test('Zipf, s = 1: the rank-frequency line has slope -1 on log-log axes (least squares over ranks 1-1,000, within 0.05)', () => {
  const seen = counts(zipfRanks(articles, draws), articles);
  const points = seen.slice(0, 1000).map((count, i) => [Math.log(i + 1), Math.log(count)] as const);
  const meanX = points.reduce((a, [x]) => a + x, 0) / points.length;
  const meanY = points.reduce((a, [, y]) => a + y, 0) / points.length;
  const slope = points.reduce((a, [x, y]) => a + (x - meanX) * (y - meanY), 0) / points.reduce((a, [x]) => a + (x - meanX) ** 2, 0);
  assert.ok(Math.abs(slope + 1) < 0.05, `slope ${slope.toFixed(3)}`);
});

test('the sampler follows its exponent: s = 0 is uniform, s = 2 falls as 1/rank²', () => {
  const uniform = counts(Array.from({ length: 100_000 }, zipfSampler(10, 0, seededRandom(1))), 10);
  for (const count of uniform) assert.ok(Math.abs(count / 10_000 - 1) < 0.05, `uniform: ${uniform.join(', ')}`);
  const steep = counts(Array.from({ length: 200_000 }, zipfSampler(100, 2, seededRandom(2))), 100);
  assert.ok(Math.abs(steep[0]! / steep[1]! - 4) < 0.2, `rank 1 over rank 2: ${steep[0]! / steep[1]!}`);
  assert.ok(Math.abs(steep[0]! / steep[2]! - 9) < 0.6, `rank 1 over rank 3: ${steep[0]! / steep[2]!}`);
});

test('the same seed draws the same sequence, another seed another one', () => {
  assert.deepEqual(zipfRanks(articles, 5_000, 7), zipfRanks(articles, 5_000, 7));
  const other = zipfRanks(articles, 5_000, 8);
  const same = zipfRanks(articles, 5_000, 7).filter((rank, i) => rank === other[i]).length;
  // Two independent draws agree where both drew the same rank: about Σp² of the time (a few percent).
  assert.ok(same < 500, `${same} of 5,000 positions equal`);
  assert.throws(() => zipfSampler(0, 1, Math.random), /one rank or more/);
});

test('the Zipf mix ranks articles newest first (ids begin with the publish minute); the uniform mix is the list as it is', () => {
  const paths = ['/world/202611101200000001', '/cars/202611251800000002', '/sport/202611201000000003'];
  assert.deepEqual(newestFirst(paths), ['/cars/202611251800000002', '/sport/202611201000000003', '/world/202611101200000001']);
  assert.deepEqual(mixPaths('uniform', paths), paths);
  const zipf = mixPaths('zipf', paths, 6_000);
  assert.equal(zipf.length, 6_000);
  const share = (p: string) => zipf.filter((x) => x === p).length / zipf.length;
  // 1 : 1/2 : 1/3 of 11/6: 55%, 27%, 18%.
  assert.ok(Math.abs(share('/cars/202611251800000002') - 6 / 11) < 0.03);
  assert.ok(Math.abs(share('/sport/202611201000000003') - 3 / 11) < 0.03);
  assert.ok(Math.abs(share('/world/202611101200000001') - 2 / 11) < 0.03);
});
