import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerSamples } from './cloudwatch';
import { clusterText } from './prometheus';
import { workerScrape } from './scrape';
import { MetricsLedger } from './totals';
import { WorkerMetrics } from './worker-metrics';

/** One worker's scrape as the primary writes it: its families added up (alone here) and formatted. */
function asText(scrape: ReturnType<typeof workerScrape>) {
  return { metrics: () => clusterText([scrape()]) };
}

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line, `${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}

test("a worker's registry: counters that only rise, histograms in seconds with cumulative buckets", async () => {
  const metrics = new WorkerMetrics();
  const ledger = new MetricsLedger(metrics);
  const registry = asText(workerScrape(ledger, ledger.reader(), { buffered: 3, dropped: 1, sent: 9 }));
  const cloudwatch = ledger.reader();

  metrics.count.requests += 5;
  metrics.count.ssr += 3;
  metrics.count.shell += 2;
  metrics.count.status4xx += 1;
  metrics.inFlightMax = 4;
  for (const ms of [0.5, 3, 3, 70]) metrics.responseMs.record(ms);
  let text = await registry.metrics();
  assert.equal(value(text, 'kiosk_requests_total'), 5);
  assert.equal(value(text, 'kiosk_server_rendered_total'), 3);
  assert.equal(value(text, 'kiosk_shell_total'), 2);
  assert.equal(value(text, 'kiosk_responses_4xx_total'), 1);
  assert.equal(value(text, 'kiosk_in_flight_max'), 4);
  assert.equal(value(text, 'kiosk_response_seconds_count'), 4);
  assert.ok(Math.abs(value(text, 'kiosk_response_seconds_sum') - 0.0765) < 1e-9);
  assert.equal(value(text, 'kiosk_response_seconds_bucket{le="0.0008"}'), 1);
  assert.equal(value(text, 'kiosk_response_seconds_bucket{le="0.0032"}'), 3);
  assert.equal(value(text, 'kiosk_response_seconds_bucket{le="0.0512"}'), 3);
  assert.equal(value(text, 'kiosk_response_seconds_bucket{le="0.1024"}'), 4);
  assert.equal(value(text, 'kiosk_response_seconds_bucket{le="+Inf"}'), 4);
  assert.equal(value(text, 'kiosk_cloudwatch_buffered_datums'), 3);
  assert.equal(value(text, 'kiosk_cloudwatch_dropped_datums_total'), 1);

  metrics.count.requests += 2;
  text = await registry.metrics();
  assert.equal(value(text, 'kiosk_requests_total'), 7, 'a counter: everything since start');
  assert.equal(value(text, 'kiosk_in_flight_max'), 0, 'the maximum since the previous scrape');
  assert.equal(cloudwatch.count('requests'), 7, 'scrapes take nothing away from CloudWatch');
  assert.equal(cloudwatch.distribution('responseMs').snapshot().count, 4);
});

test('the time spent writing last good copies: kept in ms, in seconds on /metrics, in ms to CloudWatch', async () => {
  const metrics = new WorkerMetrics();
  const ledger = new MetricsLedger(metrics);
  const registry = asText(workerScrape(ledger, ledger.reader(), null));
  const cloudwatch = ledger.reader();
  metrics.count.lastGoodWriteMs += 12.5;
  metrics.count.lastGoodWriteMs += 0.25;
  assert.equal(value(await registry.metrics(), 'kiosk_last_good_write_seconds_total'), 0.01275);
  const sample = workerSamples(cloudwatch, { heapUsed: 0, rss: 0 }).find((s) => s.name === 'LastGoodWriteTime');
  assert.deepEqual(sample, { name: 'LastGoodWriteTime', unit: 'Milliseconds', value: 12.75 });
  assert.equal(workerSamples(cloudwatch, { heapUsed: 0, rss: 0 }).find((s) => s.name === 'Requests')?.unit, 'Count', 'a count stays a count');
});

test('pauses are given to within a fifth: a 30 ms stall and a 60 ms collection are told from 50 ms', async () => {
  const metrics = new WorkerMetrics();
  const ledger = new MetricsLedger(metrics);
  const registry = asText(workerScrape(ledger, ledger.reader(), null));
  metrics.eventLoopDelayMs.record(30);
  metrics.majorGcMs.record(60);
  const text = await registry.metrics();
  // The smallest bucket bound that holds every observation: what the bench reads as the longest.
  const longest = (series: string) =>
    Math.min(
      ...text
        .split('\n')
        .map((line) => new RegExp(`^${series}_bucket\\{le="([0-9.e-]+)"\\} 1$`).exec(line))
        .filter((match) => match !== null)
        .map((match) => Number(match[1]) * 1_000),
    );
  const stall = longest('kiosk_event_loop_delay_seconds');
  assert.ok(stall >= 30 && stall < 30 * 1.19 + 1e-9, `a 30 ms stall read as ${stall} ms`);
  const gc = longest('kiosk_major_gc_seconds');
  assert.ok(gc >= 60 && gc < 60 * 1.19 + 1e-9 && gc > 50, `a 60 ms collection read as ${gc} ms`);
  assert.ok(!text.includes('kiosk_response_seconds_bucket{le="0.00011892'), 'request latencies keep a bucket per doubling');
});
