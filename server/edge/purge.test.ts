// The purge sender's batching, coalescing, back-off and lag, with a CreateInvalidation that the
// test answers (the real one, against moto, is in purge-moto.services.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
