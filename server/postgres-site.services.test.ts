// The site on the PostgreSQL store, as two workers of a fleet would run it: two sites, each with
// its own store (pool and LISTEN connection) on one throwaway cluster. A push through one is
// served by the other, told by NOTIFY; a preview link works on both; and server rendering
// costs at most one query per page view however many readers come at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startCluster, type Cluster } from '../scripts/db/cluster';
import { openPostgresStore, postgresStoreOptions, type PostgresStore } from './content/postgres';
import { seedPostgres } from './content/postgres-seed';
import { generateArticles } from './content/seed';
import { loadConfig } from './config';
import { previewBanner, previewPath } from './preview';
import { serveTestSite, textOf } from '../test/server';
import { waitFor } from '../test/wait';

const token = 'ingest-token-for-tests-0123456789abcdef';
const secret = 'preview-secret-for-tests-0123456789abcdef';
const env = { INGEST_TOKEN: token, PREVIEW_SECRET: secret };
const seeded = { published: 300, drafts: 5 } as const;

let cluster: Cluster;
type Site = Awaited<ReturnType<typeof serveTestSite<PostgresStore>>>;
let a: Site;
let b: Site;

function openStore(): PostgresStore {
  // Kept answers are read again after an hour if nothing says otherwise: only NOTIFY can move a
  // worker on within the tests' ceilings, so seeing a push at all shows the notification works.
  const config = loadConfig({ CONTENT_DATABASE_URL: cluster.url, CONTENT_TIMEOUT_MS: '2000', CONTENT_FRESH_S: '3600' });
  return openPostgresStore(postgresStoreOptions({ ...config, contentDatabaseUrl: config.contentDatabaseUrl! }));
}

async function serve(): Promise<Site> {
  const store = openStore();
  return serveTestSite(store, env, { writer: () => store });
}

before(async () => {
  cluster = await startCluster({ migrate: true });
  await seedPostgres(cluster.url, seeded);
  [a, b] = await Promise.all([serve(), serve()]);
  await waitFor('both listening', () => a.content.stats().listening && b.content.stats().listening);
});

after(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([a?.content.end(), b?.content.end()]);
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

function put(site: Site, body: unknown) {
  return fetch(`${site.baseUrl}/api/ingest/articles/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('the site on PostgreSQL, two workers', () => {
  test("a push through worker A is on worker B's front page, told by NOTIFY; unpublishing too", async () => {
    // B has its front page kept before the push: only the notification can tell it.
    assert.equal((await fetch(`${b.baseUrl}/`)).status, 200);
    const response = await put(a, pushed);
    assert.equal(response.status, 201);
    await waitFor("the push on B's front page", async () => (await (await fetch(`${b.baseUrl}/`)).text()).includes(pushed.title));
    assert.equal((await fetch(`${b.baseUrl}/world/${id}`)).status, 200);
    assert.equal((await put(a, { ...pushed, title: 'Harbour reopens: first ferry in' })).status, 200);
    await waitFor('the update on B', async () => textOf(await (await fetch(`${b.baseUrl}/world/${id}`)).text()).includes('first ferry in'));

    const removed = await fetch(`${b.baseUrl}/api/ingest/articles/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
    assert.equal(removed.status, 200);
    await waitFor('the unpublishing on A', async () => (await fetch(`${a.baseUrl}/world/${id}`)).status === 404);
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
      await waitFor(
        'the reseeded store served',
        async () => ((await (await fetch(`${a.baseUrl}/api/latest`)).json()) as { items: unknown[] }).items.length > 0,
      );
      const before = a.content.stats().queries;
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
      return (a.content.stats().queries - before) / views;
    }
    const at1 = await perView(1);
    const at5 = await perView(5);
    t.diagnostic(`queries per page view (43 pages, 3 rounds, cold start): ${at1.toFixed(3)} at 1x, ${at5.toFixed(3)} at 5x`);
    assert.ok(at1 <= 1, `${at1} at 1x`);
    assert.ok(at5 <= at1, `${at5} at 5x vs ${at1} at 1x`);
  });
});
