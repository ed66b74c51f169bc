import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram } from './histogram';
import { MetricsLedger } from './totals';
import { WorkerMetrics } from './worker-metrics';

test('histograms merge bucket by bucket, with count, sum and maximum', () => {
  const a = new Histogram();
  const b = new Histogram();
  for (const ms of [1, 2, 3]) a.record(ms);
  for (const ms of [2, 40]) b.record(ms);
  a.merge(b);
  const s = a.snapshot();
  assert.equal(s.count, 5);
  assert.equal(s.sumMs, 48);
  assert.equal(s.maxMs, 40);
  assert.equal(
    s.counts.reduce((x, y) => x + y, 0),
    5,
  );
});

test('two readers each see every request once, whoever reads first: counters only rise, readers take differences', () => {
  const metrics = new WorkerMetrics();
  const ledger = new MetricsLedger(metrics);
  const cloudwatch = ledger.reader();
  const prometheus = ledger.reader();

  metrics.count.requests += 3;
  metrics.count.ssr += 2;
  metrics.inFlight = 5;
  metrics.inFlightMax = 7;
  metrics.responseMs.record(4);
  ledger.roll(); // a scrape
  assert.equal(metrics.count.requests, 3, 'the counter is not reset by a reader');
  assert.equal(metrics.inFlightMax, 5, 'the next interval of peaks starts at what is in flight now');

  metrics.count.requests += 4;
  metrics.responseMs.record(9);
  ledger.roll(); // a flush
  assert.equal(cloudwatch.count('requests'), 7);
  assert.equal(prometheus.count('requests'), 7);
  assert.equal(cloudwatch.count('ssr'), 2);
  assert.equal(cloudwatch.inFlightMax, 7);
  const responses = cloudwatch.distribution('responseMs').snapshot();
  assert.equal(responses.count, 2);
  assert.equal(responses.maxMs, 9);
  cloudwatch.clear();

  metrics.count.requests += 1;
  metrics.responseMs.record(2);
  ledger.roll();
  assert.equal(cloudwatch.count('requests'), 1, 'cleared totals start from the flush');
  assert.equal(prometheus.count('requests'), 8, 'the other reader still sees everything since it began');
  assert.equal(metrics.count.requests, 8, 'the counter Prometheus reads only rises');
  const since = cloudwatch.distribution('responseMs').snapshot();
  assert.deepEqual([since.count, since.sumMs, since.maxMs], [1, 2, 2], "the maximum is the interval's, not the all-time 9");
});

test('a reader that begins late sees only what came after it', () => {
  const metrics = new WorkerMetrics();
  metrics.count.requests += 50;
  metrics.renderMs.record(30);
  const ledger = new MetricsLedger(metrics);
  const late = ledger.reader();
  metrics.count.requests += 2;
  metrics.renderMs.record(5);
  ledger.roll();
  assert.equal(late.count('requests'), 2);
  assert.deepEqual([late.distribution('renderMs').snapshot().count, late.distribution('renderMs').snapshot().maxMs], [1, 5]);
});
