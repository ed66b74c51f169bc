// The shell as Nginx serves it when every worker is at its limit, read by real Chromium: the
// page renders from the JSON API (which keeps its own slots) and navigation carries on in the
// browser. SSR_QUEUE_LIMIT=0 takes no page request at all, so every page is Nginx's shell.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../server/config';
import { freePort, freePortRange, seedTempStore, startBuiltServer, type BuiltServer } from '../test/server';
import { startLocalNginx, type LocalNginx } from '../scripts/nginx/local';
import { admissionOf } from '../scripts/nginx/render';
import { latestArticlePath, launchChromium, nextNavigation, recordProblems } from '../test/browser';
import { waitFor } from '../test/wait';

const env = { LISTEN_MODE: 'per-worker', WEB_CONCURRENCY: '1', SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0' };
let dir: string;
let cluster: BuiltServer;
let nginx: LocalNginx;
let browser: Browser;
let baseUrl: string;

before(async () => {
  ({ dir } = await seedTempStore(300, 5));
  const port = await freePortRange(1);
  cluster = await startBuiltServer(`${dir}/kiosk.sqlite`, { ...env, PORT: String(port) });
  const nginxPort = await freePort();
  nginx = await startLocalNginx({
    listen: `127.0.0.1:${nginxPort}`,
    workerPorts: [port],
    workerProcesses: 1,
    admission: admissionOf(loadConfig({ ...env, PORT: String(port) })),
  });
  baseUrl = `http://127.0.0.1:${nginxPort}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await nginx?.stop();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("Nginx's shell: Chromium renders the article from /api and navigates on without a page load", async () => {
  const path = await latestArticlePath(baseUrl);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const problems = recordProblems(page);
    const response = await page.goto(baseUrl + path);
    assert.equal(response?.headers()['x-render-mode'], 'shell');
    await page.waitForSelector('html[data-kiosk-ready]');
    await page.waitForSelector('h1.article__title');
    assert.equal(await page.getAttribute('#root', 'data-render-mode'), 'shell');

    let documents = 0;
    page.on('request', (r) => r.resourceType() === 'document' && (documents += 1));
    const href = await page.getAttribute('.latest__list a >> nth=0', 'href');
    const navigated = nextNavigation(page);
    await page.click('.latest__list a >> nth=0');
    await navigated;
    assert.equal(new URL(page.url()).pathname, href);
    await page.waitForSelector('h1.article__title');
    assert.equal(documents, 0, 'no document request');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
  // Every page answer came from Nginx (its fallback log); Node answered the API (the access log,
  // which Nginx flushes within a second).
  const fallbackLines = () => (fs.existsSync(nginx.params.fallbackLog) ? fs.readFileSync(nginx.params.fallbackLog, 'utf8') : '');
  await waitFor("the shell in Nginx's fallback log", () => /^\d+\.\d+ nginx-shell kiosk_pages$/m.test(fallbackLines()));
  await waitFor('the article API answered by Node in the access log', () => /"GET \/api\/articles\/\d+ HTTP\/1\.1" 200 .* answer=-/.test(nginx.accessLog()));
});
