// The purge sender's batching, coalescing, back-off and lag, with a CreateInvalidation that the
// test answers (the real one, against moto, is in purge-moto.services.test.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seededRandom } from '../content/seeded-random';
import { log } from '../log';
import { monthS, PurgeBudget } from './budget';
import { maxItemsPerCall, PurgeSender } from './purge';

interface Call {
  items: string[];
  settle(error?: Error): void;
}

function recorder() {
  const calls: Call[] = [];
  const invalidate = (items: readonly string[]) =>
    new Promise<void>((resolve, reject) => calls.push({ items: [...items].sort(), settle: (error) => (error ? reject(error) : resolve()) }));
  return { calls, invalidate };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, withinMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > withinMs) assert.fail(`not within ${withinMs} ms`);
    await sleep(5);
  }
}

test('changes within one interval go out in one call; changes during a call wait for the next', async () => {
  const { calls, invalidate } = recorder();
  const sender = new PurgeSender({ invalidate, intervalMs: 50, maxBackoffMs: 1_000 });
  sender.add(['#a:1', '#front']);
  sender.add(['#a:2', '#front']);
  await until(() => calls.length === 1);
  assert.deepEqual(calls[0]!.items, ['#a:1', '#a:2', '#front']);
  sender.add(['#a:3']);
  sender.add(['#a:4']);
  await sleep(150);
  assert.equal(calls.length, 1, 'no second call while the first is in flight');
  calls[0]!.settle();
  await until(() => calls.length === 2);
  assert.deepEqual(calls[1]!.items, ['#a:3', '#a:4']);
  calls[1]!.settle();
  await until(() => sender.lagS() === 0);
  assert.equal(sender.tagsSent, 5);
  assert.equal(sender.failures, 0);
  sender.close();
});

test('a failed call is retried after a back-off with what arrived meanwhile; the lag counts from the oldest change', async () => {
  const { calls, invalidate } = recorder();
  const sender = new PurgeSender({ invalidate, intervalMs: 20, maxBackoffMs: 1_000 });
  sender.add(['#a:1']);
  await until(() => calls.length === 1);
  sender.add(['#a:2']);
  calls[0]!.settle(new Error('ServiceUnavailable'));
  await until(() => sender.failures === 1);
  assert.ok(sender.lagS() > 0, 'the failed change is still not covered');
  const failedAt = Date.now();
  await until(() => calls.length === 2);
  // 1 s doubling, jittered down to half.
  assert.ok(Date.now() - failedAt >= 400, `retried after ${Date.now() - failedAt} ms`);
  assert.deepEqual(calls[1]!.items, ['#a:1', '#a:2']);
  assert.ok(sender.lagS() >= 0.4, `lag ${sender.lagS()} s counts from the first change`);
  calls[1]!.settle();
  await until(() => sender.lagS() === 0);
  assert.equal(sender.tagsSent, 2);
  sender.close();
});

test('a batch with "/*" or more than the per-call cap is one "/*"', async () => {
  const { calls, invalidate } = recorder();
  const sender = new PurgeSender({ invalidate, intervalMs: 10, maxBackoffMs: 1_000 });
  sender.add(['#a:1', '/*']);
  await until(() => calls.length === 1);
  assert.deepEqual(calls[0]!.items, ['/*']);
  calls[0]!.settle();
  sender.add(Array.from({ length: maxItemsPerCall + 1 }, (_, i) => `#a:${i}`));
  await until(() => calls.length === 2);
  assert.deepEqual(calls[1]!.items, ['/*']);
  calls[1]!.settle();
  sender.close();
});

test('flush sends what is pending at once; discard drops it', async () => {
  const { calls, invalidate } = recorder();
  const sender = new PurgeSender({ invalidate, intervalMs: 60_000, maxBackoffMs: 1_000 });
  sender.add(['#a:1']);
  const flushed = sender.flush();
  await until(() => calls.length === 1);
  calls[0]!.settle();
  await flushed;
  sender.add(['#a:2']);
  sender.discard();
  assert.deepEqual(sender.pending(), []);
  assert.equal(sender.lagS(), 0);
  sender.close();
});

