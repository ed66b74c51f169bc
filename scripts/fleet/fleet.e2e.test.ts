// Two instances of the built server (each a cluster of two workers) on one throwaway
// PostgreSQL, behind a health-checking stand-in for the load balancer: a push to instance A is
// served by instance B within a second and a preview link works on both; under steady load,
// every process of B is killed (SIGKILL), the failed requests are counted, B comes back and
// takes traffic again. The short variant of issue 18's fleet failure runs (no Nginx per
// instance here: the workers share their instance's port).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { previewPath } from '../../server/preview';
import { seedPostgres } from '../../server/content/postgres-seed';
import { generateArticles } from '../../server/content/seed';
import { freePort, startBuiltServer, type BuiltServer } from '../../server/testing';
import { startCluster, type Cluster } from '../db/cluster';
import { startFrontProxy, type FrontProxy } from './front-proxy';

const token = 'ingest-token-for-tests-0123456789abcdef';
const secret = 'preview-secret-for-tests-0123456789abcdef';
const seeded = { published: 300, drafts: 5 } as const;
let database: Cluster;
let ports: { a: number; b: number };
let a: BuiltServer;
let b: BuiltServer;
let proxy: FrontProxy;

function startInstance(port: number): Promise<BuiltServer> {
  return startBuiltServer(path.join(os.tmpdir(), 'kiosk-fleet-no-sqlite.sqlite'), {
    PORT: String(port),
    WEB_CONCURRENCY: '2',
    CONTENT_DATABASE_URL: database.url,
    INGEST_TOKEN: token,
    PREVIEW_SECRET: secret,
  });
}

/** The primary and its workers, found by parent id: every process of the instance. */
function processesOf(server: BuiltServer): number[] {
  const primary = server.process.pid!;
  const children = fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === primary;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [primary, ...children];
}

before(async () => {
  database = await startCluster({ migrate: true });
  await seedPostgres(database.url, seeded);
  ports = { a: await freePort(), b: await freePort() };
  [a, b] = await Promise.all([startInstance(ports.a), startInstance(ports.b)]);
  proxy = await startFrontProxy([
    { name: 'A', url: a.baseUrl },
    { name: 'B', url: b.baseUrl },
  ]);
});

after(async () => {
  await proxy?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  database?.destroy();
});

test('a push to instance A is served by instance B within 1 s, and a preview link works on both', async (t) => {
  await fetch(`${b.baseUrl}/`);
  const id = '202611221600000001';
  const started = performance.now();
  const pushed = await fetch(`${a.baseUrl}/api/ingest/articles/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      section: 'news',
      status: 'published',
      title: 'Fleet-wide: the bridge reopens',
      lead: 'Traffic crosses again from noon.',
      author: 'Kiosk Desk',
      image: { src: '/media/bridge.svg', alt: 'The bridge', caption: 'Noon', credit: 'Kiosk', width: 1200, height: 675 },
      publishedAt: '2026-11-22T16:00:00Z',
      body: [{ type: 'paragraph', text: 'The bridge reopened at noon.' }],
    }),
  });
  assert.equal(pushed.status, 201);
  let seenMs = -1;
  while (performance.now() - started < 1_000) {
    // Both of B's workers: the cluster hands requests round robin.
    const pages = await Promise.all([0, 1, 2, 3].map(async () => (await fetch(`${b.baseUrl}/`)).text()));
    if (pages.every((html) => html.includes('Fleet-wide: the bridge reopens'))) {
      seenMs = performance.now() - started;
      break;
    }
  }
  t.diagnostic(`instance B served the push to A after ${Math.round(seenMs)} ms`);
  assert.ok(seenMs >= 0, 'B served it within 1 s');

  const draftId = '202611221600000002';
  const draft = await fetch(`${b.baseUrl}/api/ingest/articles/${draftId}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      section: 'news',
      status: 'draft',
      title: 'Embargoed: the bridge budget',
      lead: 'Not before Monday.',
      author: 'Kiosk Desk',
      image: { src: '/media/bridge.svg', alt: 'The bridge', caption: 'Noon', credit: 'Kiosk', width: 1200, height: 675 },
      publishedAt: '2026-11-22T16:00:00Z',
      body: [{ type: 'paragraph', text: 'Figures to follow.' }],
    }),
  });
  assert.equal(draft.status, 201);
  const link = previewPath(draftId, 600, secret);
  for (const instance of [a, b]) {
    const response = await fetch(instance.baseUrl + link);
    assert.equal(response.status, 200);
    assert.ok((await response.text()).includes('Embargoed: the bridge budget'));
  }
});

test('every process of instance B killed under steady load: failures counted, traffic moves to A, B comes back', { timeout: 90_000 }, async (t) => {
  const paths = ['/', '/news', ...[...generateArticles(seeded)].filter((x) => x.status === 'published').slice(0, 20).map((x) => `/${x.section}/${x.id}`)];
  interface Sample {
    atMs: number;
    ok: boolean;
    instance: string | null;
  }
  const samples: Sample[] = [];
  const inFlight = new Set<Promise<void>>();
  let i = 0;
  // Open loop, 100 requests a second, whatever the answers take.
  const load = setInterval(() => {
    const p = paths[i++ % paths.length]!;
    const sent = performance.now();
    const request = fetch(proxy.url + p, { signal: AbortSignal.timeout(5_000) })
      .then(async (response) => {
        await response.arrayBuffer();
        samples.push({ atMs: sent, ok: response.status === 200, instance: response.headers.get('x-fleet-instance') });
      })
      .catch(() => {
        samples.push({ atMs: sent, ok: false, instance: null });
      })
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  }, 10);

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await sleep(2_000);
  const killedAt = performance.now();
  for (const pid of processesOf(b)) process.kill(pid, 'SIGKILL');
  await b.exited;
  await sleep(4_000);
  const restartedAt = performance.now();
  b = await startInstance(ports.b);
  const bUpAt = performance.now();
  await sleep(4_000);
  clearInterval(load);
  await Promise.all(inFlight);

  const out = proxy.changes.find((c) => c.target === 'B' && !c.healthy && c.atMs > killedAt);
  const backIn = proxy.changes.find((c) => c.target === 'B' && c.healthy && c.atMs > restartedAt);
  const during = samples.filter((s) => s.atMs >= killedAt && s.atMs < restartedAt);
  const afterOut = samples.filter((s) => out && s.atMs > out.atMs && s.atMs < restartedAt);
  const afterBack = samples.filter((s) => backIn && s.atMs > backIn.atMs);
  const failed = (list: Sample[]) => list.filter((s) => !s.ok).length;
  t.diagnostic(
    `${samples.length} requests; during the kill ${failed(during)} of ${during.length} failed; B out of rotation ` +
      `${out ? Math.round(out.atMs - killedAt) : '?'} ms after the kill; B back ${backIn ? Math.round(backIn.atMs - bUpAt) : '?'} ms after it listened; ` +
      `after its return ${failed(afterBack)} of ${afterBack.length} failed, ${afterBack.filter((s) => s.instance === 'B').length} served by B`,
  );
  assert.ok(out, 'the health check took B out');
  assert.ok(failed(during) / during.length <= 0.001, `${failed(during)} of ${during.length} failed during the kill`);
  assert.equal(failed(afterOut), 0, 'nothing fails once B is out of rotation');
  assert.ok(afterOut.every((s) => s.instance === 'A'));
  assert.ok(backIn, 'B passed its health checks again');
  assert.equal(failed(afterBack), 0);
  assert.ok(afterBack.some((s) => s.instance === 'B'), 'B takes traffic again');
});
