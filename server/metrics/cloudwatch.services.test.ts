// CloudWatch metrics from the built cluster, read back from moto's implementation of the API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { GetMetricDataCommand, type Dimension } from '@aws-sdk/client-cloudwatch';
import { freePort, metricsValue, seedTempStore, startBuiltServer } from '../../test/server';
import { waitFor, waitForValue, withCeiling } from '../../test/wait';
import { metricNames } from './cloudwatch';
import { instanceStatistic, listedMetrics, startMoto, statistic, type Moto } from '../../test/moto';

let dir: string;
let dbPath: string;
let moto: Moto;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(600, 10));
  moto = await startMoto();
});

after(async () => {
  await moto?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  mode: string | undefined;
}

function request(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, mode: res.headers['x-render-mode'] as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

const crawler = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const pages = ['/', '/news', '/sport', '/world', '/business', '/tech', '/travel', '/health'];

async function scrape(port: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(res.status, 200);
  // Written like every answer of the site's (server/answer.ts): the common headers, never kept.
  assert.equal(res.headers.get('cache-control'), 'private, no-store');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  return res.text();
}

test('real traffic to the cluster reaches CloudWatch with the right names, dimensions and values; /metrics adds up the workers', async () => {
  const environment = `e2e-${process.pid}-${Date.now()}`;
  const namespace = 'KioskTest';
  const metricsPort = String(await freePort());
  const server = await startBuiltServer(dbPath, {
    ...moto.env,
    WEB_CONCURRENCY: '2',
    METRICS_CLOUDWATCH: '1',
    METRICS_FLUSH_S: '1',
    // moto is a Python process on a shared machine: give it time rather than count its slowness as an outage.
    METRICS_TIMEOUT_MS: '20000',
    METRICS_NAMESPACE: namespace,
    KIOSK_ENV: environment,
    METRICS_PORT: metricsPort,
    // Both render modes, whatever the machine's speed: a reader's page is always the shell, a
    // crawler's is server-rendered while fewer than CRAWLER_QUEUE_LIMIT are in flight (these
    // come one at a time). How many a worker holds at once in a burst is the machine's to say.
    SSR_QUEUE_LIMIT: '0',
  });
  const answers: Answer[] = [];
  try {
    const trafficStarted = performance.now();
    for (let i = 0; i < 40; i++) answers.push(await request(server.baseUrl + pages[i % pages.length], 'GET', { 'User-Agent': crawler }));
    answers.push(...(await Promise.all(Array.from({ length: 60 }, (_, i) => request(server.baseUrl + pages[i % pages.length])))));
    for (let i = 0; i < 5; i++) answers.push(await request(`${server.baseUrl}/api/front`));
    answers.push(await request(`${server.baseUrl}/api/articles/999999999999999999`));
    answers.push(await request(`${server.baseUrl}/`, 'POST'));
    // /metrics is not on the site's port: a plain 404 there.
    const onSitePort = await request(`${server.baseUrl}/metrics`);
    answers.push(onSitePort);
    const trafficMs = performance.now() - trafficStarted;
    assert.equal(onSitePort.status, 404);

    const sent = answers.length;
    const ssr = answers.filter((a) => a.mode === 'ssr').length;
    const shell = answers.filter((a) => a.mode === 'shell').length;
    const status4xx = answers.filter((a) => a.status >= 400 && a.status < 500).length;
    assert.deepEqual({ ssr, shell }, { ssr: 40, shell: 60 }, 'the crawler server-rendered, the readers the shell');
    assert.equal(status4xx, 3);
    assert.equal(answers.filter((a) => a.status >= 500).length, 0);

    const byInstance: Dimension[] = [
      { Name: 'Environment', Value: environment },
      { Name: 'Instance', Value: os.hostname() },
    ];
    const byEnvironment: Dimension[] = [{ Name: 'Environment', Value: environment }];
    const stat = (name: string, dims: Dimension[], s: 'Sum' | 'SampleCount' | 'Maximum' | 'Minimum') => statistic(moto.client, namespace, name, dims, s);

    // GetMetricStatistics too, on the per-instance series.
    const requestsByInstance = () => instanceStatistic(moto.client, namespace, metricNames.requests, byInstance, 'Sum');
    // Flushed every second while the cluster runs.
    await waitForValue('Requests in CloudWatch', requestsByInstance, (v) => v === sent);
    await waitForValue(
      'ResponseTime samples in CloudWatch',
      () => stat(metricNames.responseTime, byEnvironment, 'SampleCount'),
      (v) => v === sent,
    );
    // Each worker samples its event loop every 500 ms, whatever the traffic: the first samples
    // may go out in a flush after the one that carried the requests.
    for (const dims of [byInstance, byEnvironment]) {
      await waitForValue(
        'EventLoopDelay samples in CloudWatch',
        () => stat(metricNames.eventLoopDelay, dims, 'SampleCount'),
        (v) => (v ?? 0) > 0,
      );
    }
    for (const dims of [byInstance, byEnvironment]) {
      assert.equal(await stat(metricNames.requests, dims, 'Sum'), sent);
      assert.equal(await stat(metricNames.serverRendered, dims, 'Sum'), ssr);
      assert.equal(await stat(metricNames.shell, dims, 'Sum'), shell);
      assert.equal(await stat(metricNames.shed, dims, 'Sum'), 0);
      assert.equal(await stat(metricNames.status4xx, dims, 'Sum'), status4xx);
      assert.equal(await stat(metricNames.status5xx, dims, 'Sum'), 0);
      assert.equal(await stat(metricNames.renderTime, dims, 'SampleCount'), ssr, 'one render time per server-rendered page');
      assert.equal(await stat(metricNames.responseTime, dims, 'SampleCount'), sent);
      // In milliseconds, one sample per response: the slowest response took at least the slowest
      // render it held, and no longer than the whole traffic took. (Not "no longer than the
      // client saw": the server counts to its 'finish' event, which a busy worker may emit a few
      // milliseconds after the client already has every byte.)
      const responseMax = (await stat(metricNames.responseTime, dims, 'Maximum'))!;
      const renderMax = (await stat(metricNames.renderTime, dims, 'Maximum'))!;
      assert.ok(
        renderMax > 0 && renderMax <= responseMax && responseMax <= trafficMs,
        `slowest render ${renderMax} ms, slowest response ${responseMax} ms at the server, all the traffic ${trafficMs} ms at the client`,
      );
      assert.ok((await stat(metricNames.inFlightMax, dims, 'Maximum'))! >= 1, 'the in-flight maximum is sent');
      assert.ok((await stat(metricNames.heapUsed, dims, 'Minimum'))! > 1e6);
      assert.ok((await stat(metricNames.rss, dims, 'Minimum'))! > (await stat(metricNames.heapUsed, dims, 'Minimum'))!);
      assert.equal(await stat(metricNames.workers, dims, 'Maximum'), 2);
      assert.ok((await stat(metricNames.heartbeat, dims, 'Minimum')) === 1);
      const cpu = (await stat(metricNames.hostCpu, dims, 'Maximum'))!;
      const memory = (await stat(metricNames.hostMemory, dims, 'Maximum'))!;
      assert.ok(cpu >= 0 && cpu <= 100 && memory > 0 && memory < 100, `host CPU ${cpu}%, memory ${memory}%`);
      assert.equal(await stat(metricNames.metricsDropped, dims, 'Sum'), 0);
      assert.ok((await stat(metricNames.contentStoreReads, dims, 'Sum'))! > 0, 'the content cache counts its store reads');
    }

    // GetMetricData as a dashboard reads it (Sum and SampleCount: moto cannot compute p99).
    const now = Date.now();
    const { MetricDataResults = [] } = await moto.client.send(
      new GetMetricDataCommand({
        StartTime: new Date(now - 3_600_000),
        EndTime: new Date(now + 60_000),
        MetricDataQueries: [
          {
            Id: 'requests',
            MetricStat: { Metric: { Namespace: namespace, MetricName: metricNames.requests, Dimensions: byEnvironment }, Period: 60, Stat: 'Sum' },
          },
          {
            Id: 'renders',
            MetricStat: { Metric: { Namespace: namespace, MetricName: metricNames.renderTime, Dimensions: byEnvironment }, Period: 60, Stat: 'SampleCount' },
          },
        ],
      }),
    );
    const total = (id: string) => (MetricDataResults.find((r) => r.Id === id)?.Values ?? []).reduce((a, b) => a + b, 0);
    assert.equal(total('requests'), sent);
    assert.equal(total('renders'), ssr);

    // Every metric under both dimension sets; nothing else in the namespace.
    const listed = await listedMetrics(moto.client, namespace);
    const instanceDims = `Environment=${environment},Instance=${os.hostname()}`;
    for (const name of Object.values(metricNames)) {
      if (name === metricNames.workerRestarts) continue; // below
      // Sent for the intervals that held a major collection, which a short run may not.
      if (name === metricNames.majorGcPause) continue;
      assert.deepEqual([...(listed.get(name) ?? [])].sort(), [`Environment=${environment}`, instanceDims], name);
    }

    // /metrics from the primary adds up both workers, and counts what the site counted.
    const text = await scrape(metricsPort);
    assert.equal(metricsValue(text, 'kiosk_workers_reporting'), 2);
    const elsewhere = await fetch(`http://127.0.0.1:${metricsPort}/other`);
    assert.deepEqual([elsewhere.status, elsewhere.headers.get('x-content-type-options'), await elsewhere.text()], [404, 'nosniff', 'not found\n']);
    assert.equal(metricsValue(text, 'kiosk_requests_total'), sent);
    assert.equal(metricsValue(text, 'kiosk_server_rendered_total'), ssr);
    assert.equal(metricsValue(text, 'kiosk_shell_total'), shell);
    assert.equal(metricsValue(text, 'kiosk_responses_4xx_total'), status4xx);
    assert.equal(metricsValue(text, 'kiosk_response_seconds_count'), sent);
    assert.equal(metricsValue(text, 'kiosk_response_seconds_bucket{le="+Inf"}'), sent);
    assert.equal(metricsValue(text, 'kiosk_worker_restarts_total'), 0);
    // The pages were read from the store once, into each worker's content cache.
    assert.ok(metricsValue(text, 'kiosk_content_store_reads_total') > 0, 'the content cache counts its store reads');
    assert.ok(metricsValue(text, 'kiosk_cloudwatch_sent_datums_total') > 0);

    // A worker dies: the primary counts the restart, in CloudWatch and in /metrics.
    const [first] = server.workerPids();
    process.kill(first!, 'SIGKILL');
    await waitFor('a replacement worker', () => server.workerPids().length === 3);
    await waitForValue(
      'WorkerRestarts in CloudWatch',
      () => stat(metricNames.workerRestarts, byEnvironment, 'Sum'),
      (v) => v === 1,
    );
    assert.equal(await stat(metricNames.workerRestarts, byInstance, 'Sum'), 1);
    assert.equal(metricsValue(await scrape(metricsPort), 'kiosk_worker_restarts_total'), 1);
  } finally {
    assert.equal(await server.stop(), 0, server.output());
  }
  const complaints = server
    .output()
    .split('\n')
    .filter((line) => /"level":"(warn|error)"/.test(line) && !line.includes('"worker exited"'));
  assert.deepEqual(complaints, [], 'no warning or error while CloudWatch was up, but for the worker killed above');
});

test('SIGTERM sends what the last interval counted', async () => {
  const environment = `e2e-sigterm-${process.pid}-${Date.now()}`;
  const namespace = 'KioskTest';
  // An hour between flushes: only the shutdown flush can deliver these.
  const server = await startBuiltServer(dbPath, {
    ...moto.env,
    METRICS_CLOUDWATCH: '1',
    METRICS_FLUSH_S: '3600',
    METRICS_TIMEOUT_MS: '20000',
    METRICS_NAMESPACE: namespace,
    KIOSK_ENV: environment,
  });
  for (let i = 0; i < 12; i++) assert.equal((await request(server.baseUrl + pages[i % pages.length])).status, 200);
  const dims = [{ Name: 'Environment', Value: environment }];
  assert.equal(await statistic(moto.client, namespace, metricNames.requests, dims, 'Sum'), undefined, 'nothing sent before SIGTERM');
  assert.equal(await withCeiling('the shutdown, its flush included', server.stop()), 0, server.output());
  assert.equal(await statistic(moto.client, namespace, metricNames.requests, dims, 'Sum'), 12);
  assert.equal(await statistic(moto.client, namespace, metricNames.serverRendered, dims, 'Sum'), 12);
  assert.equal(await statistic(moto.client, namespace, metricNames.heartbeat, dims, 'Sum'), 1, "the primary's last flush too");
});