describe('with a purge budget', () => {
  /** A bucket on a clock the test moves; the sender's own clock (the lag, the wait) stays real. */
  function budgetOn(monthlyPaths: number) {
    let t = 0;
    const budget = new PurgeBudget(monthlyPaths, () => t);
    /** Moves the budget's clock by what `paths` take to refill. */
    const refill = (paths: number) => (t += Math.ceil((paths * monthS * 1000) / monthlyPaths) + 1);
    return { budget, refill };
  }

  test('a batch the budget cannot pay for is held and keeps gathering changes; it goes out, whole, once paid for', async () => {
    const { calls, invalidate } = recorder();
    // 14,600 paths a month: a burst of 20.
    const { budget, refill } = budgetOn(14_600);
    const sender = new PurgeSender({ invalidate, intervalMs: 10, maxBackoffMs: 1_000, budget });
    sender.add(['#a:1', '#front', '#l:all', '#s:news']);
    await until(() => calls.length === 1);
    calls[0]!.settle();
    sender.add(['#a:2', '#front', '#l:all', '#s:news', '#t:energy']);
    await until(() => calls.length === 2);
    calls[1]!.settle();
    await until(() => sender.budgetLeft() === 11);
    sender.add(['#a:3', '#front', '#l:all', '#s:news', '#t:climate', '#t:energy']);
    sender.add(['#a:4', '#front', '#l:all', '#s:world', '#t:climate']);
    sender.add(['#a:5', '#front', '#l:all', '#s:news', '#t:energy']);
    // 9 distinct paths: they fit in the 11 left.
    await until(() => calls.length === 3);
    assert.deepEqual(calls[2]!.items, ['#a:3', '#a:4', '#a:5', '#front', '#l:all', '#s:news', '#s:world', '#t:climate', '#t:energy'].sort());
    calls[2]!.settle();
    // 2 left: the next pushes are held, however long they gather.
    for (let i = 6; i <= 9; i += 1) {
      sender.add([`#a:${i}`, '#front', '#l:all', '#s:news', '#t:climate']);
      await sleep(30);
    }
    assert.equal(calls.length, 3, 'held: the budget cannot pay for it yet');
    assert.ok(sender.lagS() > 0.05, 'the lag shows the held changes');
    assert.deepEqual(sender.pending().sort(), ['#a:6', '#a:7', '#a:8', '#a:9', '#front', '#l:all', '#s:news', '#t:climate'].sort());
    refill(6);
    await until(() => calls.length === 4);
    assert.deepEqual(calls[3]!.items, ['#a:6', '#a:7', '#a:8', '#a:9', '#front', '#l:all', '#s:news', '#t:climate'].sort());
    calls[3]!.settle();
    await until(() => sender.lagS() === 0);
    // 4 + 5 + 9 + 8 paths for 9 pushes of 4 to 6 paths each (45 with one call a push).
    assert.equal(sender.tagsSent, 26);
    assert.equal(budget.spent, 26);
    sender.close();
  });

  test('a correction or an unpublish is never held for the budget: "/*" as soon as one path is affordable', async () => {
    const { calls, invalidate } = recorder();
    const { budget, refill } = budgetOn(14_600);
    assert.ok(budget.trySpend(20));
    // One path affordable: not the three or four a batch below needs.
    refill(1);
    const sender = new PurgeSender({ invalidate, intervalMs: 10, maxBackoffMs: 1_000, budget, maxWaitMs: 60_000 });
    const warn = log.warn;
    log.warn = () => undefined;
    const state = { section: 'news', tags: ['climate'], status: 'published' } as const;
    try {
      // A new story waits for the budget...
      sender.change({ kind: 'article', id: '202611222000000002', was: null, now: state });
      await sleep(60);
      assert.equal(calls.length, 0, 'a new story is held');
      // ...and a correction joins it: the batch goes out as the one path there is, at once,
      // not when the budget pays for all of its paths.
      sender.change({ kind: 'article', id: '202611222000000001', was: state, now: state });
      await until(() => calls.length === 1, 1_000);
      assert.deepEqual(calls[0]!.items, ['/*']);
      assert.deepEqual(sender.pending(), []);
      calls[0]!.settle();
      await until(() => sender.lagS() === 0);
      assert.equal(budget.spent, 21);
    } finally {
      log.warn = warn;
      sender.close();
    }
  });

  test('a batch that would wait past the longest wait goes out as "/*", one path, and says so', async () => {
    const { calls, invalidate } = recorder();
    const { budget } = budgetOn(14_600);
    assert.ok(budget.trySpend(19));
    const sender = new PurgeSender({ invalidate, intervalMs: 10, maxBackoffMs: 1_000, budget, maxWaitMs: 150 });
    const warnings: string[] = [];
    const warn = log.warn;
    log.warn = (message: string) => void warnings.push(message);
    try {
      sender.add(['#a:1', '#front']);
      await sleep(60);
      assert.equal(calls.length, 0, 'held');
      await until(() => calls.length === 1);
      assert.deepEqual(calls[0]!.items, ['/*']);
      assert.ok(sender.pending().length === 0);
      assert.match(warnings.join('\n'), /sending "\/\*" \(one path\) instead/);
      calls[0]!.settle();
      await until(() => sender.lagS() === 0);
      assert.equal(budget.spent, 20);
    } finally {
      log.warn = warn;
      sender.close();
    }
  });

  test('a stopping sender sends a held batch as "/*" rather than leave it behind', async () => {
    const { calls, invalidate } = recorder();
    const { budget } = budgetOn(14_600);
    assert.ok(budget.trySpend(20));
    const sender = new PurgeSender({ invalidate, intervalMs: 10, maxBackoffMs: 1_000, budget });
    sender.add(['#a:1', '#front']);
    await sleep(40);
    assert.equal(calls.length, 0);
    const flushed = sender.flush();
    await until(() => calls.length === 1);
    assert.deepEqual(calls[0]!.items, ['/*']);
    calls[0]!.settle();
    await flushed;
    sender.close();
  });

  test('never loses a tag: whatever the budget, failures and timing, every change is covered by a call made after it and accepted', async () => {
    const random = seededRandom(11);
    // Adds and calls numbered in the order they happen: a call covers what was added before it.
    let seq = 0;
    const calls: { items: string[]; seq: number; settle(error?: Error): void }[] = [];
    const invalidate = (items: readonly string[]) =>
      new Promise<void>((resolve, reject) => calls.push({ items: [...items], seq: ++seq, settle: (error) => (error ? reject(error) : resolve()) }));
    const { budget, refill } = budgetOn(14_600);
    const sender = new PurgeSender({ invalidate, intervalMs: 5, maxBackoffMs: 1_000, budget, maxWaitMs: 400 });
    const added: { item: string; seq: number }[] = [];
    const accepted: { items: string[]; seq: number }[] = [];
    let settled = 0;
    const answer = (fail: boolean) => {
      while (settled < calls.length) {
        const call = calls[settled]!;
        settled += 1;
        if (fail && random() < 0.25) call.settle(new Error('Throttling'));
        else {
          accepted.push(call);
          call.settle();
        }
      }
    };
    const started = Date.now();
    for (let step = 1; Date.now() - started < 1_500; step += 1) {
      if (random() < 0.6) {
        const items = [`#a:${step}`, '#front', '#l:all', `#s:${Math.floor(random() * 4)}`, `#t:${Math.floor(random() * 9)}`];
        for (const item of items) added.push({ item, seq: ++seq });
        sender.add(items);
      }
      if (random() < 0.2) refill(random() * 6);
      answer(true);
      await sleep(3);
    }
    // Then the budget catches up and CloudFront accepts every call.
    refill(1_000);
    await until(() => {
      answer(false);
      return sender.lagS() === 0 && sender.pending().length === 0;
    }, 10_000);
    assert.ok(calls.length >= 3 && sender.failures > 0, `${calls.length} calls, ${sender.failures} failed`);
    assert.ok(budget.spent <= 20 + 1_000 + 6 * 100, `spent ${budget.spent}`);
    for (const { item, seq: at } of added) {
      assert.ok(
        accepted.some((call) => call.seq > at && (call.items.includes(item) || call.items.includes('/*'))),
        `${item} (added as #${at}) is in no accepted call made after it`,
      );
    }
    sender.close();
  });
});
