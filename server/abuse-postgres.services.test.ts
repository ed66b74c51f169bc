// The write paths under one client's abuse with the fleet's store: the production build on a
// throwaway PostgreSQL cluster (scripts/db/cluster.ts). The same cases as abuse.services.test.ts where
// the store decides the outcome: made-up ids, a flood from one address, an hour of the worst
// flood the bounds allow, thousands of sign-ups, a sign-ups table another session has locked.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import { startCluster, type Cluster } from '../scripts/db/cluster';
import { seedPostgres } from './content/postgres-seed';
import { postgresViews } from './content/postgres-views';
import { minuteOf } from './content/views-window';
import { emptyPost, flood } from '../test/flood';
import { median } from '../scripts/statistics';
import { startBuiltServer, type BuiltServer } from '../test/server';
import { waitForValue } from '../test/wait';

let cluster: Cluster;
let sql: postgres.Sql;
let ids: string[];
let draftId: string;
const noSqlite = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-abuse-pg-')), 'unused.sqlite');

before(async () => {
  cluster = await startCluster({ migrate: true });
  await seedPostgres(cluster.url, { published: 300, drafts: 5 });
  sql = postgres(cluster.url, { max: 2, onnotice: () => undefined });
  ids = (await sql<{ id: string }[]>`SELECT id FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT 50`).map((r) => r.id);
  draftId = (await sql<{ id: string }[]>`SELECT id FROM articles WHERE status = 'draft' LIMIT 1`)[0]!.id;
});

after(async () => {
  await sql?.end();
  cluster?.destroy();
  fs.rmSync(path.dirname(noSqlite), { recursive: true, force: true });
});

function start(env: Record<string, string> = {}): Promise<BuiltServer> {
  return startBuiltServer(noSqlite, { CONTENT_DATABASE_URL: cluster.url, WEB_CONCURRENCY: '1', CLIENT_ADDRESS_HOPS: '1', ...env });
}

const madeUp = (n: number) => `209912312359${String(n).padStart(6, '0')}`;
const sameSite = { 'Sec-Fetch-Site': 'same-origin' };

async function clearViews(): Promise<void> {
  await sql`DELETE FROM article_views`;
  await sql`DELETE FROM article_view_totals`;
}

async function storedViews(): Promise<Map<string, number>> {
  const rows = await sql<{ article_id: string; views: string }[]>`SELECT article_id, sum(views) AS views FROM article_views GROUP BY article_id`;
  return new Map(rows.map((r) => [r.article_id, Number(r.views)]));
}

function signUp(base: string, email: string, from: string): Promise<Response> {
  return fetch(`${base}/newsletter`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': from, ...sameSite },
    body: new URLSearchParams({ email, newsletters: 'morning' }),
  });
}

