// The breaking-news page cache as an operator turns it on: PAGE_CACHE_TTL_MS on the built
// cluster in per-worker mode behind the repository's Nginx, as production runs. A page read
// again within the lifetime is the kept one, with a nonce of its own; a push shows at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { loadConfig } from './config';
import { admissionOf } from '../scripts/nginx/render';
import { startLocalNginx, type LocalNginx } from '../scripts/nginx/local';
import { freePort, freePortRange, seedTempStore, startBuiltServer, teasersIn, type BuiltServer } from '../test/server';

const token = 'page-cache-ingest-token-0123456789abcdef';
const env = { LISTEN_MODE: 'per-worker', WEB_CONCURRENCY: '1', PAGE_CACHE_TTL_MS: '60000', INGEST_TOKEN: token };
let dir: string;
let cluster: BuiltServer;
let nginx: LocalNginx;
let baseUrl: string;

before(async () => {
  let dbPath: string;
  ({ dir, dbPath } = await seedTempStore(300, 5));
  const port = await freePortRange(1);
  cluster = await startBuiltServer(dbPath, { ...env, PORT: String(port) });
  const nginxPort = await freePort();
  nginx = await startLocalNginx({
    listen: `127.0.0.1:${nginxPort}`,
    workerPorts: [port],
    workerProcesses: 1,
    admission: admissionOf(loadConfig({ ...env, PORT: String(port) })),
  });
  baseUrl = `http://127.0.0.1:${nginxPort}`;
});

after(async () => {
  await nginx?.stop();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const nonceOf = (html: string) => / nonce="([^"]+)"/.exec(html)?.[1];

test('PAGE_CACHE_TTL_MS through Nginx: a page read again is the kept one with a fresh nonce, and a push shows at once', async () => {
  const [teaser] = teasersIn(await (await fetch(`${baseUrl}/api/front`)).json());
  assert.ok(teaser, 'the front page lists articles');
  const path = `/${teaser.section}/${teaser.id}`;
  const first = await fetch(baseUrl + path);
  assert.equal(first.headers.get('x-render-mode'), 'ssr');
  assert.equal(first.headers.get('x-page-cache'), null, 'the first read renders');
  const firstHtml = await first.text();
  const again = await fetch(baseUrl + path);
  assert.equal(again.headers.get('x-page-cache'), 'hit');
  const againHtml = await again.text();
  const nonce = nonceOf(againHtml);
  assert.ok(nonce);
  assert.notEqual(nonce, nonceOf(firstHtml), 'each answer its own nonce');
  assert.ok(again.headers.get('content-security-policy')!.includes(`'nonce-${nonce}'`));

  const current = ((await (await fetch(`${baseUrl}/api/articles/${teaser.id}`)).json()) as { article: Record<string, unknown> }).article;
  const pushed = await fetch(`${baseUrl}/api/ingest/articles/${teaser.id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      section: current.section,
      status: 'published',
      title: 'Corrected: the kept page gives way',
      lead: current.lead,
      author: current.author,
      image: current.image,
      publishedAt: current.publishedAt,
      body: current.body,
      modifiedAt: new Date().toISOString(),
    }),
  });
  assert.equal(pushed.status, 200, await pushed.text());
  // One worker, which took the push: the kept page is dropped with it.
  const corrected = await fetch(baseUrl + path);
  assert.equal(corrected.headers.get('x-page-cache'), null);
  assert.match(await corrected.text(), /Corrected: the kept page gives way/);
});
