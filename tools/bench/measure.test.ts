import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pausesBetween, quantileBetween, serverResponseBetween, stepFlags, type Buckets, type StepRecord } from './measure';

// Two readings of the cluster's /metrics, as the bench takes them when a window opens and closes.
const reading = (gcs: number[], stalls: number[], gcSumMs: number, heapMb: number) => {
  const buckets = (counts: number[]) => ({ le: counts.map((count, i): [number, number] => [10 * 2 ** i, count]), count: counts.at(-1)!, sumMs: 0 });
  return {
    content: { storeReads: 0, rebuilt: 0 },
    majorGc: { ...buckets(gcs), sumMs: gcSumMs },
    stall: buckets(stalls),
    heapAfterGcBytes: heapMb * 1_048_576,
  };
};

test('between two readings: how many major collections, their time, the longest of them and of the stalls to within a bucket, the heap after the last', () => {
  // Buckets of 10, 20, 40, 80 ms, cumulative: two collections came in, one of 20-40 ms; a stall of 40-80 ms.
  const opened = reading([1, 3, 3, 3], [5, 5, 5, 5], 40, 60);
  const closed = reading([1, 4, 5, 5], [9, 9, 9, 10], 95, 72);
  assert.deepEqual(pausesBetween(opened, closed), { majorGcs: 2, majorGcMs: 55, longestMajorGcMs: 40, longestStallMs: 80, heapAfterGcMb: 72 });
  assert.deepEqual(
    pausesBetween(closed, closed),
    { majorGcs: 0, majorGcMs: 0, longestMajorGcMs: 0, longestStallMs: 0, heapAfterGcMb: 72 },
    'nothing happened: no pause',
  );
});

// The worker's response-time histogram: buckets twice the one before, cumulative, and a count that also holds what is past the last.
const responses = (counts: number[], count = counts.at(-1)!): Buckets => ({ le: counts.map((c, i): [number, number] => [0.8 * 2 ** i, c]), count, sumMs: 0 });

test('the quantiles of the responses between two readings, as the bound of the bucket that holds them', () => {
  // Buckets of 0.8, 1.6, 3.2, 6.4, 12.8 ms. 100 responses came in: 90 at most 1.6 ms, 9 more at most 6.4 ms, one of 6.4–12.8 ms.
  const opened = responses([10, 50, 50, 50, 50]);
  const closed = responses([20, 140, 145, 149, 150]);
  assert.equal(quantileBetween(opened, closed, 0.5), 1.6);
  assert.equal(quantileBetween(opened, closed, 0.9), 1.6);
  assert.equal(quantileBetween(opened, closed, 0.99), 6.4);
  assert.equal(quantileBetween(opened, closed, 1), 12.8, 'the longest: the bucket that holds them all');
  assert.ok(Number.isNaN(quantileBetween(closed, closed, 0.99)), 'no response between them: no quantile');
  // One of the 100 took longer than the last bucket: counted, in no bucket.
  assert.equal(quantileBetween(opened, responses([20, 140, 145, 149, 149], 150), 1), Number.POSITIVE_INFINITY);
});

test('a bucket not printed at the opening counts what the buckets under it held then', () => {
  const opened: Buckets = {
    le: [
      [0.8, 10],
      [3.2, 40],
    ],
    count: 40,
    sumMs: 0,
  };
  const closed: Buckets = {
    le: [
      [0.8, 10],
      [1.6, 30],
      [3.2, 60],
    ],
    count: 60,
    sumMs: 0,
  };
  // 20 between them: none at most 0.8 ms, 20 in (0.8, 1.6] by the opening's 10 under 1.6 — so the median is at most 1.6 ms.
  assert.equal(quantileBetween(opened, closed, 0.5), 1.6);
});

test("the worker's own p99 and longest response over a window; none where a reading has no histogram", () => {
  const base = { content: { storeReads: 0, rebuilt: 0 }, majorGc: responses([0]), stall: responses([0]), heapAfterGcBytes: 0 };
  const opened = { ...base, response: responses([10, 50, 50, 50, 50]) };
  const closed = { ...base, response: responses([20, 140, 145, 149, 150]) };
  assert.deepEqual(serverResponseBetween(opened, closed), { p99: 6.4, max: 12.8 });
  assert.equal(serverResponseBetween(base, closed), null);
});

test('a window in which the kernel dropped packets says so, with what TCP sent again; none, no flag', () => {
  const step = {
    offeredPerS: 1000,
    sentPerS: 1000,
    generatorCpuPct: 10,
    serverCoreOtherPct: 0,
    stealPct: 0,
    pool: { waitedForConnection: 0, connectMs: { max: 0.3 } },
    warmup: { timeouts: 0, errors: 0, non2xx: 0, p99Ms: 3 },
    net: { backlogDrops: 0, retransSegs: 2 },
  } as unknown as StepRecord;
  assert.deepEqual(stepFlags(step, 4000), []);
  const [flag] = stepFlags({ ...step, net: { backlogDrops: 37, retransSegs: 35 } }, 4000);
  assert.equal(flag?.kind, 'dropped-packets');
  assert.match(
    flag!.text,
    /^the kernel dropped 37 packets at a full input queue( \(netdev_max_backlog \d+\))? and TCP sent 35 segments again, each 200 ms or more late$/,
  );
  assert.deepEqual(stepFlags({ ...step, net: undefined }, 4000), [], 'a record from before the counters: no flag');
});
