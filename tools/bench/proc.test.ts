// The thread readings the bench prints beside each window's pauses, taken from a real process:
// this one. V8's helper threads are found by name and their CPU counted; the main thread's wait
// for a core is read from its schedstat.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ThreadMeter, threadTimes, v8HelperThreadName } from './proc';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

test("V8's helper threads are found by name, and full collections of a large heap show in their CPU", () => {
  const names = fs.readdirSync('/proc/self/task').map((tid) => fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
  assert.ok(names.includes(v8HelperThreadName), `threads: ${names.join(', ')}`);
  const before = threadTimes(process.pid);
  assert.ok(Number.isFinite(before.mainWaitMs) && before.mainWaitMs >= 0, `main thread waited ${before.mainWaitMs} ms`);
  const meter = new ThreadMeter(() => [process.pid]);
  // Two million live objects, marked again by each full collection: V8 marks in parallel, on its helpers.
  const live = Array.from({ length: 2_000_000 }, (_, n) => ({ next: null, n }));
  for (let round = 0; round < 6 && threadTimes(process.pid).helperTicks === before.helperTicks; round++) collect();
  const after = threadTimes(process.pid);
  assert.equal(live.length, 2_000_000, 'kept alive through the collections');
  assert.ok(after.helperTicks > before.helperTicks, `helper threads' CPU ${before.helperTicks} → ${after.helperTicks} ticks`);
  const shares = meter.percents()!;
  assert.ok(shares.helperCpuPct > 0 && Number.isFinite(shares.mainWaitPct), JSON.stringify(shares));
  assert.equal(new ThreadMeter(() => []).percents(), null, 'no worker, nothing to read');
});

test('a process that is gone reads as zeros, not an error', () => {
  assert.deepEqual(threadTimes(2 ** 22 + 12345), { helperTicks: 0, mainWaitMs: 0 });
});
