// Real Nginx (the local rendering of nginx/kiosk.conf.template) in front of the real built
// cluster in per-worker mode, as production runs it. Needs nginx (scripts/setup-system.sh) and
// `npm run build`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { cacheControl } from '../../server/cache-policy';
import { freePort, freePortRange, seedTempStore, startBuiltServer, teasersIn, type BuiltServer } from '../../test/server';
import { startLocalNginx, testConfig, writeLocalConfig, type LocalNginx } from './local';
import { ebConfigPath, originSecretConf, root } from './render';
import { sleep, waitFor } from '../../test/wait';

// Short timeouts in the same order as production's (Node 65 s > Nginx upstream 60 s), so a
// test of a few seconds crosses them many times.
const nodeKeepAliveMs = 3_000;
const upstreamKeepaliveS = 2;
const workers = 2;

let dir: string;
let cluster: BuiltServer;
let nginx: LocalNginx;
let baseUrl: string;
let workerPorts: number[];
let articlePaths: string[];

before(async () => {
  let dbPath: string;
  ({ dir, dbPath } = await seedTempStore(600, 10));
  const firstPort = await freePortRange(workers);
  workerPorts = Array.from({ length: workers }, (_, i) => firstPort + i);
  cluster = await startBuiltServer(dbPath, {
    LISTEN_MODE: 'per-worker',
    PORT: String(firstPort),
    WEB_CONCURRENCY: String(workers),
    KEEP_ALIVE_TIMEOUT_MS: String(nodeKeepAliveMs),
  });
  const nginxPort = await freePort();
  nginx = await startLocalNginx({ listen: `127.0.0.1:${nginxPort}`, workerPorts, upstreamKeepaliveTimeoutS: upstreamKeepaliveS });
  baseUrl = `http://127.0.0.1:${nginxPort}`;
  const front = await request('/api/front');
  articlePaths = [...new Set(teasersIn(JSON.parse(front.body)).map(({ section, id }) => `/${section}/${id}`))];
  assert.ok(articlePaths.length >= 5, 'the front page API lists articles');
});

