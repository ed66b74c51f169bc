// The database must not be the spike's victim: the built server (two workers) on a throwaway
// PostgreSQL, under steady requests, while PostgreSQL stops for a few seconds and comes back.
// Every answer is a page (kept answers, stale within CONTENT_STALE_S) or the short 503 with
// Retry-After, none a 500, none hung; and the workers recover by themselves.
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startCluster, type Cluster } from '../scripts/db/cluster';
import { openPostgresStore } from './content/postgres';
import { seedPostgres } from './content/postgres-seed';
import { generateArticles } from './content/seed';
import { startBuiltServer, type BuiltServer } from '../test/server';
import { waitFor } from '../test/wait';

const seeded = { published: 300, drafts: 5 } as const;
const timeoutMs = 1_000;
/**
 * An answer later than this is called hung. Far above the query deadline plus rendering on any
 * machine, yet an answer that waited for a frozen database (below) would never come at all.
 */
const hungMs = 20_000;
let cluster: Cluster;
let server: BuiltServer;

const published = [...generateArticles(seeded)].filter((a) => a.status === 'published');
const warm = ['/', '/news', '/sport', ...published.slice(0, 10).map((a) => `/${a.section}/${a.id}`), '/api/front', '/api/latest'];
// Never read before the outage: nothing kept can stand in for these.
const cold = published.slice(100, 110).map((a) => `/${a.section}/${a.id}`);

before(async () => {
  cluster = await startCluster({ migrate: true });
  await seedPostgres(cluster.url, seeded);
  server = await startBuiltServer(path.join(os.tmpdir(), 'kiosk-no-sqlite-here.sqlite'), {
    CONTENT_DATABASE_URL: cluster.url,
    CONTENT_TIMEOUT_MS: String(timeoutMs),
    WEB_CONCURRENCY: '2',
  });
});

after(async () => {
  await server?.stop();
  cluster?.destroy();
});

interface Answer {
  path: string;
  status: number | 'hung' | 'error';
  ms: number;
  retryAfter: string | null;
  phase: string;
}

async function ask(p: string, phase: string): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(server.baseUrl + p, { signal: AbortSignal.timeout(hungMs) });
    await response.arrayBuffer();
    return { path: p, status: response.status, ms: performance.now() - started, retryAfter: response.headers.get('retry-after'), phase };
  } catch (error) {
    const status = (error as Error).name === 'TimeoutError' ? 'hung' : 'error';
    return { path: p, status, ms: performance.now() - started, retryAfter: null, phase };
  }
}

