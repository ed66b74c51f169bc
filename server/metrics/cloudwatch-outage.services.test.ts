// CloudWatch down while readers keep coming: the site answers as fast as with metrics off,
// and what waits for CloudWatch stays under its cap while the dropped counter rises.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { freePort, seedTempStore, startBuiltServer } from '../../test/server';

let dir: string;
let dbPath: string;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(600, 10));
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An endpoint that accepts connections and never answers: the worst way for CloudWatch to be down. */
async function blackHole() {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connections: () => connections,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const pages = ['/', '/news', '/sport', '/world', '/business', '/tech', '/travel', '/health', '/style', '/cars'];

/** A closed loop of `clients` readers for `ms`: every page's latency, in ms. */
async function load(baseUrl: string, ms: number, clients = 8) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + ms;
  const reader = async (n: number) => {
    for (let i = n; performance.now() < until; i += clients) {
      const started = performance.now();
      const status = await new Promise<number>((resolve) => {
        http
          .get(baseUrl + pages[i % pages.length], { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', () => resolve(0));
      });
      if (status === 200) latencies.push(performance.now() - started);
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, n) => reader(n)));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { requests: latencies.length, errors, p50: at(0.5), p90: at(0.9) };
}

function series(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  assert.ok(line, `${name} in /metrics:\n${text}`);
  return Number(line.slice(name.length + 1));
}

test('CloudWatch accepting connections and never answering: latency as with metrics off, the buffer capped, drops counted and logged', async () => {
  const hole = await blackHole();
  const bufferMaxDatums = 40;
  try {
    const off = await startBuiltServer(dbPath, {});
    let withoutMetrics;
    try {
      await load(off.baseUrl, 1_000); // warm-up
      withoutMetrics = await load(off.baseUrl, 5_000);
    } finally {
      assert.equal(await off.stop(), 0);
    }

    const metricsPort = String(await freePort());
    const on = await startBuiltServer(dbPath, {
      METRICS_CLOUDWATCH: '1',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL_CLOUDWATCH: hole.url,
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_EC2_METADATA_DISABLED: 'true',
      METRICS_FLUSH_S: '1',
      METRICS_TIMEOUT_MS: '500',
      METRICS_BUFFER_MAX_DATUMS: String(bufferMaxDatums),
      METRICS_PORT: metricsPort,
    });
    let withMetrics;
    let text: string;
    try {
      await load(on.baseUrl, 1_000);
      withMetrics = await load(on.baseUrl, 5_000);
      text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    } finally {
      // A hung endpoint does not hold up the shutdown either.
      const started = Date.now();
      assert.equal(await on.stop(), 0, on.output());
      assert.ok(Date.now() - started < 6_000, `stopped in ${Date.now() - started} ms`);
    }
    console.log(`metrics off: ${JSON.stringify(withoutMetrics)}; CloudWatch hung: ${JSON.stringify(withMetrics)}`);

    assert.ok(hole.connections() > 0, 'the worker did try to send');
    assert.equal(withoutMetrics.errors, 0);
    assert.equal(withMetrics.errors, 0);
    // Generous margins: a shared, noisy machine. What must not happen is waiting on CloudWatch (500 ms a flush).
    assert.ok(withMetrics.p50 <= withoutMetrics.p50 * 3 + 5, `p50 ${withMetrics.p50.toFixed(1)} ms against ${withoutMetrics.p50.toFixed(1)} ms`);
    assert.ok(withMetrics.p90 <= withoutMetrics.p90 * 3 + 20, `p90 ${withMetrics.p90.toFixed(1)} ms against ${withoutMetrics.p90.toFixed(1)} ms`);
    assert.ok(withMetrics.requests >= withoutMetrics.requests / 3, `${withMetrics.requests} requests against ${withoutMetrics.requests}`);

    const buffered = series(text, 'kiosk_cloudwatch_buffered_datums');
    const dropped = series(text, 'kiosk_cloudwatch_dropped_datums_total');
    // The queue holds at most the cap; one request's worth more may be out on the wire.
    assert.ok(buffered > 0 && buffered <= 2 * bufferMaxDatums, `buffered ${buffered}`);
    assert.ok(dropped > 0, 'the dropped counter rose');
    assert.equal(series(text, 'kiosk_cloudwatch_sent_datums_total'), 0);
    assert.ok(series(text, 'kiosk_worker_rss_bytes') < 512 * 1024 * 1024);
    const output = on.output();
    assert.match(output, /"sending metrics to CloudWatch failed; keeping them for the next flush"/);
    assert.match(output, /"CloudWatch metrics buffer full; dropped the oldest"/);
    assert.ok((output.match(/buffer full/g) ?? []).length <= 4, 'logged once a minute per process, not once a flush');
  } finally {
    await hole.close();
  }
});
