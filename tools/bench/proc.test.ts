// The thread readings the bench prints beside each window's pauses, taken from a real process:
// this one. V8's helper threads are found by name and their CPU counted; the main thread's wait
// for a core is read from its schedstat.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { collectGarbage } from '../../test/heap';
import { netCounters, parseNetCounters, ThreadMeter, threadTimes, v8HelperThreadName } from './proc';

test("V8's helper threads are found by name, and full collections of a large heap show in their CPU", () => {
  const names = fs.readdirSync('/proc/self/task').map((tid) => fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
  assert.ok(names.includes(v8HelperThreadName), `threads: ${names.join(', ')}`);
  const before = threadTimes(process.pid);
  assert.ok(Number.isFinite(before.mainWaitMs) && before.mainWaitMs >= 0, `main thread waited ${before.mainWaitMs} ms`);
  const meter = new ThreadMeter(() => [process.pid]);
  // Two million live objects, marked again by each full collection: V8 marks in parallel, on its helpers.
  const live = Array.from({ length: 2_000_000 }, (_, n) => ({ next: null, n }));
  // Until a clock tick of the helpers' shows, for up to 5 s: on a busy machine the main thread
  // may mark a collection's share alone before a helper gets a core.
  const until = performance.now() + 5_000;
  while (threadTimes(process.pid).helperTicks === before.helperTicks && performance.now() < until) collectGarbage();
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

test("the kernel's dropped packets are summed over every core's input queue (hex), and TCP's segments sent again read by name", () => {
  const softnet = ['054f13b7 00002257 00000036 00000000', '04f6a5ab 0000713d 0000001a 00000000', ''].join('\n');
  const snmp = [
    'Ip: Forwarding DefaultTTL',
    'Ip: 1 64',
    'Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs',
    'Tcp: 1 200 120000 -1 1560684 1451296 28663 207948 0 172308817 171830125 531143 32376',
    'Udp: InDatagrams',
    'Udp: 5',
  ].join('\n');
  assert.deepEqual(parseNetCounters(softnet, snmp), { backlogDrops: 0x2257 + 0x713d, retransSegs: 531143 });
  const unread = parseNetCounters(null, null);
  assert.ok(Number.isNaN(unread.backlogDrops) && Number.isNaN(unread.retransSegs), 'unreadable: not a count of zero');
  const now = netCounters();
  assert.ok(Number.isInteger(now.backlogDrops) && Number.isInteger(now.retransSegs), 'this Linux has both files');
});
