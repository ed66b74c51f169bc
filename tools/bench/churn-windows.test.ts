import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '@kiosk/surface';
import { readOptions, windowRow } from './churn-windows';
import type { StepRecord } from './measure';

test('churn-windows: --rate is required, the rest have the bench’s defaults', () => {
  assert.throws(() => readOptions([]), UsageError);
  assert.deepEqual(readOptions(['--rate', '830']), { rate: 830, store: 'sqlite', rounds: 3, windowS: 8, out: null });
  assert.deepEqual(readOptions(['--rate', '830', '--store', 'postgres', '--rounds', '5', '--window-seconds', '10']), {
    rate: 830,
    store: 'postgres',
    rounds: 5,
    windowS: 10,
    out: null,
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
    pauses: { majorGcs: 1, majorGcMs: 12, longestMajorGcMs: 12.8, longestStallMs: 30.4, heapAfterGcMb: 69 },
    content: { storeReads: 23, rebuilt: 34, previous: 64 },
  } as unknown as StepRecord;
  const pushes = [
    { kind: 'new' as const, id: 'a', status: 201, visibleMs: 15 },
    { kind: 'recent' as const, id: 'b', status: 200, visibleMs: 22 },
    { kind: 'old' as const, id: 'c', status: 0, visibleMs: null },
  ];
  const row = windowRow(2, true, step, pushes);
  assert.equal(row.split('|').length - 2, 12, row);
  assert.match(
    row,
    /\| 2 \| one push a second \| 830 \| 1\.8 \/ 14 \/ 97 \/ 107 \| 51 \/ 102 \| 0 \/ 3 \/ 1 \| 87% \| 6\.3% \| 30 \| 1 \(13\) \| 23 \/ 34 \/ 64 \| 2 of 3, 22 \|/,
  );
  assert.match(
    windowRow(1, false, { ...step, serverResponseMs: null, pauses: null, content: null } as StepRecord, []),
    /\| – \| 0 \/ 3 \/ 1 \| 87% \| 6\.3% \| – \| – \| – \| – \|$/,
  );
});
