// The clock a push's cost is read by: a thread's CPU time, read to well under the few
// milliseconds a push costs. Read straight, Linux's count for a running thread moves only at a
// scheduler tick (about 4 ms here), and most short stretches of work read as nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '@kiosk/surface';
import { threadCpuMs } from './push-cost';

/** The same work each time, well under a tick: its CPU time does not depend on what else the host runs. */
function work(): number {
  let x = 0;
  for (let i = 0; i < 200_000; i += 1) x += Math.sqrt(i);
  return x;
}

test('threadCpuMs reads work shorter than a scheduler tick, not in ticks', () => {
  work();
  const taken: number[] = [];
  for (let round = 0; round < 15; round += 1) {
    const start = threadCpuMs();
    work();
    taken.push(threadCpuMs() - start);
  }
  assert.ok(median(taken) > 0.02, `the same short work read as ${taken.map((ms) => ms.toFixed(3)).join(', ')} ms`);
  assert.ok(Math.max(...taken) < 100, 'no more than the work could take');
});
