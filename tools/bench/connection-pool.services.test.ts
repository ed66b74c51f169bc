import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ConnectionPool, type PoolEvents, type ScheduledRequest } from './connection-pool';

let server: http.Server;
let port = 0;

before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/hang') return;
    if (req.url === '/drop') return req.socket.destroy();
    setTimeout(() => res.writeHead(200, { 'X-Render-Mode': 'ssr' }).end('page'), 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

function request(path: string): ScheduledRequest {
  return { scheduledAt: performance.now(), bytes: Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`), writtenAt: 0 };
}

function recorder() {
  const seen = { written: 0, answered: [] as number[], failed: [] as string[], timedOut: [] as boolean[] };
  let wake = () => {};
  const events: PoolEvents = {
    written: () => seen.written++,
    answered: (_r, answer) => (seen.answered.push(answer.status), wake()),
    failed: (_r, code) => (seen.failed.push(code), wake()),
    timedOut: (r) => (seen.timedOut.push(r.writtenAt > 0), wake()),
  };
  const settled = (count: number) =>
    new Promise<void>((resolve) => {
      wake = () => {
        if (seen.answered.length + seen.failed.length + seen.timedOut.length >= count) resolve();
      };
      wake();
    });
  return { seen, events, settled };
}

describe('connection pool', () => {
  test('queues beyond its cap and reuses keep-alive connections', async () => {
    const { seen, events, settled } = recorder();
    const pool = new ConnectionPool({ host: '127.0.0.1', port }, 2, events);
    assert.ok(Number.isNaN(pool.stats().connectMs.max), 'no connect timed before one is made');
    for (let i = 0; i < 6; i++) pool.submit(request('/page'));
    assert.equal(pool.outstanding, 6);
    await settled(6);
    pool.close();
    assert.deepEqual(seen.answered, [200, 200, 200, 200, 200, 200]);
    assert.equal(seen.written, 6);
    const stats = pool.stats();
    assert.equal(stats.opened, 2);
    assert.equal(stats.peakOpen, 2);
    assert.equal(stats.waitedForConnection, 4);
    // Both connects were timed; on loopback well under the second that would mean dropped SYNs.
    const { p50, max } = stats.connectMs;
    assert.ok(Number.isFinite(max) && max > 0 && max < 1_000, `connect max ${max} ms`);
    assert.ok(p50 > 0 && p50 <= max, `connect p50 ${p50} ms, max ${max} ms`);
  });

  test('a request unanswered past the timeout is a timeout, and one still queued was never sent', async () => {
    const { seen, events, settled } = recorder();
    const pool = new ConnectionPool({ host: '127.0.0.1', port }, 1, events);
    pool.submit(request('/hang'));
    pool.submit(request('/hang'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    pool.expire(performance.now() + 1000, 500);
    await settled(2);
    pool.close();
    assert.deepEqual(seen.timedOut, [true, false]);
    assert.equal(seen.failed.length, 0);
  });

  test('a connection the server drops fails its request', async () => {
    const { seen, events, settled } = recorder();
    const pool = new ConnectionPool({ host: '127.0.0.1', port }, 4, events);
    pool.submit(request('/drop'));
    await settled(1);
    pool.close();
    assert.equal(seen.failed.length, 1);
    assert.match(seen.failed[0]!, /^E/);
  });
});