after(async () => {
  await nginx?.stop();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  bytes: number;
}

function request(pathname: string, options: { method?: string; headers?: Record<string, string>; agent?: http.Agent } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${pathname}`, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('latin1'), bytes: raw.length });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends bytes as they are and returns the status line Nginx answers with. */
function rawStatusLine(bytes: string): Promise<string> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
    let received = '';
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error(`no answer within 5 s; got "${received}"`));
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n');
      if (end !== -1) {
        socket.destroy();
        resolve(received.slice(0, end));
      }
    });
    socket.on('error', reject);
    socket.on('end', () => resolve(received.split('\r\n')[0] ?? ''));
    socket.write(bytes);
  });
}

function workerPidOnPort(port: number): number {
  const lines = cluster
    .output()
    .split('\n')
    .filter((l) => l.includes('"worker listening"') && l.includes(`"port":${port}`));
  const last = lines.at(-1);
  assert.ok(last, `a worker listened on ${port}`);
  return (JSON.parse(last) as { pid: number }).pid;
}

/**
 * The access log is buffered (flush=1s): the part written since `from` (a length of it read
 * before), once it holds `lines` lines, however late the flush comes on a busy machine.
 */
async function accessLogSince(from: number, lines: number): Promise<string> {
  const since = () => nginx.accessLog().slice(from);
  await waitFor(`${lines} lines in the access log`, () => since().split('\n').filter(Boolean).length >= lines);
  return since();
}

test(
  'nginx -t passes on both renderings',
  { skip: process.getuid?.() !== 0 && 'the Elastic Beanstalk rendering names /var/log/nginx and user nginx: run as root, as CI does' },
  () => {
    // On an instance .ebextensions/05-instance.config makes the fallback log's directory.
    fs.mkdirSync('/var/log/kiosk', { recursive: true });
    // Beside it, as in /etc/nginx on an instance, the map the prebuild hook writes (which
    // scripts/deploy/beanstalk-nginx.services.test.ts runs for real).
    const etc = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-nginx-eb-'));
    fs.copyFileSync(ebConfigPath, path.join(etc, 'nginx.conf'));
    fs.writeFileSync(path.join(etc, 'kiosk-origin-secret.conf'), originSecretConf([]));
    const eb = testConfig(path.join(etc, 'nginx.conf'));
    fs.rmSync(etc, { recursive: true, force: true });
    assert.ok(eb.ok, eb.output);
    const local = writeLocalConfig({ listen: '127.0.0.1:1', workerPorts: [2, 3] });
    try {
      const result = testConfig(local.configPath, local.prefix);
      assert.ok(result.ok, result.output);
    } finally {
      fs.rmSync(local.prefix, { recursive: true, force: true });
    }
  },
);

test('through Nginx a page is server-rendered and says so; a query string changes nothing and is not echoed', async () => {
  const article = articlePaths[0]!;
  const plain = await request(article);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['x-render-mode'], 'ssr');
  assert.equal(plain.headers.server, 'nginx');
  assert.equal(plain.headers['cache-control'], cacheControl.article);

  const busted = await request(`${article}?utm_source=kioskprobe%3Cscript%3E&cb=123456789`);
  assert.equal(busted.status, 200);
  assert.doesNotMatch(busted.body, /kioskprobe|123456789/);
  // The same page but for the per-response CSP nonce.
  const withoutNonce = (html: string) => html.replace(/nonce="[^"]+"/g, 'nonce=""');
  assert.equal(withoutNonce(busted.body), withoutNonce(plain.body));

  // CloudFront compresses at the edge; Nginx spends no CPU on HTML during a spike.
  const compressed = await request(article, { headers: { 'Accept-Encoding': 'gzip' } });
  assert.equal(compressed.headers['content-encoding'], undefined, 'HTML from Node leaves Nginx as Node sent it');
  assert.equal(compressed.bytes, plain.bytes);
});

test('assets come from disk through Nginx: immutable, and the precompressed gzip file as it was built', async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'dist/client/manifest.json'), 'utf8')) as { scripts: string[]; styles: string[] };
  for (const file of [...manifest.scripts, ...manifest.styles]) {
    const answer = await request(`/assets/${file}`, { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(answer.status, 200, file);
    assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(answer.headers['content-encoding'], 'gzip');
    // The very bytes of the .gz file the build wrote: Nginx read it from disk, Node never saw the request.
    const onDisk = fs.readFileSync(path.join(root, 'dist/client/assets', `${file}.gz`));
    assert.equal(answer.bytes, onDisk.length, file);
  }
  const missing = await request('/assets/main.0000000000.js');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers['x-render-mode'], undefined, 'a missing asset is Nginx 404, not a page');
});

test('with ORIGIN_SECRET set, Nginx answers 403 to anything without the CloudFront header, lets the health check through, and keeps the secret from Node', async () => {
  const secret = 'a1b2c3d4'.repeat(8);
  const previous = 'f0e1d2c3'.repeat(8);
  // Headers as Node received them through Nginx: a plain echo server as the only upstream.
  const echo = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'private, no-store' });
    res.end(JSON.stringify({ url: req.url, headers: req.headers }));
  });
  const echoPort = await freePort();
  await new Promise<void>((resolve) => echo.listen(echoPort, '127.0.0.1', resolve));
  const guardedPort = await freePort();
  const guarded = await startLocalNginx({ listen: `127.0.0.1:${guardedPort}`, workerPorts: [echoPort], originSecrets: [secret, previous] });
  const ask = (pathname: string, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${guardedPort}${pathname}`, { headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), bytes: 0 }));
        })
        .on('error', reject);
    });
  try {
    for (const pathname of ['/', '/news/1', '/api/front', '/assets/missing.js', '/preview/x', '/metrics']) {
      assert.equal((await ask(pathname)).status, 403, `${pathname} without the header`);
      assert.equal((await ask(pathname, { 'x-kiosk-origin-secret': 'wrong' })).status, 403, `${pathname} with a wrong secret`);
      assert.equal((await ask(pathname, { 'x-kiosk-origin-secret': secret.toUpperCase() })).status, 403, `${pathname}: the comparison is exact`);
      assert.equal((await ask(pathname, { 'x-kiosk-origin-secret': `${secret}x` })).status, 403, `${pathname}: the whole value`);
    }
    // Refused for one request's missing header: no cache may keep it for the path.
    assert.equal((await ask('/')).headers['cache-control'], 'private, no-store');
    // The load balancer's health check carries no secret and must pass.
    const health = await ask('/healthz');
    assert.equal(health.status, 200);
    assert.equal((JSON.parse(health.body) as { url: string }).url, '/healthz');
    assert.equal((await ask('/healthz?x=1')).status, 200);

    for (const value of [secret, previous]) {
      const page = await ask('/news/1', { 'x-kiosk-origin-secret': value });
      assert.equal(page.status, 200);
      const seen = JSON.parse(page.body) as { headers: Record<string, string> };
      assert.equal(seen.headers['x-kiosk-origin-secret'], undefined, 'Node never sees the secret');
    }
    // The access log is buffered (flush=1s): refused requests are in it, for whoever looks.
    await waitFor('the refused request in the access log', () => /"GET \/news\/1 HTTP\/1\.1" 403 /.test(guarded.accessLog()));
  } finally {
    await guarded.stop();
    await new Promise((resolve) => echo.close(resolve));
  }
  // The shared Nginx of this file runs without ORIGIN_SECRET: nothing is checked.
  assert.equal((await request('/api/front')).status, 200);
});

