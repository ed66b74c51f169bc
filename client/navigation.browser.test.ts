// Real Chromium (Debian's /usr/bin/chromium, driven by playwright-core) against the real
// production build, one worker, on a seeded SQLite store.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seedTempStore, startBuiltServer, type BuiltServer } from '../test/server';
import { latestArticlePath, launchChromium, nextNavigation, recordProblems } from '../test/browser';

let server: BuiltServer;
let dir: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

before(async () => {
  ({ dir } = await seedTempStore(2_000, 20));
  server = await startBuiltServer(`${dir}/kiosk.sqlite`);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await context?.close();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  problems = recordProblems(page);
});

async function open(path: string) {
  const response = await page.goto(server.baseUrl + path);
  await page.waitForSelector('html[data-kiosk-ready]');
  return response;
}

function firstArticlePath(): Promise<string> {
  return latestArticlePath(server.baseUrl);
}

/** Counts full document loads from now on; in-browser navigation makes none. */
function countDocumentLoads(): () => number {
  let loads = 0;
  page.on('request', (request) => {
    if (request.resourceType() === 'document') loads += 1;
  });
  return () => loads;
}

async function clickAndWaitForNavigation(selector: string) {
  const navigated = nextNavigation(page);
  await page.click(selector);
  await navigated;
}

