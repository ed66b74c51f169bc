// The write paths through the production layout (`npm run start:nginx`): real Nginx in front of
// the built cluster. One client's flood of view beacons and of sign-ups is cut down to its share
// by Nginx itself (limit_req, by the address the proxy in front forwarded), real readers behind
// it are all counted, and every spelling of the health check that skips the origin secret
// reaches the health check and nothing else. Needs nginx (scripts/setup-system.sh) and a build.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../server/config';
import { openSqliteStore } from '../../server/content/sqlite';
import { signupsPathFor } from '../../server/content/sqlite-signups';
import { viewsPathFor } from '../../server/content/sqlite-views';
import { minuteOf } from '../../server/content/views-window';
import { emptyPost, flood } from '../../test/flood';
import { freePort, freePortRange, rawRequest, seedTempStore, startBuiltServer, type BuiltServer } from '../../test/server';
import { startLocalNginx, type LocalNginx } from './local';
import { admissionOf } from './render';
import { waitFor } from '../../test/wait';

// As if one proxy (a load balancer) stood in front of Nginx: Nginx reads the reader from the
// last X-Forwarded-For entry the test writes, Node from the entry before the one Nginx appends.
const env = { CLIENT_ADDRESS_HOPS: '2', VIEWS_FLUSH_S: '60', WEB_CONCURRENCY: '1', LISTEN_MODE: 'per-worker' };

describe('view beacons and sign-ups through Nginx', () => {
  let dir: string;
  let dbPath: string;
  let ids: string[];
  let cluster: BuiltServer;
  let nginx: LocalNginx;
  let baseUrl: string;
  let fallbackLog: string;

  before(async () => {
    ({ dir, dbPath } = await seedTempStore(600, 10));
    const store = openSqliteStore(dbPath, { readonly: true });
    ids = (await store.teasers('all', 50)).map((t) => t.id);
    store.close();
    const firstPort = await freePortRange(1);
    cluster = await startBuiltServer(dbPath, { ...env, PORT: String(firstPort) });
    const nginxPort = await freePort();
    fallbackLog = `${dir}/fallback.log`;
    nginx = await startLocalNginx({
      listen: `127.0.0.1:${nginxPort}`,
      workerPorts: [firstPort],
      admission: admissionOf(loadConfig({ ...env, PORT: String(firstPort) })),
      fallbackLog,
      originSecrets: [],
    });
    baseUrl = `http://127.0.0.1:${nginxPort}`;
  });

  after(async () => {
    await nginx?.stop();
    await cluster?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('20,000 beacons from one address: Nginx refuses all but its share, and every real reader is counted', async () => {
    const flooder = '203.0.113.66';
    const requests = Array.from({ length: 20_000 }, (_, n) =>
      emptyPost(`/api/views/${ids[n % 40]}`, { 'X-Forwarded-For': flooder, 'Sec-Fetch-Site': 'same-origin' }),
    );
    const flooded = await flood(baseUrl, requests, 16);
    assert.equal(flooded.unanswered, 0);
    const limited = flooded.statuses.get(429) ?? 0;
    assert.ok(limited >= 19_900, `Nginx refused ${limited}: ${JSON.stringify([...flooded.statuses])}`);
    assert.equal(flooded.statuses.get(500) ?? 0, 0);
    const read = ids[45]!;
    for (let reader = 0; reader < 93; reader += 1) {
      const res = await fetch(`${baseUrl}/api/views/${read}`, {
        method: 'POST',
        headers: { 'X-Forwarded-For': `192.0.2.${reader}`, 'Sec-Fetch-Site': 'same-origin' },
      });
      assert.equal(res.status, 204, `reader ${reader}`);
    }
    // The refusals are counted where the primary reads them, not logged line by line.
    await waitFor("a refusal in Nginx's fallback log", () => (fs.existsSync(fallbackLog) ? fs.readFileSync(fallbackLog, 'utf8') : '').includes(' nginx-429 '));
    assert.doesNotMatch(nginx.errors(), /limiting requests/);
    // The drain flushes what the worker counted.
    assert.equal(await cluster.stop(), 0);
    const db = new Database(viewsPathFor(dbPath), { readonly: true });
    try {
      const views = new Map(
        db
          .prepare<[number], { article_id: string; n: number }>('SELECT article_id, sum(views) AS n FROM article_views WHERE minute >= ? GROUP BY article_id')
          .all(minuteOf(Date.now()) - 5)
          .map((r) => [r.article_id, r.n]),
      );
      assert.equal(views.get(read), 93, 'every real reader counted');
    } finally {
      db.close();
    }
    cluster = await startBuiltServer(dbPath, { ...env, PORT: String(nginx.params.workerPorts[0]) });
  });

  test('3,000 sign-ups from one address: Nginx takes a handful, refuses the rest with a page; a real reader still signs up', async () => {
    const form = (email: string) => new URLSearchParams({ email, newsletters: 'morning' }).toString();
    const requests = Array.from(
      { length: 3_000 },
      (_, n) =>
        `POST /newsletter HTTP/1.1\r\nHost: kiosk.test\r\nX-Forwarded-For: 203.0.113.77\r\nSec-Fetch-Site: same-origin\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form(`flood${n}@example.com`).length}\r\n\r\n${form(`flood${n}@example.com`)}`,
    );
    const flooded = await flood(baseUrl, requests, 8);
    assert.equal(flooded.unanswered, 0);
    assert.deepEqual([...flooded.statuses.keys()].sort(), [200, 429], JSON.stringify([...flooded.statuses]));
    assert.ok(flooded.statuses.get(200)! <= 6, `accepted ${flooded.statuses.get(200)}`);
    const refused = await rawRequest(
      baseUrl,
      `POST /newsletter HTTP/1.1\r\nHost: kiosk.test\r\nX-Forwarded-For: 203.0.113.77\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form('again@example.com').length}\r\nConnection: close\r\n\r\n${form('again@example.com')}`,
    );
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '3600');
    assert.match(refused.headers['content-type'] ?? '', /^text\/html/);
    assert.match(refused.body, /several sign-ups from your connection/);
    const reader = await fetch(`${baseUrl}/newsletter`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': '192.0.2.200', 'Sec-Fetch-Site': 'same-origin' },
      body: form('reader@example.com'),
    });
    assert.equal(reader.status, 200);
    const db = new Database(signupsPathFor(dbPath), { readonly: true });
    try {
      const stored = db.prepare<[], string>('SELECT address FROM newsletter_signups').pluck().all();
      assert.ok(stored.includes('reader@example.com'));
      assert.ok(stored.filter((a) => a.startsWith('flood')).length <= 6);
    } finally {
      db.close();
    }
  });
});

