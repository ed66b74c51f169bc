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
  assert.equal(s.counts.reduce((x, y) => x + y, 0), 5);
});

test('two readers each see every request once, whoever closes the interval', () => {
  const metrics = new WorkerMetrics();
  const ledger = new MetricsLedger(metrics);
  const cloudwatch = ledger.reader();
  const prometheus = ledger.reader();

  metrics.requests = 3;
  metrics.ssr = 2;
  metrics.inFlight = 5;
  metrics.inFlightMax = 7;
  metrics.responseMs.record(4);
  ledger.roll(); // a scrape
  assert.equal(metrics.requests, 0, 'the interval starts over');
  assert.equal(metrics.inFlightMax, 5, 'the new interval starts at what is in flight now');

  metrics.requests = 4;
  metrics.responseMs.record(9);
  ledger.roll(); // a flush
  assert.equal(cloudwatch.requests, 7);
  assert.equal(prometheus.requests, 7);
  assert.equal(cloudwatch.inFlightMax, 7);
  assert.equal(cloudwatch.responseMs.snapshot().count, 2);
  cloudwatch.clear();

  metrics.requests = 1;
  ledger.roll();
  assert.equal(cloudwatch.requests, 1, 'cleared totals start from the flush');
  assert.equal(prometheus.requests, 8, 'the counter Prometheus reads only rises');
});
