// The purge budget's bucket (refill, burst, refunds) on a clock the test moves, and budgetDelay,
// the steady-state delay docs/operations.md's table is computed with.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetDelay, burstPaths, monthS, PurgeBudget, shortestPurgedLifetimeS } from './budget';
import { maxItemsPerCall } from './purge';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test('the bucket starts full at an hour of the budget, refills at the budget spread over a month, and never holds more than the hour', () => {
  const c = clock();
  const budget = new PurgeBudget(300_000, c.now);
  const hour = (300_000 * 3_600) / monthS;
  assert.ok(Math.abs(budget.burst - hour) < 1e-9 && Math.abs(hour - 410.96) < 0.01, String(budget.burst));
  assert.equal(budget.available(), hour);
  assert.ok(budget.trySpend(400));
  assert.ok(!budget.trySpend(20), 'more than it holds: refused');
  assert.ok(Math.abs(budget.available() - (hour - 400)) < 1e-9, 'a refused spend takes nothing');
  // 300,000 paths a month is one path every 8.76 s.
  c.advance(87_600);
  assert.ok(Math.abs(budget.available() - (hour - 400 + 10)) < 1e-6, String(budget.available()));
  c.advance(30 * 86_400_000);
  assert.equal(budget.available(), hour, 'a quiet month saves an hour of budget, no more');
  assert.equal(budget.spent, 400);
});

test('a refused call is refunded; a stopping sender may go below zero by its last call; msUntil says when a batch fits', () => {
  const c = clock();
  const budget = new PurgeBudget(14_600, c.now);
  assert.ok(Math.abs(budget.burst - 20) < 1e-9);
  assert.ok(budget.trySpend(20));
  assert.equal(budget.msUntil(0.5), Math.ceil(0.5 / (14_600 / (monthS * 1000))));
  assert.equal(budget.msUntil(21), Infinity, 'more than the burst never fits');
  budget.refund(5);
  assert.equal(budget.available(), 5);
  assert.equal(budget.spent, 15);
  budget.spendAnyway(6);
  assert.ok(budget.available() < 0);
  assert.ok(budget.msUntil(1) > 0);
});

test('0 is unlimited: every spend succeeds and nothing is held', () => {
  const budget = new PurgeBudget(0);
  assert.ok(budget.unlimited);
  assert.equal(burstPaths(0), Infinity);
  assert.ok(budget.trySpend(1e9));
  assert.equal(budget.msUntil(1e9), 0);
});

test("the shortest edge lifetime of a tagged page while purging is the front page's 10 minutes", () => {
  assert.equal(shortestPurgedLifetimeS, 600);
});

test('budgetDelay: without a budget every interval; with one, the batch waits until it is paid for, longer as the budget shrinks', () => {
  // Ten changes touching the same five tags, then one new article tag a second.
  const pathsIn = (s: number) => 5 + s;
  const input = { intervalS: 1, maxItems: maxItemsPerCall, pathsIn };
  assert.deepEqual(budgetDelay({ ...input, monthlyPaths: 0 }), { delayS: 1, everything: false, pathsPerCall: 6, pathsPerMonth: 6 * monthS });
  let previous = 0;
  for (const monthlyPaths of [100_000_000, 10_000_000, 5_000_000, 3_000_000]) {
    const delay = budgetDelay({ ...input, monthlyPaths });
    assert.ok(delay.delayS >= previous, `${monthlyPaths}: ${delay.delayS} s`);
    assert.ok(delay.pathsPerMonth <= monthlyPaths, `${monthlyPaths}: ${delay.pathsPerMonth} paths a month`);
    assert.ok(!delay.everything);
    // Paid for: what the bucket gains over the delay covers the batch, and a batch one interval earlier would not have been.
    const perS = monthlyPaths / monthS;
    assert.ok(pathsIn(delay.delayS) <= perS * delay.delayS + 1e-9);
    if (delay.delayS > 1) assert.ok(pathsIn(delay.delayS - 1) > perS * (delay.delayS - 1));
    previous = delay.delayS;
  }
});

test('budgetDelay: past the shortest edge lifetime, or past the per-call cap, one "/*" per batch, and never more paths than the budget', () => {
  const growing = (s: number) => 5 + s;
  const small = budgetDelay({ monthlyPaths: 300_000, intervalS: 1, maxItems: 10_000, pathsIn: growing });
  assert.deepEqual([small.delayS, small.everything, small.pathsPerCall], [600, true, 1]);
  // A batch past the cap is one "/*": affordable sooner than the lifetime.
  const capped = budgetDelay({ monthlyPaths: 300_000, intervalS: 1, maxItems: 100, pathsIn: growing });
  assert.deepEqual([capped.delayS, capped.everything, capped.pathsPerCall], [96, true, 1]);
  // A budget so small that one path takes longer than the lifetime to earn.
  const tiny = budgetDelay({ monthlyPaths: 1_000, intervalS: 1, maxItems: 100, pathsIn: () => 7 });
  assert.ok(tiny.everything && tiny.delayS >= monthS / 1_000 && tiny.pathsPerMonth <= 1_000, JSON.stringify(tiny));
});
