// CloudWatch down in the worst way, accepting connections and never answering, while readers
// keep coming: no page waits for it, what waits for CloudWatch stays under its cap while the
// dropped counter rises, and the shutdown does not wait for it either. Nothing here compares
// latencies (a busy machine would decide that): each call to CloudWatch hangs for a minute, so
// a page or a shutdown that waited for one would not finish within the ceilings below at all.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { startBlackHole } from '../../test/black-hole';
import { freePort, metricsValue, seedTempStore, startBuiltServer } from '../../test/server';
import { waitFor, withCeiling } from '../../test/wait';

let dir: string;
let dbPath: string;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(600, 10));
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const pages = ['/', '/news', '/sport', '/world', '/business', '/tech', '/travel', '/health', '/style', '/cars'];
/** How long one call to CloudWatch may take (the setting's maximum): far beyond any wait below. */
const cloudWatchTimeoutMs = 60_000;
/** A page that waited for CloudWatch would take a minute; an honest one, however busy the machine, a fraction of this. */
const pageCeilingMs = 20_000;

/** A closed loop of `clients` readers for `ms`: statuses counted, a page not answered within pageCeilingMs an error. */
async function load(baseUrl: string, ms: number, clients = 8) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  let pagesServed = 0;
  const errors: string[] = [];
  const until = performance.now() + ms;
  const reader = async (n: number) => {
    for (let i = n; performance.now() < until; i += clients) {
      const outcome = await new Promise<string>((resolve) => {
        const req = http.get(baseUrl + pages[i % pages.length], { agent, signal: AbortSignal.timeout(pageCeilingMs) }, (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.statusCode)));
        });
        req.on('error', (error) => resolve(error.name));
      });
      if (outcome === '200') pagesServed += 1;
      else errors.push(outcome);
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, n) => reader(n)));
  agent.destroy();
  return { pagesServed, errors };
}

test(
  'CloudWatch accepting connections and never answering: every page served meanwhile, the buffer capped, drops counted and logged, the shutdown not held',
  { timeout: 120_000 },
  async () => {
    const hole = await startBlackHole();
    const bufferMaxDatums = 40;
    try {
      const metricsPort = String(await freePort());
      const server = await startBuiltServer(dbPath, {
        METRICS_CLOUDWATCH: '1',
        AWS_REGION: 'eu-west-1',
        AWS_ENDPOINT_URL_CLOUDWATCH: hole.url,
        AWS_ACCESS_KEY_ID: 'testing',
        AWS_SECRET_ACCESS_KEY: 'testing',
        AWS_EC2_METADATA_DISABLED: 'true',
        METRICS_FLUSH_S: '1',
        METRICS_TIMEOUT_MS: String(cloudWatchTimeoutMs),
        METRICS_BUFFER_MAX_DATUMS: String(bufferMaxDatums),
        METRICS_PORT: metricsPort,
      });
      let served;
      let text: string;
      try {
        // From here on a call to CloudWatch is out and hangs: every page below is served while it does.
        await waitFor('a call to CloudWatch', () => hole.connections() > 0);
        served = await load(server.baseUrl, 3_000);
        text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      } finally {
        // The shutdown gives up on CloudWatch at the grace period (3 s here), not at its minute.
        assert.equal(await withCeiling('the shutdown with a call to CloudWatch hanging', server.stop()), 0, server.output());
      }
      console.log(`CloudWatch hung: ${served.pagesServed} pages served, errors: ${served.errors.join(' ') || 'none'}`);

      assert.deepEqual(served.errors, [], 'no page failed or waited for CloudWatch');
      assert.ok(served.pagesServed > 0);
      const buffered = metricsValue(text, 'kiosk_cloudwatch_buffered_datums');
      const dropped = metricsValue(text, 'kiosk_cloudwatch_dropped_datums_total');
      // The queue holds at most the cap; one request's worth more may be out on the wire.
      assert.ok(buffered > 0 && buffered <= 2 * bufferMaxDatums, `buffered ${buffered}`);
      assert.ok(dropped > 0, 'the dropped counter rose');
      assert.equal(metricsValue(text, 'kiosk_cloudwatch_sent_datums_total'), 0);
      assert.ok(metricsValue(text, 'kiosk_worker_rss_bytes') < 512 * 1024 * 1024);
      const output = server.output();
      assert.match(output, /"CloudWatch metrics buffer full; dropped the oldest"/);
      assert.ok((output.match(/buffer full/g) ?? []).length <= 4, 'logged once a minute per process, not once a flush');
      assert.match(output, /"metrics not sent to CloudWatch at shutdown"/);
    } finally {
      await hole.close();
    }
  },
);
