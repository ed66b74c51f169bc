// Admission in Nginx, with real Nginx in front of the real built cluster (per-worker ports):
// Nginx holds each worker to its limits and, when none has room, answers itself from disk.
// Workers are held at their limits by stopping them (test/held-workers.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../server/config';
import { previewPath } from '../../server/preview';
import { nginxStaticEtag, shellFilePath } from '../../server/shell-file';
import { connectionsAt, settlesWithin, signalWorkers as signalAll, untilHeld } from '../../test/held-workers';
import { childPids, freePort, freePortRange, seedTempStore, startBuiltServer, type BuiltServer } from '../../test/server';
import { waitFor, waitForValue } from '../../test/wait';
import { startLocalNginx, type LocalNginx } from './local';
import { admissionOf, root } from './render';

const workers = 2;
const secret = 'p'.repeat(40);
const token = 't'.repeat(40);
const env = {
  LISTEN_MODE: 'per-worker',
  WEB_CONCURRENCY: String(workers),
  SSR_QUEUE_LIMIT: '2',
  CRAWLER_QUEUE_LIMIT: '3',
  API_QUEUE_LIMIT: '1',
  PREVIEW_SECRET: secret,
  INGEST_TOKEN: token,
};

let dir: string;
let cluster: BuiltServer;
let nginx: LocalNginx;
let baseUrl: string;
let fallbackLog: string;
let articles: { path: string; id: string }[];
let metricsPort: number;
let workerPorts: number[];

before(async () => {
  let dbPath: string;
  ({ dir, dbPath } = await seedTempStore(300, 5));
  const firstPort = await freePortRange(workers);
  workerPorts = Array.from({ length: workers }, (_, i) => firstPort + i);
  fallbackLog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-fallback-')), 'fallback.log');
  metricsPort = await freePort();
  cluster = await startBuiltServer(dbPath, { ...env, PORT: String(firstPort), NGINX_FALLBACK_LOG: fallbackLog, METRICS_PORT: String(metricsPort) });
  const nginxPort = await freePort();
  nginx = await startLocalNginx({
    listen: `127.0.0.1:${nginxPort}`,
    workerPorts,
    workerProcesses: 1,
    admission: admissionOf(loadConfig({ ...env, PORT: String(firstPort) })),
    fallbackLog,
  });
  baseUrl = `http://127.0.0.1:${nginxPort}`;
  const latest = JSON.parse((await get('/api/latest')).body) as { items: { section: string; id: string }[] };
  articles = latest.items.map(({ section, id }) => ({ path: `/${section}/${id}`, id }));
  assert.ok(articles.length >= 10);
});

