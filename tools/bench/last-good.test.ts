// The copies A/B's rate: lowered from 90% of capacity until the server without copies, Nginx
// included, is about 80% busy, so neither arm saturates and the ratio measures the copies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calibratedRate, copiesBusyPct } from './last-good';

test('a saturated calibration window lowers the rate in proportion to how busy the server was', () => {
  assert.equal(copiesBusyPct, 80);
  // 1,435 req/s with the core 99% busy: 1,435 × 80 / 99.
  assert.equal(calibratedRate({ ratePerS: 1_435, serverCpuPct: 99 }), 1_160);
  assert.equal(calibratedRate({ ratePerS: 1_000, serverCpuPct: 90 }), 889);
});

test('a window at or below the busy share keeps its rate, and an unread CPU keeps it too', () => {
  assert.equal(calibratedRate({ ratePerS: 1_000, serverCpuPct: 80 }), 1_000);
  assert.equal(calibratedRate({ ratePerS: 1_000, serverCpuPct: 55 }), 1_000, 'never raised');
  assert.equal(calibratedRate({ ratePerS: 1_000, serverCpuPct: Number.NaN }), 1_000);
  assert.equal(calibratedRate({ ratePerS: 1, serverCpuPct: 400 }), 1, 'never below one request a second');
});