test('PostgreSQL stopped for 4 s under requests: pages or the short 503, never a 500 or a hang; recovery without a restart', { timeout: 90_000 }, async (t) => {
  // Every worker reads the warm pages once (least busy first: a few rounds reach both).
  for (let round = 0; round < 4; round += 1) await Promise.all(warm.map((p) => ask(p, 'warm')));

  const answers: Answer[] = [];
  let phase = 'before';
  let running = true;
  const clients = Array.from({ length: 4 }, async (_, c) => {
    for (let i = c; running; i += 1) {
      const paths = i % 5 === 4 && phase !== 'before' ? cold : warm;
      answers.push(await ask(paths[i % paths.length]!, phase));
    }
  });
  const answered = (phaseName: string) => answers.filter((a) => a.phase === phaseName).length;
  // A steady load first (about a second of it on this machine), so every worker serves the warm
  // pages from its cache, and reads nothing in the background, when the database goes.
  await waitFor('requests answered before the outage', () => answered('before') >= 300);
  phase = 'down';
  cluster.stop();
  // The outage's length is the case under test: long enough for every kept connection to fail.
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  phase = 'restarting';
  cluster.start();
  const back = performance.now();
  phase = 'after';
  // Recovery: a page never read before is served again, without restarting anything.
  await waitFor('a page never read before, served after the database returned', async () => (await ask(cold[0]!, 'probe')).status === 200, { everyMs: 100 });
  const recoveredMs = performance.now() - back;
  await waitFor('requests answered after the recovery', () => answered('after') >= 100);
  running = false;
  await Promise.all(clients);

  const count = (phaseName: string, status: Answer['status']) => answers.filter((a) => a.phase === phaseName && a.status === status).length;
  t.diagnostic(
    `${answers.length} requests; down: ${count('down', 200)} pages, ${count('down', 503)} 503s; after: ${count('after', 200)} pages; ` +
      `recovered ${Math.round(recoveredMs)} ms after the database returned; slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms`,
  );
  const bad = answers.filter((a) => ![200, 503].includes(a.status as number));
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} answers were neither a page nor the 503`);
  for (const a of answers.filter((x) => x.status === 503)) assert.equal(a.retryAfter, '5', `${a.path}: the 503 says when to retry`);
  assert.ok(count('before', 200) > 0 && count('after', 200) > 0);
  assert.ok(count('down', 200) > 0, 'kept pages were served while the database was down');
  assert.ok(count('down', 503) > 0, 'pages nothing could stand in for were the short 503');
  assert.equal(count('before', 503), 0);
  assert.doesNotMatch(server.output(), /"level":"error"/, 'no request failed as an internal error');

  // The workers' LISTEN connections came back too, or their kept answers expire while not
  // listening (CONTENT_FRESH_S): either way a change made now reaches both workers.
  const writer = openPostgresStore({
    url: cluster.url,
    poolSize: 1,
    timeoutMs: 2_000,
    unlistenedFreshMs: 1_000,
    listen: false,
  });
  try {
    const [template] = generateArticles({ published: 1, drafts: 0, seed: 5 });
    const article = { ...template!, id: '202611222200000001', publishedAt: '2026-11-22T22:00:00.000Z', updatedAt: '2026-11-22T22:00:00.000Z' };
    await writer.upsert(article, { modifiedAt: article.updatedAt });
    const written = performance.now();
    await waitFor('the change on both workers', async () => {
      const answers = await Promise.all(
        [0, 1, 2, 3].map(() => fetch(`${server.baseUrl}/api/latest`).then((r) => r.json() as Promise<{ items: { id: string }[] }>)),
      );
      return answers.every((a) => a.items[0]?.id === article.id);
    });
    t.diagnostic(`a change after the outage was seen by the workers after ${Math.round(performance.now() - written)} ms`);
  } finally {
    await writer.end();
  }
});

// The database stays frozen until every request has its answer: an answer that waited for the
// database would never come (it is called hung after hungMs), so each one that comes was given
// within the query deadline, whatever the machine's speed.
test('PostgreSQL frozen (connections open, no answers): every request answered while it is, then recovery', { timeout: 120_000 }, async (t) => {
  for (let round = 0; round < 4; round += 1) await Promise.all(warm.map((p) => ask(p, 'warm')));
  const frozenCold = published.slice(150, 160).map((a) => `/${a.section}/${a.id}`);
  cluster.pause();
  const answers: Answer[] = [];
  try {
    for (let round = 0; round < 3; round += 1) {
      answers.push(...(await Promise.all([...warm.slice(0, 3), ...frozenCold.slice(0, 3)].map((p) => ask(p, 'frozen')))));
    }
  } finally {
    cluster.resume();
  }
  const slowest = Math.max(...answers.map((a) => a.ms));
  t.diagnostic(
    `${answers.length} requests while frozen: ${answers.filter((a) => a.status === 200).length} pages, ${answers.filter((a) => a.status === 503).length} 503s, slowest ${Math.round(slowest)} ms`,
  );
  assert.deepEqual(answers.filter((a) => a.status !== 200 && a.status !== 503).slice(0, 5), [], 'every request answered while the database was frozen');
  assert.ok(answers.some((a) => a.status === 503) && answers.some((a) => a.status === 200));
  await waitFor('pages nothing stood in for, served again', async () => (await ask(frozenCold[5]!, 'probe')).status === 200, { everyMs: 100 });
});
