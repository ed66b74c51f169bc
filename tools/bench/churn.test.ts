import assert from 'node:assert/strict';
import test from 'node:test';
import { measureChurn } from './churn';
import type { StepRecord } from './measure';
import type { ServerUnderTest } from './processes';

test('the rounds alternate their order: without pushes first in odd rounds, with them first in even ones; each pair keeps its own windows', async () => {
  const labels: string[] = [];
  // Steps that return at once: the pusher's first push would come after a second, so none is sent.
  const step = async (label: string, ratePerS: number) => {
    labels.push(`${label} @${ratePerS}`);
    return { label, serverCpuPct: labels.length } as unknown as StepRecord;
  };
  const server = { port: 9 } as ServerUnderTest;
  const result = await measureChurn(server, ['/news/1'], 1000, step, 4);
  assert.deepEqual(labels, [
    'churn: no pushes @1000',
    'churn: one CMS push a second @1000',
    'churn: after the pushes @1000',
    'churn: no pushes, round 1 of 4, 90% of capacity @900',
    'churn: one CMS push a second, round 1 of 4, 90% of capacity @900',
    'churn: one CMS push a second, round 2 of 4, 90% of capacity @900',
    'churn: no pushes, round 2 of 4, 90% of capacity @900',
    'churn: no pushes, round 3 of 4, 90% of capacity @900',
    'churn: one CMS push a second, round 3 of 4, 90% of capacity @900',
    'churn: one CMS push a second, round 4 of 4, 90% of capacity @900',
    'churn: no pushes, round 4 of 4, 90% of capacity @900',
  ]);
  const rounds = result.rounds!;
  assert.equal(rounds.length, 4);
  for (const round of rounds) {
    assert.match(round.steady.label, /no pushes/);
    assert.match(round.pushing.label, /one CMS push a second/);
    assert.equal(round.ratePerS, 900);
  }
  assert.equal(rounds[1]!.pushing.label, 'churn: one CMS push a second, round 2 of 4, 90% of capacity');
});