after(async () => {
  signalWorkers('SIGCONT');
  await nginx?.stop();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(path.dirname(fallbackLog), { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(pathname: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // A new connection each: a request held by a stopped worker must not hold up the next.
    const req = http.request(baseUrl + pathname, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function signalWorkers(signal: NodeJS.Signals): void {
  signalAll(cluster.process.pid!, signal);
}

/** Waits until exactly `count` requests wait at the stopped workers, and stay: Nginx has handed each one over. */
async function untilWaitingAtWorkers(count: number, what: string): Promise<void> {
  await untilHeld(workerPorts, nginx.process.pid!, count, what);
}

/**
 * Stops every worker and fills its slots through Nginx: two page slots per worker, one API slot
 * per worker (one more page slot stays for crawlers). Resolves once Nginx holds them all.
 */
async function fillEveryWorker(firstArticle: number): Promise<{ heldPages: Promise<Answer>[]; heldApi: Promise<Answer>[] }> {
  signalWorkers('SIGSTOP');
  const heldPages = Array.from({ length: 2 * workers }, (_, i) => get(articles[firstArticle + i]!.path));
  const heldApi = Array.from({ length: workers }, (_, i) => get(`/api/articles/${articles[i]!.id}`));
  await untilWaitingAtWorkers(3 * workers, 'every page and API slot taken at the stopped workers');
  for (const held of [...heldPages, ...heldApi]) assert.equal(await settlesWithin(held, 0), false, 'a request within the limits waits for its worker');
  return { heldPages, heldApi };
}

test('every worker at its limit: pages get the shell from Nginx, the API a JSON 503; health, preview, ingestion and newsletter sign-ups reach Node; SSR resumes when a slot frees', async () => {
  const shellBytes = fs.readFileSync(shellFilePath(path.join(root, 'dist')), 'utf8');
  // Before: a page through Nginx is server-rendered by Node.
  const before = await get(articles[0]!.path);
  assert.equal(before.headers['x-render-mode'], 'ssr');

  try {
    const { heldPages, heldApi } = await fillEveryWorker(1);
    // What is counted is Nginx's: a request another process sends a stopped worker's port (a
    // client of another test on this machine) waits there too, and is not one of them.
    const stray = net.connect(workerPorts[0]!, '127.0.0.1', () => stray.write('GET /healthz HTTP/1.1\r\nHost: stray\r\n\r\n'));
    stray.on('error', () => {});
    try {
      await waitFor('the stray request at the stopped worker', () =>
        connectionsAt(workerPorts, nginx.process.pid!).some(({ ours, unread }) => !ours && unread > 0),
      );
      await untilWaitingAtWorkers(3 * workers, 'the stray request not counted');
    } finally {
      stray.destroy();
    }

    const shell = await get(articles[6]!.path);
    assert.equal(shell.status, 200);
    assert.equal(shell.headers['x-render-mode'], 'shell');
    assert.equal(shell.body, shellBytes, 'the bytes the build wrote, which are the bytes Node serves');
    assert.equal(shell.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(shell.headers['cache-control'], 'public, max-age=0, s-maxage=2');
    assert.match(String(shell.headers['content-security-policy']), /script-src 'self'/);
    assert.equal(shell.headers['x-content-type-options'], 'nosniff');
    assert.equal(shell.headers['x-frame-options'], 'DENY');
    assert.equal(shell.headers['referrer-policy'], 'strict-origin-when-cross-origin');
    assert.match(String(shell.headers['strict-transport-security']), /max-age=31536000/);
    // The ETag a worker gives the same file (server/shell-file.ts), so either can answer a 304.
    const etag = shell.headers.etag!;
    assert.equal(etag, nginxStaticEtag(fs.statSync(shellFilePath(path.join(root, 'dist')))));
    const revalidated = await get(articles[7]!.path, { headers: { 'If-None-Match': etag } });
    assert.equal(revalidated.status, 304);
    const head = await get(articles[8]!.path, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['x-render-mode'], 'shell');

    const busy = await get(`/api/articles/${articles[9]!.id}`);
    assert.equal(busy.status, 503);
    assert.equal(busy.headers['retry-after'], '5');
    assert.match(busy.headers['content-type'] ?? '', /^application\/json/);
    assert.equal((JSON.parse(busy.body) as { error: { code: string } }).error.code, 'unavailable');

    // A crawler still has a slot of its own: it waits for Node rather than taking the shell.
    const crawler = get(articles[10]!.path, { headers: { 'User-Agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' } });
    const health = get('/healthz');
    const preview = get(previewPath(articles[2]!.id, 600, secret));
    const ingest = get(`/api/ingest/articles/${articles[3]!.id}?modifiedAt=${new Date().toISOString()}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${token}` },
    });
    // A reader's sign-up must reach Node, never become the shell (or the 405 a POST to a file gets).
    const signup = get('/newsletter', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'email=reader%40example.com&newsletters=morning',
    });
    // Each of the five reaches a stopped worker, and so gets no fallback answer.
    await untilWaitingAtWorkers(3 * workers + 5, 'the crawler, health check, preview, ingestion and sign-up at the workers');
    for (const [what, pending] of [
      ['crawler', crawler],
      ['health check', health],
      ['preview', preview],
      ['ingestion', ingest],
      ['newsletter sign-up', signup],
    ] as const) {
      assert.equal(await settlesWithin(pending, 0), false, `${what}: no fallback answer, it waits for Node`);
    }

    signalWorkers('SIGCONT');
    for (const held of heldPages) assert.equal((await held).headers['x-render-mode'], 'ssr');
    for (const held of heldApi) assert.equal((await held).status, 200);
    assert.equal((await crawler).headers['x-render-mode'], 'ssr');
    assert.equal((await health).status, 200);
    const previewed = await preview;
    assert.equal(previewed.status, 200);
    assert.match(String(previewed.headers['x-robots-tag']), /noindex/);
    assert.equal((await ingest).status, 200);
    const signedUp = await signup;
    assert.equal(signedUp.status, 200);
    assert.match(signedUp.body, /We have noted reader@example\.com/);
    const after = await get(articles[11]!.path);
    assert.equal(after.headers['x-render-mode'], 'ssr', 'a free slot: server rendering again');
  } finally {
    signalWorkers('SIGCONT');
  }

  // Nginx's own answers go to the fallback log only (the primary counts it), not
  // to the main access log, where Node's answers are, and no error-log line for them. The access
  // log is flushed within a second: wait for the last request's line.
  await waitFor('the last request in the access log', () => nginx.accessLog().includes(`"GET ${articles[11]!.path} HTTP/1.1" 200`));
  const access = nginx.accessLog();
  assert.doesNotMatch(access, /answer=nginx-/);
  assert.match(access, /answer=ssr/);
  assert.doesNotMatch(nginx.errors(), /no live upstreams/);
});

test('the primary counts the fallback answers Nginx logged, on /metrics, and empties the file', async () => {
  // Counted from what this test sends: first whatever earlier answers left, read and emptied.
  // Nginx holds its fallback lines in a buffer it writes each second, so an earlier test's may
  // still be on their way: the baseline is the count once it has stood still, the file empty,
  // for longer than that second.
  const counts = async () => {
    const logged = fs.statSync(fallbackLog).size;
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const count = (answer: string) => Number(new RegExp(`^kiosk_nginx_fallback_answers_total\\{answer="${answer}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    return { logged, shell: count('shell'), busy: count('503') };
  };
  let seen = { logged: -1, shell: -1, busy: -1 };
  let stillSince = performance.now();
  const before = await waitForValue(
    'the fallback counts settled, the file emptied',
    counts,
    (c) => {
      if (c.logged !== 0 || c.shell !== seen.shell || c.busy !== seen.busy) {
        seen = c;
        stillSince = performance.now();
        return false;
      }
      return performance.now() - stillSince > 1_500;
    },
    { everyMs: 100 },
  );

  const held: Promise<Answer>[] = [];
  try {
    const filled = await fillEveryWorker(1);
    held.push(...filled.heldPages, ...filled.heldApi);
    for (const i of [5, 6]) assert.equal((await get(articles[i]!.path)).headers['x-render-mode'], 'shell');
    assert.equal((await get(`/api/articles/${articles[7]!.id}`)).status, 503);
  } finally {
    signalWorkers('SIGCONT');
  }
  await Promise.all(held);

  await waitForValue(
    'two more shells and one more 503 counted, the file emptied',
    counts,
    (c) => c.logged === 0 && c.shell === before.shell + 2 && c.busy === before.busy + 1,
  );
});

test('a killed worker: its GETs are retried on the other, none fails', async () => {
  const [victim] = childPids(cluster.process.pid!);
  process.kill(victim!, 'SIGKILL');
  const answers = [];
  // Articles no other test changes (the first unpublishes articles[3]), so it passes alone or after them.
  for (let i = 0; i < 20; i++) answers.push(await get(articles[4 + (i % 6)]!.path));
  assert.deepEqual(
    answers.map((a) => a.status),
    Array(20).fill(200),
  );
  assert.ok(
    answers.every((a) => a.headers['x-render-mode'] === 'ssr'),
    'server-rendered by the worker still up',
  );
});
