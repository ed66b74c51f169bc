import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { searchMaxRate, type SearchOptions } from './search';

const options: SearchOptions = { startPerS: 100, factor: 2, precision: 1.05, minPerS: 10, maxPerS: 100_000 };

/** A server that passes every rate up to `limit`; records what was offered. */
function serverWithLimit(limit: number) {
  const offered: number[] = [];
  const run = async (rate: number) => {
    offered.push(rate);
    return { pass: rate <= limit, step: rate };
  };
  return { offered, run };
}

describe('capacity search', () => {
  test('doubles until a failure, then bisects to within the precision', async () => {
    const { offered, run } = serverWithLimit(730);
    const result = await searchMaxRate(run, options);
    assert.deepEqual(offered.slice(0, 5), [100, 200, 400, 800, 566]);
    assert.ok(result.ratePerS <= 730 && result.ratePerS >= 730 / 1.05, String(result.ratePerS));
    assert.ok(result.failedAbove !== null && result.failedAbove / result.ratePerS <= 1.05);
    assert.equal(result.passed, result.ratePerS);
    assert.equal(result.hitCeiling, false);
  });

  test('steps down when the start rate already fails', async () => {
    const { offered, run } = serverWithLimit(30);
    const result = await searchMaxRate(run, options);
    assert.deepEqual(offered.slice(0, 3), [100, 50, 25]);
    assert.ok(result.ratePerS >= 28 && result.ratePerS <= 30, String(result.ratePerS));
  });

  test('reports 0 when even the minimum fails, and the ceiling when nothing does', async () => {
    assert.equal((await searchMaxRate(serverWithLimit(1).run, options)).ratePerS, 0);
    const ceiling = await searchMaxRate(serverWithLimit(Infinity).run, { ...options, maxPerS: 1000 });
    assert.equal(ceiling.ratePerS, 1000);
    assert.equal(ceiling.hitCeiling, true);
  });
});
