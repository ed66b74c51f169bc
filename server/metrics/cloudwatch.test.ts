import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MetricDatum } from '@aws-sdk/client-cloudwatch';
import {
  CloudWatchPublisher,
  datumBytes,
  dimensionSets,
  distributionSample,
  metricNames,
  putMetricDataLimits,
  takeBatch,
  toDatums,
  workerSamples,
  type Sample,
  type SendMetrics,
} from './cloudwatch';
import { bucketUpperBound, Histogram } from './histogram';
import { MetricsLedger } from './totals';
import { WorkerMetrics } from './worker-metrics';
import { collectingLog } from '../../test/log';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

test('a histogram becomes Values/Counts: bucket bounds, counts that add up, the top value lowered to the maximum', () => {
  const h = new Histogram();
  for (const ms of [0.05, 1, 1, 1.1, 7, 7.2, 250]) h.record(ms);
  const sample = distributionSample('ResponseTime', h);
  assert.ok(sample && 'values' in sample);
  assert.equal(sample.unit, 'Milliseconds');
  assert.equal(sample.values.length, sample.counts.length);
  assert.equal(
    sample.counts.reduce((a, b) => a + b, 0),
    7,
  );
  // 1 and 1.1 share a bucket (up to 1.13), as do 7 and 7.2 (up to 7.61).
  assert.deepEqual(sample.counts, [1, 3, 2, 1]);
  assert.equal(sample.values[0], bucketUpperBound(0));
  assert.equal(sample.values.at(-1), 250, 'Maximum stays exact');
  for (let i = 1; i < sample.values.length; i++) assert.ok(sample.values[i]! > sample.values[i - 1]!, 'values ascend');
  // Every recorded value sits at or under its bucket's value, within one bucket (2^(1/4)).
  assert.ok(sample.values[1]! >= 1.1 && sample.values[1]! < 1 * 2 ** 0.25);
});

test('an empty histogram sends nothing rather than a latency of 0', () => {
  assert.equal(distributionSample('RenderTime', new Histogram()), null);
});

test('worker samples: the counters, the in-flight maximum, three distributions, memory', () => {
  const metrics = new WorkerMetrics();
  metrics.count.requests = 2;
  const ledger = new MetricsLedger(metrics);
  const totals = ledger.reader();
  metrics.count.requests += 10;
  metrics.count.ssr += 6;
  metrics.count.shell += 3;
  metrics.count.status4xx += 1;
  metrics.inFlightMax = 4;
  metrics.responseMs.record(3);
  ledger.roll();
  const samples = workerSamples(totals, { heapUsed: 5e6, rss: 9e7 });
  const byName = new Map(samples.map((s) => [s.name, s]));
  assert.deepEqual(byName.get(metricNames.requests), { name: 'Requests', unit: 'Count', value: 10 });
  assert.equal((byName.get(metricNames.serverRendered) as { value: number }).value, 6);
  assert.equal((byName.get(metricNames.shell) as { value: number }).value, 3);
  assert.equal((byName.get(metricNames.inFlightMax) as { value: number }).value, 4);
  assert.equal(byName.get(metricNames.rss)?.unit, 'Bytes');
  assert.deepEqual(byName.get(metricNames.responseTime), { name: 'ResponseTime', unit: 'Milliseconds', values: [3], counts: [1] }, 'exact maximum');
  assert.ok(!byName.has(metricNames.renderTime), 'no renders, no render time');
});

