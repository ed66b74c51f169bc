import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pausesBetween } from './measure';

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
