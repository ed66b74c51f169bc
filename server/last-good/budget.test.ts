// The time budget of the last good copies: at most 1% of the worker's time while it is busy,
// up to half of it while it is idle. A fake clock stands in for performance.now() and
// a fake meter for performance.eventLoopUtilization(): the rule is about how busy the event loop
// was, and a test cannot make a real event loop exactly 97% or 20% busy for a simulated second,
// nor make a write take exactly 3 ms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventLoopUtilizationMeter, WriteBudget } from './budget';

const settings = { busyShare: 0.01, idleShare: 0.5, busyUtilization: 0.8 };

/**
 * A budget on a fake clock whose writes each take `writeMs`, with the event loop as busy as
 * `utilization` says, and the process on the CPU `onCpu` of the time between writes (all of its
 * writes' time: a write is the process's own work).
 */
function simulated(utilization: () => number, writeMs: number, onCpu = 1) {
  let now = 0;
  let cpu = 0;
  const reads: number[] = [];
  const spent: number[] = [];
  const budget = new WriteBudget(settings, {
    clock: () => now,
    cpuClock: () => cpu,
    utilization: () => {
      const u = utilization();
      reads.push(u);
      return u;
    },
    onSpent: (ms) => spent.push(ms),
  });
  /** Offers a write every `everyMs` for `seconds`; returns the writes made in each second. */
  const offer = (seconds: number, everyMs: number): number[] => {
    const perSecond: number[] = [];
    const end = now + seconds * 1_000;
    while (now < end) {
      const second = Math.floor(now / 1_000);
      perSecond[second] ??= 0;
      if (budget.allows()) {
        budget.timed(() => {
          now += writeMs;
          cpu += writeMs;
        });
        perSecond[second] += 1;
      }
      now += everyMs;
      cpu += everyMs * onCpu;
    }
    return perSecond.filter((n) => n !== undefined);
  };
  return { budget, offer, reads, spent, now: () => now, cpu: () => cpu };
}

test('the share of the time: half of it idle, falling linearly to 1% at the busy mark, 1% past it', () => {
  const budget = new WriteBudget(settings, { utilization: () => 0, clock: () => 0 });
  assert.equal(budget.shareAt(0), 0.5);
  assert.equal(budget.shareAt(0.4), 0.25);
  assert.equal(budget.shareAt(0.8), 0.01);
  assert.equal(budget.shareAt(0.79), 0.01, 'never under the busy share');
  assert.equal(budget.shareAt(1), 0.01);
});

test('a saturated worker spends at most 1% of its time writing: what a write spends over is taken from the next window', () => {
  const { budget, offer, spent, now } = simulated(() => 0.97, 3);
  const writes = offer(10, 1);
  // 1 ms a 100 ms window at 3 ms a write: a write, then two windows paying it back.
  assert.ok(
    writes.every((n) => n >= 3 && n <= 4),
    `writes each second: ${writes.join(' ')}`,
  );
  assert.ok(budget.spentMs <= 0.01 * now() + 3, `${budget.spentMs} ms in ${now()} ms`);
  assert.ok(budget.spentMs >= 0.009 * now(), `${budget.spentMs} ms in ${now()} ms: the share is used, not starved`);
  assert.equal(
    spent.reduce((a, b) => a + b, 0),
    budget.spentMs,
    'every write reported to the counter',
  );
});

test('a saturated worker sharing its core (on the CPU 40% of the time) spends at most 1% of its CPU time writing, not 1% of the clock', () => {
  const { budget, offer, cpu, now } = simulated(() => 0.97, 0.5, 0.4);
  offer(20, 1);
  const ofCpu = budget.spentMs / cpu();
  assert.ok(ofCpu <= 0.011, `writes took ${(100 * ofCpu).toFixed(2)}% of its CPU time`);
  assert.ok(ofCpu >= 0.008, `${(100 * ofCpu).toFixed(2)}% of its CPU time: the share is used, not starved`);
  assert.ok(budget.spentMs <= 0.0045 * now(), `${budget.spentMs} ms in ${now()} ms of the clock`);
  assert.equal(budget.shareAt(0.97, 0.4), 0.004, 'the busy share scales with the time on the CPU');
  assert.equal(budget.shareAt(0.2, 0.4), 0.375, 'the idle share does not: a worker below capacity has the time');
});

test('a worker below capacity writes far more than 10 copies a second; the allowance follows the utilization window by window', () => {
  let utilization = 0.2;
  const { offer, reads } = simulated(() => utilization, 3);
  // 37.5 ms of each 100 ms at 0.2: 12–13 writes of 3 ms a window, offered every 2 ms (one write in 5 ms).
  const idle = offer(2, 2);
  assert.ok(
    idle.every((n) => n >= 120 && n <= 130),
    `writes each second: ${idle.join(' ')}`,
  );
  utilization = 0.9;
  const busy = offer(2, 2);
  // The first window was set from the idle second before it.
  assert.ok(busy[0]! <= 4 + 13 && busy[1]! <= 4, `busy again, back to 1%: ${busy.join(' ')}`);
  assert.ok(reads.length >= 38 && reads.length <= 40, `the meter read once a window: ${reads.length} readings in 4 s`);
});

test('after a spell with no write offered, the next offer opens one window, read over the whole gap', () => {
  const { offer, reads } = simulated(() => 0, 3);
  offer(0.05, 1);
  assert.equal(reads.length, 1, 'offers within one window: one reading');
  // One more offer within the window, then 6 s of nothing.
  offer(6, 6_000);
  assert.equal(reads.length, 1);
  offer(0.001, 1);
  assert.equal(reads.length, 2, 'the offer after the gap: one reading, not one per window of the gap');
});

test("Node's meter reads the event loop's utilization since its last reading, between 0 and 1", async () => {
  // The loop must have run once: before it does, Node reports no utilization at all.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const meter = eventLoopUtilizationMeter();
  const busyUntil = performance.now() + 50;
  while (performance.now() < busyUntil);
  const busy = meter(0);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const idle = meter(0);
  assert.ok(busy > 0.5 && busy <= 1, `busy ${busy}`);
  assert.ok(idle < busy, `idle ${idle} < busy ${busy}`);
  // The same business, all of it the copies' writes: not counted as serving.
  const writes = eventLoopUtilizationMeter();
  const writingUntil = performance.now() + 50;
  while (performance.now() < writingUntil);
  const serving = writes(50);
  assert.ok(serving < 0.2, `writes taken out: ${serving}`);
});

test('after an idle spell, the first busy window reads busy at once, not once the last second catches up', async () => {
  await new Promise((resolve) => setTimeout(resolve, 10));
  const meter = eventLoopUtilizationMeter();
  // An idle second, read as the budget reads it: a reading at the end of each window.
  for (let window = 0; window < 11; window += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    meter(0);
  }
  const busyUntil = performance.now() + 100;
  while (performance.now() < busyUntil);
  const flood = meter(0);
  // The last second alone read about a tenth: the budget then allowed a third of the next window for writes.
  assert.ok(flood > 0.5, `the first window of a flood read ${flood}`);
});