test('every sample goes out per instance and per environment; more than 150 values are split', () => {
  const values = Array.from({ length: 320 }, (_, i) => i + 1);
  const samples: Sample[] = [
    { name: 'Requests', unit: 'Count', value: 3 },
    { name: 'Wide', unit: 'Milliseconds', values, counts: values.map(() => 2) },
  ];
  const at = new Date('2026-11-22T10:00:00Z');
  const datums = toDatums(samples, dimensionSets('prod', 'i-0abc'), at, 60);
  const requests = datums.filter((d) => d.MetricName === 'Requests');
  assert.deepEqual(
    requests.map((d) => d.Dimensions),
    [
      [
        { Name: 'Environment', Value: 'prod' },
        { Name: 'Instance', Value: 'i-0abc' },
      ],
      [{ Name: 'Environment', Value: 'prod' }],
    ],
  );
  const wide = datums.filter((d) => d.MetricName === 'Wide');
  assert.equal(wide.length, 6, '320 values: 150 + 150 + 20, for each of two dimension sets');
  for (const d of wide) {
    assert.ok(d.Values!.length <= putMetricDataLimits.values);
    assert.equal(d.Values!.length, d.Counts!.length);
    assert.equal(d.Timestamp, at);
    assert.equal(d.StorageResolution, 60);
  }
  assert.deepEqual(
    wide.slice(0, 3).flatMap((d) => d.Values),
    values,
    'nothing lost or repeated',
  );
});

test('batches respect 1,000 metrics per request and the request size, and take from the front in order', () => {
  const small = (i: number): MetricDatum => ({ MetricName: `M${i}`, Value: i, Unit: 'Count' });
  const queue = Array.from({ length: 2_500 }, (_, i) => small(i));
  const batches: MetricDatum[][] = [];
  while (queue.length > 0) batches.push(takeBatch(queue));
  assert.deepEqual(
    batches.map((b) => b.length),
    [1_000, 1_000, 500],
  );
  assert.equal(batches[1]![0]!.MetricName, 'M1000');

  // Distributions of 150 values with long dimension values: the size limit binds first.
  const wide = (i: number): MetricDatum => ({
    MetricName: `Wide${i}`,
    Dimensions: [{ Name: 'Instance', Value: 'x'.repeat(1_000) }],
    Values: Array.from({ length: 150 }, (_, j) => 1234.5678901 + j),
    Counts: Array.from({ length: 150 }, () => 12345),
    Unit: 'Milliseconds',
    Timestamp: new Date(),
  });
  const big = Array.from({ length: 600 }, (_, i) => wide(i));
  const limits = { ...putMetricDataLimits };
  let taken = 0;
  while (big.length > 0) {
    const batch = takeBatch(big, limits);
    const bytes = batch.reduce((sum, d) => sum + datumBytes(d), 0);
    assert.ok(batch.length <= limits.datums);
    assert.ok(bytes <= limits.bytes, `batch of ${bytes} bytes over ${limits.bytes}`);
    assert.ok(batch.length < 600, 'the size limit split them');
    taken += batch.length;
  }
  assert.equal(taken, 600);
});

function publisher(send: SendMetrics, overrides: Partial<ConstructorParameters<typeof CloudWatchPublisher>[0]> = {}) {
  let n = 0;
  return new CloudWatchPublisher({
    send,
    dimensionSets: [[{ Name: 'Environment', Value: 'test' }]],
    collect: () => [{ name: 'Requests', unit: 'Count', value: ++n }],
    flushIntervalS: 60,
    storageResolutionS: 60,
    bufferMaxDatums: 100,
    timeoutMs: 200,
    log: quiet,
    ...overrides,
  });
}

test('a flush sends the interval and a MetricsDropped count, stamped with the start of the interval', async () => {
  const requests: MetricDatum[][] = [];
  const p = publisher(async (datums) => void requests.push(datums));
  await p.flush();
  assert.equal(requests.length, 1);
  assert.deepEqual(
    requests[0]!.map((d) => [d.MetricName, d.Value]),
    [
      ['Requests', 1],
      ['MetricsDropped', 0],
    ],
  );
  const stamp = requests[0]![0]!.Timestamp!.getTime();
  assert.equal(stamp % 60_000, 0);
  assert.ok(Date.now() - stamp < 60_000);
  assert.equal(p.sent, 2);
  assert.equal(p.buffered, 0);
});

