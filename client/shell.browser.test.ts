// The overload fallback as a reader gets it: the built server with SSR_QUEUE_LIMIT=0 answers
// every page with the shell, and real Chromium renders the page from the JSON API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sections } from '../src/sections';
import { seedTempStore, startBuiltServer, type BuiltServer } from '../test/server';
import { latestArticlePath, launchChromium, nextNavigation, recordProblems } from '../test/browser';

let server: BuiltServer;
let dir: string;
let browser: Browser;
let context: BrowserContext;

before(async () => {
  ({ dir } = await seedTempStore(1_000, 10));
  server = await startBuiltServer(`${dir}/kiosk.sqlite`, { SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0' });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await context?.close();
});

async function openShell(path: string): Promise<{ page: Page; problems: string[] }> {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = recordProblems(page);
  const response = await page.goto(server.baseUrl + path);
  assert.equal(response?.headers()['x-render-mode'], 'shell', `${path} came as the shell`);
  await page.waitForSelector('html[data-kiosk-ready]');
  return { page, problems };
}

describe('rendering from the shell', () => {
  test('an article renders in the browser with its title, body and latest list', async () => {
    const path = await latestArticlePath(server.baseUrl);
    const id = path.split('/')[2]!;
    const { article } = (await (await fetch(`${server.baseUrl}/api/articles/${id}`)).json()) as {
      article: { title: string; body: { text: string }[] };
    };
    const { page, problems } = await openShell(path);
    await page.waitForSelector('h1.article__title');
    assert.equal(await page.textContent('h1'), article.title);
    assert.equal(await page.title(), `${article.title} — Kiosk`);
    assert.ok((await page.textContent('.article__body'))!.includes(article.body[0]!.text));
    // The newest article is this one; the latest list leaves it out.
    assert.equal(await page.locator('.latest__list li').count(), 14);
    assert.equal(await page.getAttribute('#root', 'data-render-mode'), 'shell');
    assert.deepEqual(problems, []);
  });

  test('the front page renders from the shell', async () => {
    const { page, problems } = await openShell('/');
    await page.waitForSelector('.front-page');
    assert.equal(await page.locator('.front-page__section').count(), sections.length);
    assert.equal(await page.locator('h1').count(), 1);
    assert.deepEqual(problems, []);
  });

  test('an unknown article shows the not-found page', async () => {
    const { page, problems } = await openShell('/sport/209912312359000000');
    await page.waitForSelector('.not-found');
    assert.equal(await page.textContent('h1'), 'Page not found');
    assert.equal(await page.title(), 'Page not found — Kiosk');
    // The API's 404 for the unknown article is expected; nothing else may complain.
    assert.deepEqual(
      problems.filter((p) => !p.includes('404')),
      [],
    );
  });

  test('in-browser navigation works on from a shell-rendered page', async () => {
    const { page, problems } = await openShell('/news');
    await page.waitForSelector('.section-page');
    let documents = 0;
    page.on('request', (r) => r.resourceType() === 'document' && (documents += 1));
    const href = await page.getAttribute('.section-page__list a >> nth=0', 'href');
    const navigated = nextNavigation(page);
    await page.click('.section-page__list a >> nth=0');
    await navigated;
    assert.equal(new URL(page.url()).pathname, href);
    await page.waitForSelector('h1.article__title');
    assert.equal(documents, 0, 'no document request');
    assert.deepEqual(problems, []);
  });
});