test('every spelling of the exempt health check needs the origin secret or reaches exactly /healthz', async () => {
  const secret = 'a1b2c3d4'.repeat(8);
  // What Nginx sent on, as the upstream received it.
  const echo = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'private, no-store' });
    res.end(JSON.stringify({ method: req.method, url: req.url }));
  });
  const echoPort = await freePort();
  await new Promise<void>((resolve) => echo.listen(echoPort, '127.0.0.1', resolve));
  const port = await freePort();
  const guarded = await startLocalNginx({ listen: `127.0.0.1:${port}`, workerPorts: [echoPort], originSecrets: [secret] });
  const base = `http://127.0.0.1:${port}`;
  try {
    const spellings = [
      'GET /healthz',
      'HEAD /healthz',
      'GET /healthz?x=1',
      'GET //healthz',
      'GET /%68ealthz',
      'GET /%2Fhealthz',
      'GET /./healthz',
      'GET /api/../healthz',
      'GET /x/%2e%2e/healthz',
      'GET /healthz/',
      'GET /HEALTHZ',
      'POST /healthz',
      'DELETE /healthz',
      'POST /api/views/202611221900000001/..%2F..%2F..%2Fhealthz',
      'GET /api/views/..%2f..%2fhealthz',
    ];
    const reached: string[] = [];
    for (const spelling of spellings) {
      const answer = await rawRequest(base, `${spelling} HTTP/1.1\r\nHost: kiosk.test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      if (answer.status === 403) continue;
      assert.equal(answer.status, 200, `${spelling}: ${answer.status}`);
      if (spelling.startsWith('HEAD ')) {
        reached.push(spelling);
        continue;
      }
      const seen = JSON.parse(answer.body) as { method: string; url: string };
      assert.deepEqual(seen, { method: 'GET', url: '/healthz' }, `${spelling} reached the upstream as ${seen.method} ${seen.url}`);
      reached.push(spelling);
    }
    assert.ok(reached.includes('GET /healthz') && reached.includes('HEAD /healthz'), 'the load balancer still gets its health check');
    for (const must of ['POST /healthz', 'DELETE /healthz', 'GET /HEALTHZ', 'GET /healthz/']) assert.ok(!reached.includes(must), `${must} needs the secret`);
  } finally {
    await guarded.stop();
    await new Promise((resolve) => echo.close(resolve));
  }
});