test('/metrics is not reachable through Nginx', async () => {
  for (const path of ['/metrics', '/metrics/', '/metrics/x']) assert.equal((await request(path)).status, 404, path);
});

test('an oversized header or a malformed request line gets a 4xx from Nginx, never a 5xx', async () => {
  const big = await rawStatusLine(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(9_000)}\r\nConnection: close\r\n\r\n`);
  assert.match(big, /^HTTP\/1\.1 4\d\d /, big);
  const cookie = await rawStatusLine(`GET / HTTP/1.1\r\nHost: x\r\nCookie: ${'c=1; '.repeat(2_000)}\r\nConnection: close\r\n\r\n`);
  assert.match(cookie, /^HTTP\/1\.1 4\d\d /, cookie);
  for (const line of [
    'GARBAGE\r\n\r\n',
    'GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n',
    `GET /${'a'.repeat(9_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    'GET / HTTP/1.1\r\nHost x\r\n\r\n',
    'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  ]) {
    const status = await rawStatusLine(line);
    assert.match(status, /^HTTP\/1\.1 4\d\d /, JSON.stringify(line.slice(0, 30)));
  }
});

test('keep-alive churn for 30 s across the upstream idle timeouts: no 502, no upstream connection closed under a request', async () => {
  const errorsBefore = nginx.errors().length;
  const statuses = new Map<number, number>();
  const deadline = Date.now() + 30_000;
  // Idle gaps on both sides of Nginx's upstream timeout (2 s) and Node's (3 s).
  const gapsMs = [0, 50, 1_900, 2_000, 2_100, 2_900, 3_000, 3_100, 3_500];
  const kinds = [
    { method: 'GET', path: () => articlePaths[Math.floor(Math.random() * articlePaths.length)]!, expect: 200 },
    { method: 'GET', path: () => '/api/front', expect: 200 },
    { method: 'HEAD', path: () => '/', expect: 200 },
    // Nginx never retries a POST on another worker, so a connection Node closed under it would show as a 502.
    { method: 'POST', path: () => '/api/front', expect: 405 },
  ];
  let sent = 0;
  const client = async (index: number) => {
    // A fresh client connection now and then: short keep-alive connections, as readers make.
    for (let round = 0; Date.now() < deadline; round++) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < 3 && Date.now() < deadline; i++) {
        const kind = kinds[(index + round + i) % kinds.length]!;
        const answer = await request(kind.path(), { method: kind.method, agent });
        sent++;
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        assert.equal(answer.status, kind.expect, `${kind.method} ${kind.path()}`);
        // The idle gap is the case under test: a connection reused just before, at and after a timeout.
        await sleep(gapsMs[(index * 7 + round * 3 + i) % gapsMs.length]!);
      }
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: 24 }, (_, i) => client(i)));
  assert.ok(sent > 200, `only ${sent} requests in 30 s`);
  assert.equal(statuses.get(502) ?? 0, 0);
  const newErrors = nginx.errors().slice(errorsBefore);
  assert.doesNotMatch(newErrors, /prematurely closed|reset by peer|upstream timed out/, newErrors);
});

