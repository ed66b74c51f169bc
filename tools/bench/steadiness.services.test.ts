import assert from 'node:assert/strict';
import test from 'node:test';
import { repositoryRoot } from '@kiosk/surface';
import { measureSteadiness } from './steadiness';

test('steadiness.c builds with the system compiler and times both kinds of chunk on the server core', async () => {
  const steadiness = await measureSteadiness(repositoryRoot, 1);
  assert.equal(steadiness.seconds, 1);
  for (const kind of ['arithmetic', 'memory'] as const) {
    const spread = steadiness[kind];
    // About 10 ms a pair of chunks: a second holds dozens even on a busy machine.
    assert.ok(spread.chunks >= 10, `${kind}: ${spread.chunks} chunks`);
    assert.ok(spread.p10 > 0 && spread.p10 <= spread.p50 && spread.p50 <= spread.p90, `${kind}: ${JSON.stringify(spread)}`);
    assert.ok(spread.ratio >= 1, `${kind}: ratio ${spread.ratio}`);
  }
});