test('CloudWatch down: data waits in order, the buffer never passes its cap, drops are counted, logged once and sent later', async () => {
  let up = false;
  const delivered: MetricDatum[] = [];
  const { lines, log } = collectingLog();
  const p = publisher(
    async (datums) => {
      if (!up) throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'Error' });
      delivered.push(...datums);
    },
    { bufferMaxDatums: 10, log },
  );
  for (let i = 0; i < 20; i++) {
    await p.flush();
    assert.ok(p.buffered <= 10, `buffered ${p.buffered}`);
  }
  assert.equal(p.buffered, 10);
  assert.equal(p.dropped, 30, '40 datums made, 10 kept');
  assert.equal(lines.filter((l) => l.message.includes('buffer full')).length, 1, 'one log line, not one per flush');
  assert.equal(lines.filter((l) => l.message.includes('failed')).length, 1);

  up = true;
  await p.flush();
  assert.equal(p.buffered, 0);
  const requests = delivered.filter((d) => d.MetricName === 'Requests').map((d) => d.Value);
  // The 21st flush's two datums pushed the 16th's out of the 10 kept.
  assert.deepEqual(requests, [17, 18, 19, 20, 21], 'the newest kept, oldest first');
  const droppedReported = delivered.filter((d) => d.MetricName === 'MetricsDropped').reduce((s, d) => s + d.Value!, 0);
  assert.ok(droppedReported > 0, 'the drops themselves reach CloudWatch');
  assert.ok(lines.some((l) => l.message.includes('again')));
});

test('a hung endpoint costs one timeout per flush, never more', { timeout: 30_000 }, async () => {
  const signals: AbortSignal[] = [];
  const p = publisher(
    (_datums, signal) => {
      signals.push(signal);
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    },
    { timeoutMs: 100, bufferMaxDatums: 10 },
  );
  await p.flush();
  // One call, given up by the publisher's own timer (not retried, not given up early).
  assert.equal(signals.length, 1);
  assert.equal((signals[0]!.reason as Error).name, 'TimeoutError');
  assert.equal(p.buffered, 2);
  await p.flush();
  assert.equal(signals.length, 2, 'the next flush tries once more');
});

test('data CloudWatch refuses as invalid is dropped, not retried forever', async () => {
  let calls = 0;
  const p = publisher(async () => {
    calls += 1;
    throw Object.assign(new Error('The value NaN is invalid'), { name: 'InvalidParameterValue', $fault: 'client', $metadata: { httpStatusCode: 400 } });
  });
  await p.flush();
  assert.equal(calls, 1);
  assert.equal(p.buffered, 0);
  assert.equal(p.dropped, 2);

  let throttled = 0;
  const q = publisher(async () => {
    throttled += 1;
    throw Object.assign(new Error('Rate exceeded'), { name: 'Throttling', $fault: 'client', $metadata: { httpStatusCode: 400 } });
  });
  await q.flush();
  assert.equal(q.buffered, 2, 'throttling is kept for the next flush');
  assert.equal(throttled, 1);
});

test('close sends what is left, and gives up at its deadline', { timeout: 30_000 }, async () => {
  const sent: MetricDatum[] = [];
  const p = publisher(async (datums) => void sent.push(...datums)).start();
  await p.close(1_000);
  assert.deepEqual(
    sent.map((d) => d.MetricName),
    ['Requests', 'MetricsDropped'],
  );

  const { lines, log } = collectingLog();
  let signal: AbortSignal | undefined;
  const hung = publisher(
    (_datums, s) => {
      signal = s;
      return new Promise(() => {});
    },
    { log, timeoutMs: 400 },
  );
  await hung.close(150);
  // Timers fire in the order they are due: close returned at its own deadline, before the
  // call's timeout (400 ms) aborted it.
  assert.ok(signal, 'the call was made');
  assert.equal(signal.aborted, false);
  assert.ok(lines.some((l) => l.message.includes('not sent')));
});