test('both workers take requests, least_conn spreading them', async () => {
  const before = nginx.accessLog().length;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  await Promise.all(Array.from({ length: 200 }, (_, i) => request(articlePaths[i % articlePaths.length]!, { agent })));
  agent.destroy();
  const served = new Map<string, number>();
  for (const match of (await accessLogSince(before, 200)).matchAll(/ ua=127\.0\.0\.1:(\d+) /g)) served.set(match[1]!, (served.get(match[1]!) ?? 0) + 1);
  for (const port of workerPorts) assert.ok((served.get(String(port)) ?? 0) > 20, `worker on ${port} served ${served.get(String(port)) ?? 0} of 200`);
});

test('killing a worker under load loses no GET: Nginx retries on the other, throng replaces it on the same port', async () => {
  const victimPort = workerPorts[0]!;
  const victimPid = workerPidOnPort(victimPort);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const failures: string[] = [];
  let completed = 0;
  let loading = true;
  const loop = async (index: number) => {
    for (let i = index; loading; i += 16) {
      const pathname = i % 5 === 0 ? '/api/front' : articlePaths[i % articlePaths.length]!;
      try {
        const answer = await request(pathname, { agent });
        if (answer.status !== 200) failures.push(`${answer.status} ${pathname}`);
      } catch (error) {
        failures.push(`${(error as Error).message} ${pathname}`);
      }
      completed++;
    }
  };
  // Killed once the load flows through both workers, and the load goes on until as many again
  // have completed after the kill: requests in flight at the kill and sent after it.
  const killer = (async () => {
    try {
      await waitFor('load flowing', () => completed >= 200);
      process.kill(victimPid, 'SIGKILL');
      const atKill = completed;
      await waitFor('load carrying on after the kill', () => completed >= atKill + 200);
    } finally {
      loading = false;
    }
  })();
  await Promise.all([killer, ...Array.from({ length: 16 }, (_, i) => loop(i))]);
  agent.destroy();
  assert.throws(() => process.kill(victimPid, 0), /ESRCH/, 'the victim is gone');
  assert.deepEqual(failures, []);

  await waitFor('a replacement worker listening on the killed worker’s port', () => workerPidOnPort(victimPort) !== victimPid);
  // Nginx skips a failed server for fail_timeout (1 s), then tries it again: requests, marked by
  // their User-Agent, until one lands on the replacement (the access log is flushed within a second).
  const probe = 'kiosk-replacement-probe';
  const servedByReplacement = new RegExp(`"${probe}" .* ua=127\\.0\\.0\\.1:${victimPort} `);
  await waitFor(
    'the replacement serving again',
    async () => {
      await Promise.all(Array.from({ length: 10 }, (_, i) => request(articlePaths[i % articlePaths.length]!, { headers: { 'User-Agent': probe } })));
      return servedByReplacement.test(nginx.accessLog());
    },
    { everyMs: 250 },
  );
});
