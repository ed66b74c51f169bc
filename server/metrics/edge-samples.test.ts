// What a primary publishes of the edge purge: the lag only from the fleet's sender, so that a
// fleet where nobody holds the sender's lock publishes no lag at all and the lag alarm, which
// counts a missing datapoint as breaching, pages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricNames, type Sample } from './cloudwatch';
import { edgeSamplesOf, type EdgeReadings } from './primary';

/** A single-value sample's value (these are never distributions). */
function valueOf(sample: Sample | undefined): number | undefined {
  return sample && 'value' in sample ? sample.value : undefined;
}

function readings(sending: boolean, lag: number): EdgeReadings {
  return { tagsSent: 12, failures: 1, sending, lagS: () => lag };
}

test('a stand-by publishes tags and failures but no lag; the sender publishes its lag', () => {
  const sent = { tags: 4, failures: 0 };
  const now = { tags: 12, failures: 1 };
  const standBy = edgeSamplesOf(readings(false, 0), now, sent);
  assert.deepEqual(
    standBy.map((s) => [s.name, valueOf(s)]),
    [
      [metricNames.edgePurgeTags, 8],
      [metricNames.edgePurgeFailures, 1],
    ],
  );
  const sender = edgeSamplesOf(readings(true, 3.5), now, sent);
  assert.deepEqual(valueOf(sender.find((s) => s.name === metricNames.edgePurgeLag)), 3.5);
});

test('a primary with no purge at all publishes zero counts and no lag', () => {
  const samples = edgeSamplesOf(null, { tags: 0, failures: 0 }, { tags: 0, failures: 0 });
  assert.deepEqual(
    samples.map((s) => [s.name, valueOf(s)]),
    [
      [metricNames.edgePurgeTags, 0],
      [metricNames.edgePurgeFailures, 0],
    ],
  );
});

test('the sender publishes what the purge budget lets it spend now; a stand-by, and a sender without a budget, do not', () => {
  const now = { tags: 12, failures: 1 };
  const sent = { tags: 4, failures: 0 };
  const withBudget = (sending: boolean, left: number | null): EdgeReadings => ({ ...readings(sending, 0), budgetLeft: () => left });
  const budgetOf = (samples: Sample[]) => samples.filter((s) => s.name === metricNames.edgePurgeBudgetLeft).map(valueOf);
  assert.deepEqual(budgetOf(edgeSamplesOf(withBudget(true, 37.6), now, sent)), [37]);
  assert.deepEqual(budgetOf(edgeSamplesOf(withBudget(false, 37.6), now, sent)), []);
  assert.deepEqual(budgetOf(edgeSamplesOf(withBudget(true, null), now, sent)), []);
});
