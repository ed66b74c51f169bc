import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '@kiosk/surface';
import { heading, readOptions, ScavengeTrace, windowPromotion, windowRow } from './churn-windows';
import type { StepRecord } from './measure';

test('churn-windows: --rate is required, the rest have the bench’s defaults', () => {
  assert.throws(() => readOptions([]), UsageError);
  assert.deepEqual(readOptions(['--rate', '830']), { rate: 830, store: 'sqlite', rounds: 3, windowS: 8, out: null, traceGc: false });
  assert.deepEqual(readOptions(['--rate', '830', '--store', 'postgres', '--rounds', '5', '--window-seconds', '10', '--trace-gc']), {
    rate: 830,
    store: 'postgres',
    rounds: 5,
    windowS: 10,
    out: null,
    traceGc: true,
  });
  assert.throws(() => readOptions(['--rate', '830', '--store', 'mysql']), /--store must be sqlite or postgres/);
  assert.throws(() => readOptions(['--rate', 'fast']), UsageError);
});

test('churn-windows: --help and an unknown flag answer with their exit codes', () => {
  const log = console.log;
  const error = console.error;
  console.log = console.error = () => {};
  try {
    assert.equal(readOptions(['--help']), 0);
    assert.equal(readOptions(['--rate', '830', '--fast']), 2);
  } finally {
    console.log = log;
    console.error = error;
  }
});

test("churn-windows: a window's row says what the generator saw beside what the worker took", () => {
  const step = {
    offeredPerS: 830,
    errors: 0,
    timeouts: 3,
    non2xx: 1,
    latencyMs: { p50: 1.8, p90: 14, p99: 97, max: 107 },
    serverResponseMs: { p99: 51.2, max: 102.4 },
    serverCpuPct: 86.5,
    stealPct: 6.3,
    net: { backlogDrops: 412, retransSegs: 388 },
    pauses: { majorGcs: 1, majorGcMs: 12, longestMajorGcMs: 12.8, longestStallMs: 30.4, heapAfterGcMb: 69 },
    content: { storeReads: 23, rebuilt: 34, previous: 64 },
  } as unknown as StepRecord;
  const pushes = [
    { kind: 'new' as const, id: 'a', status: 201, visibleMs: 15 },
    { kind: 'recent' as const, id: 'b', status: 200, visibleMs: 22 },
    { kind: 'old' as const, id: 'c', status: 0, visibleMs: null },
  ];
  const row = windowRow(2, true, step, pushes);
  assert.equal(row.split('|').length - 2, 13, row);
  assert.match(
    row,
    /\| 2 \| one push a second \| 830 \| 1\.8 \/ 14 \/ 97 \/ 107 \| 51 \/ 102 \| 0 \/ 3 \/ 1 \| 87% \| 6\.3% \| 412 \/ 388 \| 30 \| 1 \(13\) \| 23 \/ 34 \/ 64 \| 2 of 3, 22 \|/,
  );
  assert.match(windowRow(2, true, step, pushes, { kbPerS: 1234.4, scavenges: 57 }), /\| 2 of 3, 22 \| 1,234 \(57\) \|$/);
  assert.match(windowRow(2, true, step, pushes, null), /\| 2 of 3, 22 \| – \|$/);
  assert.match(
    windowRow(1, false, { ...step, serverResponseMs: null, pauses: null, content: null, net: undefined } as StepRecord, []),
    /\| – \| 0 \/ 3 \/ 1 \| 87% \| 6\.3% \| – \| – \| – \| – \| – \|$/,
  );
});

test("churn-windows --trace-gc: the worker's scavenges' promoted bytes, a window's share of them a second", () => {
  const worker: { pid?: number } = {};
  const trace = new ScavengeTrace(() => worker.pid);
  const scavenge = (p: number, promoted: number) =>
    `[${p}:0x1f8d6000:0]     1200 ms: pause=0.9 mutator=12.8 gc=s reduce_memory=0 allocated=820048 promoted=${promoted} new_space_survived=356344`;
  trace.read(scavenge(41, 1000));
  assert.equal(trace.bytes, 0, 'nothing counted before the worker is known');
  worker.pid = 41;
  trace.read(scavenge(41, 1000));
  trace.read(scavenge(40, 5000));
  trace.read(`[41:0x1f8d6000:0]     1300 ms: pause=11.6 mutator=90 gc=mc reduce_memory=0 promoted=9000000`);
  trace.read('{"level":"info","message":"worker listening","pid":41}');
  assert.deepEqual({ bytes: trace.bytes, scavenges: trace.scavenges }, { bytes: 1000, scavenges: 1 }, 'the primary and a mark-compact are left out');

  let clock = 0;
  const window = windowPromotion(trace, () => clock);
  assert.equal(window.result(), null);
  window.onWindow('measuring');
  trace.read(scavenge(41, 2048));
  trace.read(scavenge(41, 2048));
  clock = 2000;
  window.onWindow('measured');
  assert.deepEqual(window.result(), { kbPerS: 2, scavenges: 2 });

  assert.equal(heading(true).split('\n')[0]!.split('|').length - 2, 14);
  assert.equal(heading(false).split('\n')[0]!.split('|').length - 2, 13);
  assert.equal(heading(false).split('\n')[1]!.split('|').length - 2, 13, 'as many alignments as columns');
});