describe('views on PostgreSQL', () => {
  test('made-up ids and drafts are refused; most read ranks the real leader', async () => {
    await clearViews();
    const server = await start({ VIEWS_FLUSH_S: '1' });
    try {
      const leader = ids[10]!;
      for (let reader = 0; reader < 3; reader += 1) {
        const res = await fetch(`${server.baseUrl}/api/views/${leader}`, { method: 'POST', headers: { 'X-Forwarded-For': `192.0.2.${reader}`, ...sameSite } });
        assert.equal(res.status, 204);
      }
      const statuses = new Set<number>();
      for (const id of [...Array.from({ length: 30 }, (_, n) => madeUp(n)), draftId]) {
        for (let reader = 0; reader < 5; reader += 1) {
          statuses.add(
            (await fetch(`${server.baseUrl}/api/views/${id}`, { method: 'POST', headers: { 'X-Forwarded-For': `198.51.100.${reader}`, ...sameSite } })).status,
          );
        }
      }
      assert.deepEqual([...statuses], [404]);
      const items = await waitForValue(
        'a story in most read',
        async () => ((await (await fetch(`${server.baseUrl}/api/most-read`)).json()) as { items: { id: string }[] }).items,
        (ranked) => ranked.length > 0,
      );
      assert.equal(items[0]?.id, leader);
      assert.deepEqual([...(await storedViews()).keys()], [leader]);
    } finally {
      await server.stop();
    }
  });

  test('100,000 beacons from one address hide no real reader', async () => {
    await clearViews();
    const server = await start({ VIEWS_FLUSH_S: '60' });
    try {
      const requests = Array.from({ length: 100_000 }, (_, n) =>
        emptyPost(`/api/views/${n % 2 === 0 ? madeUp(n) : ids[n % 40]}`, { 'X-Forwarded-For': '203.0.113.66', ...sameSite }),
      );
      const flooded = await flood(server.baseUrl, requests, 32);
      assert.equal(flooded.unanswered, 0);
      assert.equal(flooded.statuses.get(500) ?? 0, 0);
      const read = ids[45]!;
      const answers = await Promise.all(
        Array.from({ length: 93 }, (_, reader) =>
          fetch(`${server.baseUrl}/api/views/${read}`, { method: 'POST', headers: { 'X-Forwarded-For': `192.0.2.${reader}`, ...sameSite } }),
        ),
      );
      assert.deepEqual([...new Set(answers.map((r) => r.status))], [204]);
      assert.equal(await server.stop(), 0);
      const stored = await storedViews();
      assert.equal(stored.get(read), 93, 'every real reader counted');
      assert.ok([...stored.keys()].every((id) => ids.includes(id)));
    } finally {
      await server.stop();
    }
  });

  test('with an hour of the worst flood the bounds allow in the store, most read and the health check stay fast', async () => {
    await clearViews();
    const published = (await sql<{ id: string }[]>`SELECT id FROM articles WHERE status = 'published'`).map((r) => r.id);
    const views = postgresViews(sql, { timeoutMs: 10_000 });
    const now = minuteOf(Date.now());
    for (let minute = now - 59; minute <= now; minute += 1) {
      assert.deepEqual(await views.record(minute, new Map(published.map((id, n) => [id, 1 + ((n * 7 + minute) % 50)]))), new Map());
    }
    const server = await start();
    try {
      const timings = { mostRead: [] as number[], healthz: [] as number[] };
      for (let i = 0; i < 11; i += 1) {
        for (const [name, url] of [
          ['mostRead', '/api/most-read?limit=10'],
          ['healthz', '/healthz'],
        ] as const) {
          const started = performance.now();
          const res = await fetch(server.baseUrl + url);
          await res.arrayBuffer();
          timings[name].push(performance.now() - started);
          assert.equal(res.status, 200);
        }
        // The time is the case under test: past the 5 s a ranking is kept, the next reading is a fresh one.
        if (i === 5) await new Promise((r) => setTimeout(r, 5_100));
      }
      assert.ok(median(timings.mostRead) <= 10, `most read: median ${median(timings.mostRead).toFixed(1)} ms`);
      assert.ok(median(timings.healthz) <= 50, `health check: median ${median(timings.healthz).toFixed(1)} ms`);
    } finally {
      await server.stop();
      await clearViews();
    }
  });
});

describe('sign-ups on PostgreSQL', () => {
  let server: BuiltServer;
  before(async () => {
    server = await start();
  });
  after(async () => {
    await server?.stop();
  });

  test('3,000 sign-ups from one client: a handful accepted, the rest 429; a real reader still signs up', async () => {
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 30; batch += 1) {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, n) => signUp(server.baseUrl, `flood${batch * 100 + n}@example.com`, '203.0.113.77')));
      for (const res of answers) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    assert.deepEqual([...statuses.keys()].sort(), [200, 429], JSON.stringify([...statuses]));
    assert.ok(statuses.get(200)! <= 5);
    assert.equal((await signUp(server.baseUrl, 'reader@example.com', '192.0.2.10')).status, 200);
    const n = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM newsletter_signups WHERE address LIKE 'flood%'`)[0]!.n;
    assert.ok(n <= 5, `${n} flood sign-ups kept`);
  });

  test('a locked sign-ups table: 503 with Retry-After within a second, and every sign-up answered 200 is kept', async () => {
    const holder = postgres(cluster.url, { max: 1, onnotice: () => undefined });
    const accepted: string[] = [];
    try {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holding = holder.begin(async (tx) => {
        await tx`LOCK TABLE newsletter_signups IN EXCLUSIVE MODE`;
        locked();
        await released;
      });
      await isLocked;
      const started = performance.now();
      const during = await signUp(server.baseUrl, 'during@example.com', '192.0.2.21');
      const answeredMs = performance.now() - started;
      const health = await fetch(`${server.baseUrl}/healthz`);
      release();
      await holding;
      assert.equal(during.status, 503);
      assert.ok(Number(during.headers.get('retry-after')) > 0);
      assert.match(await during.text(), /nothing was saved/);
      assert.ok(answeredMs < 1_000, `answered after ${Math.round(answeredMs)} ms`);
      assert.equal(health.status, 200);
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          const email = `after${n}@example.com`;
          const res = await signUp(server.baseUrl, email, `192.0.2.${40 + n}`);
          if (res.status === 200) accepted.push(email);
          return res.status;
        }),
      );
      assert.deepEqual([...new Set(answers)], [200]);
      const stored = new Set((await sql<{ address: string }[]>`SELECT address FROM newsletter_signups`).map((r) => r.address));
      for (const email of accepted) assert.ok(stored.has(email), `${email} was answered 200 and is kept`);
      assert.ok(!stored.has('during@example.com'));
    } finally {
      await holder.end();
    }
  });
});
