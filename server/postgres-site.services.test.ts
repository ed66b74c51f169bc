// The site on the PostgreSQL store, as two workers of a fleet would run it: two sites, each with
// its own store (pool and LISTEN connection) on one throwaway cluster. A push through one is
// served by the other, told by NOTIFY; a preview link works on both; and server rendering
// costs at most one query per page view however many readers come at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startCluster, type Cluster } from '../scripts/db/cluster';
import { openContent } from './content/open';
import type { PostgresStore } from './content/postgres';
import { seedPostgres } from './content/postgres-seed';
import { generateArticles } from './content/seed';
import { loadConfig } from './config';
import { previewBanner, previewPath } from './preview';
import { serveTestSite, textOf, type TestServer } from '../test/server';

/** Resolves with how long `check` took to come true; fails past `withinMs`, a ceiling far above any honest wait. */
async function until(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > withinMs) assert.fail(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - started;
}

const token = 'ingest-token-for-tests-0123456789abcdef';
const secret = 'preview-secret-for-tests-0123456789abcdef';
const env = { INGEST_TOKEN: token, PREVIEW_SECRET: secret };
const seeded = { published: 300, drafts: 5 } as const;

let cluster: Cluster;
type Site = TestServer;
let a: Site;
let b: Site;

async function serve(): Promise<Site> {
  const config = loadConfig({ CONTENT_DATABASE_URL: cluster.url, CONTENT_TIMEOUT_MS: '2000' });
  return serveTestSite(await openContent(config.content, config), env);
}

function stats(site: Site) {
  return (site.parts.store as PostgresStore).stats();
}

before(async () => {
  cluster = await startCluster({ migrate: true });
  await seedPostgres(cluster.url, seeded);
  [a, b] = await Promise.all([serve(), serve()]);
  await until(async () => stats(a).listening && stats(b).listening, 10_000);
});

after(async () => {
  await Promise.all([a?.close(), b?.close()]);
  cluster?.destroy();
});

const id = '202611221500000001';
const pushed = {
  section: 'world',
  status: 'published',
  title: 'Harbour reopens after the storm',
  lead: 'Ferries run again from the morning tide.',
  author: 'Kiosk Desk',
  image: { src: '/media/harbour.svg', alt: 'The harbour at dawn', caption: 'Boats wait', credit: 'Kiosk', width: 1200, height: 675 },
  publishedAt: '2026-11-22T15:00:00Z',
  body: [{ type: 'paragraph', text: 'The harbour reopened at six.' }],
};

/** The CMS's clock: each write of the story a minute after the last, as the pushes are ordered by it. */
let modified = Date.parse(pushed.publishedAt);
function nextModifiedAt(): string {
  modified += 60_000;
  return new Date(modified).toISOString();
}

function put(site: Site, body: object) {
  return fetch(`${site.baseUrl}/api/ingest/articles/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...body, modifiedAt: nextModifiedAt() }),
  });
}

describe('the site on PostgreSQL, two workers', () => {
  // The ceilings are generous (a loaded two-core machine must not fail them); how long each
  // took is printed, and the bench and the fleet run measure visibility.
  test("a push through worker A is on worker B's front page and article page; an update and unpublishing too", async (t) => {
    // B has its front page kept before the push: only the notification can tell it.
    assert.equal((await fetch(`${b.baseUrl}/`)).status, 200);
    const response = await put(a, pushed);
    assert.equal(response.status, 201);
    const published = await until(async () => (await (await fetch(`${b.baseUrl}/`)).text()).includes(pushed.title), 10_000);
    assert.equal((await fetch(`${b.baseUrl}/world/${id}`)).status, 200);
    assert.equal((await put(a, { ...pushed, title: 'Harbour reopens: first ferry in' })).status, 200);
    const updated = await until(async () => textOf(await (await fetch(`${b.baseUrl}/world/${id}`)).text()).includes('first ferry in'), 10_000);

    const removed = await fetch(`${b.baseUrl}/api/ingest/articles/${id}?modifiedAt=${nextModifiedAt()}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(removed.status, 200);
    const unpublished = await until(async () => (await fetch(`${a.baseUrl}/world/${id}`)).status === 404, 10_000);
    t.diagnostic(`seen on the other worker after ${[published, updated, unpublished].map((ms) => Math.round(ms)).join(', ')} ms (push, update, unpublish)`);
  });

  test('a preview link opens the draft on both workers', async () => {
    assert.equal((await put(b, { ...pushed, status: 'draft', title: 'Embargoed: harbour plan' })).status, 200);
    const link = previewPath(id, 600, secret);
    for (const site of [a, b]) {
      const response = await fetch(site.baseUrl + link);
      assert.equal(response.status, 200);
      const html = await response.text();
      assert.ok(html.includes(previewBanner) && html.includes('Embargoed: harbour plan'));
    }
    assert.equal((await fetch(`${a.baseUrl}/world/${id}`)).status, 404);
  });

  test('queries per page view: at most one at 1x, and fewer, not more, at 5x', async (t) => {
    const ids = [...generateArticles(seeded)].filter((x) => x.status === 'published').slice(0, 40);
    const paths = ['/', '/news', '/sport', ...ids.map((x) => `/${x.section}/${x.id}`)];
    async function perView(concurrency: number): Promise<number> {
      // A change elsewhere empties what the worker keeps: every round starts cold.
      await seedPostgres(cluster.url, { ...seeded, reset: true });
      await until(async () => ((await (await fetch(`${a.baseUrl}/api/latest`)).json()) as { items: unknown[] }).items.length > 0, 2_000);
      const before = stats(a).queries;
      let views = 0;
      for (let round = 0; round < 3; round += 1) {
        const requests = paths.flatMap((p) => Array.from({ length: concurrency }, () => p));
        const statuses = await Promise.all(requests.map(async (p) => (await fetch(a.baseUrl + p)).status));
        assert.ok(
          statuses.every((s) => s === 200),
          statuses.join(),
        );
        views += requests.length;
      }
      return (stats(a).queries - before) / views;
    }
    const at1 = await perView(1);
    const at5 = await perView(5);
    t.diagnostic(`queries per page view (43 pages, 3 rounds, cold start): ${at1.toFixed(3)} at 1x, ${at5.toFixed(3)} at 5x`);
    assert.ok(at1 <= 1, `${at1} at 1x`);
    assert.ok(at5 <= at1, `${at5} at 5x vs ${at1} at 1x`);
  });
});
