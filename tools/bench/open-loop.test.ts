import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { percentile, requestsDue, Samples, scheduledTime, StepTally } from './open-loop';

describe('open-loop schedule', () => {
  test('the first request is due at once, then one every 1/rate seconds', () => {
    assert.equal(requestsDue(-1, 100, 1000), 0);
    assert.equal(requestsDue(0, 100, 1000), 1);
    assert.equal(requestsDue(9.9, 100, 1000), 1);
    assert.equal(requestsDue(10, 100, 1000), 2);
    assert.equal(requestsDue(1000, 100, 1000), 101);
  });

  test('never more than the step holds, however late the timer fires', () => {
    assert.equal(requestsDue(60_000, 100, 500), 500);
  });

  test('scheduled times do not drift with a rate that does not divide a second', () => {
    assert.equal(scheduledTime(1000, 0, 3), 1000);
    assert.equal(scheduledTime(1000, 3, 3), 2000);
    assert.equal(scheduledTime(1000, 3000, 3), 1_001_000);
  });
});

describe('percentiles', () => {
  const sorted = (values: number[]) => {
    const samples = new Samples();
    values.forEach((v) => samples.add(v));
    return samples.sorted();
  };

  test('nearest rank over 1..100', () => {
    const s = sorted(Array.from({ length: 100 }, (_, i) => 100 - i));
    assert.equal(percentile(s, 50), 50);
    assert.equal(percentile(s, 90), 90);
    assert.equal(percentile(s, 99), 99);
    assert.equal(percentile(s, 100), 100);
  });

  test('one sample is every percentile; none is NaN', () => {
    assert.equal(percentile(sorted([7]), 1), 7);
    assert.equal(percentile(sorted([7]), 99), 7);
    assert.ok(Number.isNaN(percentile(sorted([]), 50)));
  });

  test('samples grow past their first buffer and sort numerically', () => {
    const s = sorted(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5000));
    assert.equal(s.length, 5000);
    assert.equal(s[0], 0);
    assert.equal(s[4999], 4999);
    assert.equal(percentile(s, 99), 4949);
  });
});

describe('step tally', () => {
  // A 1 s window from t=1000 to t=2000, timeout 500 ms.
  const tally = () => new StepTally(1000, 2000, 500);
  const ok = { status: 200, renderMode: 'ssr', retryAfter: false };

  test('counts only requests scheduled inside the window', () => {
    const t = tally();
    for (const at of [999, 1000, 1500, 1999, 2000]) {
      t.scheduledOne(at);
      t.answered(at, at + 10, ok);
    }
    const s = t.summary(3);
    assert.equal(s.scheduled, 3);
    assert.equal(s.answered, 3);
    assert.equal(s.ssr, 3);
  });

  test('throughput counts answers that arrive inside the window, whenever scheduled', () => {
    const t = tally();
    t.answered(900, 1100, ok);
    t.answered(1500, 1600, { status: 200, renderMode: 'shell', retryAfter: false });
    t.answered(1900, 2300, ok);
    t.answered(1000, 1200, { status: 503, renderMode: null, retryAfter: true });
    const s = t.summary(4);
    assert.equal(s.achievedPerS, 2);
    assert.equal(s.ssrPerS, 1);
    assert.equal(s.answered, 3);
  });

  test('latency counts from the scheduled time, and a timeout enters at the timeout', () => {
    const t = tally();
    t.scheduledOne(1000);
    t.written(1000, 1040);
    t.answered(1000, 1100, ok);
    t.scheduledOne(1001);
    t.timedOut(1001, false);
    const s = t.summary(2);
    assert.equal(s.latencyMs.p50, 100);
    assert.equal(s.latencyMs.max, 500);
    assert.equal(s.sendDelayMs.max, 40);
    assert.equal(s.timeouts, 1);
    assert.equal(s.timeoutsUnsent, 1);
  });

  test('shares: server-rendered over everything scheduled; 503s and non-2xx apart', () => {
    const t = tally();
    const answers = [ok, ok, { status: 200, renderMode: 'shell', retryAfter: false }, { status: 503, renderMode: null, retryAfter: true }];
    answers.forEach((answer, i) => {
      t.scheduledOne(1000 + i);
      t.answered(1000 + i, 1010 + i, answer);
    });
    t.scheduledOne(1100);
    t.failed(1100, 'ECONNRESET');
    const s = t.summary(5);
    assert.equal(s.ssrPerS, 2);
    assert.equal(s.scheduled, 5);
    assert.equal(s.ok, 3);
    assert.equal(s.shell, 1);
    assert.equal(s.non2xx, 1);
    assert.equal(s.status503, 1);
    assert.equal(s.status503WithRetryAfter, 1);
    assert.equal(s.errors, 1);
    assert.deepEqual(s.errorCodes, { ECONNRESET: 1 });
    assert.equal(s.ssrShare, 2 / 5);
  });

  test('sent per second counts writes made during the window, whenever scheduled', () => {
    const t = tally();
    t.written(900, 1001);
    t.written(1500, 1600);
    t.written(1900, 2100);
    assert.equal(t.summary(1).sentPerS, 2);
  });
});
