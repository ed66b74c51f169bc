// The soak's short variant (npm run bench:soak -- --short): three overload runs in a row against
// the built server, memory read after each, and the capacity check. The full soak is
// `npm run bench:soak`, with its figures in docs/operations.md.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

test('three overload runs in a row: heap and RSS within 10% of the first run, capacity held', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-soak-'));
  try {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'tools/bench/soak.ts', '--short', '--no-build', '--out', out], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'soak.json'), 'utf8')) as {
      runs: { heapMb: number; rssMb: number }[];
      memoryHeld: boolean;
      capacityHeld: boolean;
    };
    assert.equal(report.runs.length, 3);
    assert.ok(report.runs.every((r) => r.heapMb > 1 && r.rssMb > r.heapMb), 'memory was read from the worker');
    assert.ok(report.memoryHeld && report.capacityHeld);
    console.log(fs.readFileSync(path.join(out, 'soak.md'), 'utf8'));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
