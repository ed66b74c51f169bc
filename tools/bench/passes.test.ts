import assert from 'node:assert/strict';
import test from 'node:test';
import { IdPasses, passPerS } from './passes';

const base = { warmupS: 3, durationS: 10, timeoutMs: 5000, maxConnections: 4000 };

test('the first pass reads exactly the ids the warm-up did not, the warm pass every id, each in one step', () => {
  const passes = new IdPasses(10_000, 1_085, 325, base);
  assert.equal(passes.coldIds, 8_915);
  for (const requests of [passes.coldIds, passes.ids]) {
    const timing = passes.timing(requests);
    // The generator sends rate × (warm-up + window) requests in a step.
    assert.ok(Math.abs(Math.round(325 * (timing.warmupS + timing.durationS)) - requests) <= 2, `${requests}: ${JSON.stringify(timing)}`);
    assert.ok(timing.warmupS <= 0.2, 'almost every request falls in the measured window');
    assert.equal(timing.timeoutMs, 5000);
  }
});

test('the pass rate: a quarter of the in-process rate, half in a smoke run, never below 200 (300 quick)', () => {
  assert.equal(passPerS(1_300, false), 325);
  assert.equal(passPerS(1_300, true), 650);
  assert.equal(passPerS(400, false), 200);
  assert.equal(passPerS(undefined, false), 300);
});