describe('reading in the browser', () => {
  // The server loads a page's data straight into the state it embeds (server/page-state.ts),
  // the browser through its thunks: a difference would show here as a hydration warning.
  test("front, section, tag and article pages all hydrate from the server's state with no warning", async () => {
    for (const path of ['/', '/news', '/tag/elections', await firstArticlePath()]) {
      const response = await open(path);
      assert.equal(response?.headers()['x-render-mode'], 'ssr', path);
      await page.waitForSelector('html[data-kiosk-ready]');
      assert.equal(await page.getAttribute('#root', 'data-render-mode'), 'ssr', path);
      assert.deepEqual(problems, [], `${path}: no console error or hydration warning`);
    }
  });

  test('an article hydrates with no console errors or hydration warnings', async () => {
    const path = await firstArticlePath();
    const response = await open(path);
    assert.equal(response?.status(), 200);
    assert.equal(response?.headers()['x-render-mode'], 'ssr');
    assert.equal(await page.locator('h1').count(), 1);
    // The server's markup was adopted, not replaced: an element marked before hydration survives.
    assert.deepEqual(problems, []);
    assert.equal(await page.getAttribute('#root', 'data-render-mode'), 'ssr');
    // The server sent the first few latest headlines; the browser completes the list after hydration.
    const served = (/<ol class="latest__list">(.*?)<\/ol>/.exec(await (await fetch(server.baseUrl + path)).text())?.[1] ?? '').match(/<li>/g)?.length ?? 0;
    assert.ok(served > 0 && served < 14, `${served} latest headlines as served`);
    await page.waitForFunction(() => document.querySelectorAll('.latest__list li').length >= 14);
    assert.deepEqual(problems, [], 'completing the list raised no hydration warning');
  });

  test('clicking a teaser changes the URL and the content without reloading the document', async () => {
    const start = await firstArticlePath();
    await open(start);
    const startTitle = await page.textContent('h1');
    const loads = countDocumentLoads();
    await page.evaluate(() => ((window as unknown as { __kioskMarker: string }).__kioskMarker = 'still here'));
    const target = await page.getAttribute('.latest__list a >> nth=0', 'href');
    assert.ok(target && target !== start);

    const apiCalls: string[] = [];
    page.on('request', (r) => r.url().includes('/api/') && apiCalls.push(new URL(r.url()).pathname));
    await clickAndWaitForNavigation('.latest__list a >> nth=0');

    assert.equal(new URL(page.url()).pathname, target);
    const newTitle = await page.textContent('h1');
    assert.notEqual(newTitle, startTitle);
    assert.equal(await page.title(), `${newTitle} — Kiosk`);
    assert.equal(await page.evaluate(() => (window as unknown as { __kioskMarker?: string }).__kioskMarker), 'still here');
    assert.equal(loads(), 0, 'no document request');
    assert.ok(apiCalls.includes(`/api/articles/${target.split('/')[2]}`), `loaded through the API: ${apiCalls.join(', ')}`);
    assert.deepEqual(problems, []);
  });

  test('back returns to the previous page, in the browser, at the same scroll position', async () => {
    const start = await firstArticlePath();
    await open(start);
    const startTitle = await page.textContent('h1');
    const loads = countDocumentLoads();
    await page.evaluate(() => ((window as unknown as { __kioskMarker: string }).__kioskMarker = 'still here'));
    await page.evaluate(() => window.scrollTo(0, 900));
    // Clicking scrolls the link into view first; the position to restore is the one after that.
    // Each latest item links its headline and its section: the headline of the twelfth.
    await page.locator('.latest__list li:nth-child(12) > a').scrollIntoViewIfNeeded();
    const scrolledTo = await page.evaluate(() => window.scrollY);
    assert.ok(scrolledTo > 300, `scrolled down (${scrolledTo})`);
    await clickAndWaitForNavigation('.latest__list li:nth-child(12) > a');
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'a new page starts at the top');

    const navigated = nextNavigation(page);
    await page.goBack();
    await navigated;
    assert.equal(new URL(page.url()).pathname, start);
    assert.equal(await page.textContent('h1'), startTitle);
    assert.equal(await page.evaluate(() => window.scrollY), scrolledTo);
    assert.equal(await page.evaluate(() => (window as unknown as { __kioskMarker?: string }).__kioskMarker), 'still here');
    assert.equal(loads(), 0);
  });

  test('a bad link shows the not-found page, in the browser and from the server', async () => {
    await open('/');
    await page.evaluate(() => {
      const link = document.createElement('a');
      link.href = '/sport/209912312359000000';
      link.id = 'bad-link';
      link.textContent = 'a story that does not exist';
      document.querySelector('main')!.prepend(link);
    });
    await clickAndWaitForNavigation('#bad-link');
    assert.equal(new URL(page.url()).pathname, '/sport/209912312359000000');
    assert.equal(await page.textContent('h1'), 'Page not found');

    const response = await open('/no-such-section');
    assert.equal(response?.status(), 404);
    assert.equal(await page.textContent('h1'), 'Page not found');
    assert.deepEqual(
      problems.filter((p) => !p.includes('404')),
      [],
      'only the expected 404 is reported',
    );
  });

  test('"More" on a section page loads the next page of stories in the browser', async () => {
    await open('/news');
    const before = await page.locator('.section-page__list > li').count();
    await page.click('.section-page__more button');
    await page.waitForFunction((n) => document.querySelectorAll('.section-page__list > li').length > n, before);
    const after = await page.locator('.section-page__list > li').count();
    assert.equal(after, before * 2);
    assert.deepEqual(problems, []);
  });

  test('when the API fails, a navigation falls back to a full page load', async () => {
    const start = await firstArticlePath();
    await open(start);
    await page.route('**/api/**', (route) => route.fulfill({ status: 500, body: 'boom' }));
    const target = await page.getAttribute('.latest__list li:nth-child(2) > a', 'href');
    const documentLoad = page.waitForRequest((r) => r.resourceType() === 'document');
    await page.click('.latest__list li:nth-child(2) > a');
    const request = await documentLoad;
    assert.equal(new URL(request.url()).pathname, target);
    await page.waitForSelector('html[data-kiosk-ready]');
    assert.equal(new URL(page.url()).pathname, target);
  });

  test('front page and article page sizes as served and as finally shown', async () => {
    for (const path of ['/', await firstArticlePath()]) {
      const res = await fetch(server.baseUrl + path);
      const html = await res.text();
      await open(path);
      const served = await page.evaluate((markup) => {
        const doc = new DOMParser().parseFromString(markup, 'text/html');
        return doc.querySelectorAll('*').length;
      }, html);
      assert.ok(served > 50);
      await page.waitForFunction(() => document.querySelectorAll('.latest__list li').length >= 14 || !document.querySelector('.latest__list'));
      const shown = await page.evaluate(() => document.querySelectorAll('*').length);
      console.log(`page size ${path}: ${served} elements as served, ${shown} as finally shown, ${Buffer.byteLength(html)} bytes`);
    }
  });
});
