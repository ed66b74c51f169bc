// The article page in real Chromium against the production build: the blocks the DOM budget
// leaves to the browser appear after hydration without a warning or a layout shift, the shell
// renders the whole page, related links navigate in the browser with one API request, tag pages
// page on, and every article shown (served, shell, navigated) is counted for most read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { openSqliteStore } from '../server/content/sqlite';
import { generateArticles } from '../server/content/seed';
import { seedTempStore, startBuiltServer, type BuiltServer } from '../test/server';
import { latestArticlePath, launchChromium, nextNavigation, recordProblems } from '../test/browser';
import { waitFor, waitForValue } from '../test/wait';

let dir: string;
let ssr: BuiltServer;
let shell: BuiltServer;
let full: BuiltServer;
/** A site of its own where nothing has been read yet. */
let quiet: BuiltServer;
let quietDir: string;
let browser: Browser;
/** A headline three lines long in the latest list at 1280 px (and longer on a phone). */
const longTitle =
  'Council approves the long-delayed riverside regeneration plan after a marathon late-night session, with conditions on housing, transport and the flood defences';
let context: BrowserContext | undefined;

before(async () => {
  ({ dir } = await seedTempStore(2_000, 20));
  const dbPath = `${dir}/kiosk.sqlite`;
  // The newest story has a long headline, so the latest list and most read hold one.
  const writer = openSqliteStore(dbPath);
  const [template] = generateArticles({ published: 1, drafts: 0, seed: 3 });
  const now = new Date();
  const id = `${now.toISOString().slice(0, 16).replace(/\D/g, '')}999999`;
  writer.upsert({ ...template!, id, title: longTitle, publishedAt: now.toISOString(), updatedAt: now.toISOString() }, { modifiedAt: now.toISOString() });
  writer.close();
  let quietDb: string;
  ({ dir: quietDir, dbPath: quietDb } = await seedTempStore(300, 5));
  // Views are flushed only at exit: the page's own beacon cannot fill most read during the test.
  quiet = await startBuiltServer(quietDb, { VIEWS_FLUSH_S: '60' });
  // The three share one store, so views counted by any of them rank together.
  [ssr, shell, full] = await Promise.all([
    startBuiltServer(dbPath, { VIEWS_FLUSH_S: '1', CLIENT_ADDRESS_HOPS: '0' }),
    startBuiltServer(dbPath, { SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0', VIEWS_FLUSH_S: '1' }),
    startBuiltServer(dbPath, { DOM_BUDGET: 'off', VIEWS_FLUSH_S: '1' }),
  ]);
  browser = await launchChromium();
  // A site that has been read: a dozen stories with views in the last hour, so most read is full.
  const { items } = (await (await fetch(`${ssr.baseUrl}/api/latest?limit=50`)).json()) as { items: { id: string }[] };
  await Promise.all([items[0]!, ...items.slice(20, 31)].map((h) => fetch(`${ssr.baseUrl}/api/views/${h.id}`, { method: 'POST' })));
  await waitFor(
    'ten stories ranked in most read',
    async () => ((await (await fetch(`${ssr.baseUrl}/api/most-read`)).json()) as { items: unknown[] }).items.length >= 10,
    { everyMs: 250 },
  );
});

after(async () => {
  await browser?.close();
  await Promise.all([ssr?.stop(), shell?.stop(), full?.stop(), quiet?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
  if (quietDir) fs.rmSync(quietDir, { recursive: true, force: true });
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

interface Opened {
  page: Page;
  problems: string[];
  /** Article ids the page sent a view beacon for, in order. */
  beacons: string[];
  mode: string | undefined;
}

interface OpenOptions {
  viewport?: { width: number; height: number };
  /** Hold the answers the blocks below the fold wait for, so they surely arrive after the first paint. */
  slowBelowFold?: boolean;
  /** CSS added to the page (the test of the test turns the reserved space off with it). */
  extraCss?: string;
}

async function open(server: BuiltServer, path: string, options: OpenOptions = {}): Promise<Opened> {
  // The extra CSS is an inline style, which the site's policy refuses: only that test bypasses it.
  context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, bypassCSP: options.extraCss !== undefined });
  const page = await context.newPage();
  if (options.slowBelowFold) {
    await page.route(/\/api\/(latest|most-read)/, async (route) => {
      // The delay is the case under test: answers that come well after the first paint.
      await new Promise((resolve) => setTimeout(resolve, 700));
      await route.continue();
    });
  }
  const problems = recordProblems(page);
  const beacons: string[] = [];
  page.on('request', (request) => {
    const match = /\/api\/views\/(\d{18})$/.exec(request.url());
    if (match && request.method() === 'POST') beacons.push(match[1]!);
  });
  // Every layout shift from the first paint on, kept where the test can read it.
  await page.addInitScript(() => {
    const shifts: number[] = [];
    (window as unknown as { kioskShifts: number[] }).kioskShifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  if (options.extraCss !== undefined) {
    await page.addInitScript((css) => {
      document.addEventListener('DOMContentLoaded', () => document.head.append(Object.assign(document.createElement('style'), { textContent: css })));
    }, options.extraCss);
  }
  const response = await page.goto(server.baseUrl + path);
  await page.waitForSelector('html[data-kiosk-ready]');
  return { page, problems, beacons, mode: response?.headers()['x-render-mode'] };
}

/** Waits until the browser has filled in everything below the fold. */
async function belowFoldComplete(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document.querySelectorAll('.latest__list li').length >= 14 &&
      document.querySelectorAll('.most-read__list li').length === 10 &&
      document.querySelectorAll('.teaser-grid--more .teaser').length === 12,
    undefined,
    { timeout: 15_000 },
  );
}

function elementsIn(page: Page, html: string): Promise<number> {
  return page.evaluate((markup) => new DOMParser().parseFromString(markup, 'text/html').querySelectorAll('*').length, html);
}

async function articlePath(index = 3): Promise<string> {
  return latestArticlePath(ssr.baseUrl, index);
}

describe('article page', () => {
  test('DOM budget on: below-the-fold blocks appear after hydration, no warning, no layout shift', async () => {
    const path = await articlePath();
    const html = await (await fetch(ssr.baseUrl + path)).text();
    assert.doesNotMatch(html, /most-read__list|teaser-grid--more/, 'the server leaves them to the browser');
    assert.match(html, /class="related"/, 'related links are in the HTML');
    assert.match(html, /srcSet="\/media\/\d{18}-320w\.svg 320w|srcset="\/media\/\d{18}-320w\.svg 320w/);
    const { page, problems } = await open(ssr, path, { slowBelowFold: true });
    await belowFoldComplete(page);
    // Let images and late layout settle before reading the shifts.
    await page.waitForLoadState('networkidle');
    const shifts = await page.evaluate(() => (window as unknown as { kioskShifts: number[] }).kioskShifts);
    assert.deepEqual(shifts, [], 'no layout shift');
    assert.deepEqual(problems, [], 'no console warning or error (a hydration mismatch would be one)');
    const served = await elementsIn(page, html);
    const shown = await page.evaluate(() => document.querySelectorAll('*').length);
    console.log(`article page, DOM_BUDGET=on: ${served} elements as served, ${shown} as finally shown, ${Buffer.byteLength(html)} bytes`);
    assert.ok(served <= shown * 0.6, `served ${served} is at most 60% of shown ${shown}`);
    // Below-the-fold images wait until they are near.
    assert.equal(await page.getAttribute('.teaser-grid--more img >> nth=0', 'loading'), 'lazy');
    assert.equal(await page.getAttribute('.article__figure img', 'loading'), 'eager');
  });

  test('the layout-shift check can fail: without the reserved space the same page shifts', async () => {
    const { page } = await open(ssr, await articlePath(), {
      slowBelowFold: true,
      extraCss: '.latest__list, .most-read.below-fold { min-height: 0 !important } .latest__list li { height: auto !important }',
    });
    await belowFoldComplete(page);
    await page.waitForLoadState('networkidle');
    const shifts = await page.evaluate(() => (window as unknown as { kioskShifts: number[] }).kioskShifts);
    assert.ok(shifts.length > 0 && shifts.reduce((a, b) => a + b, 0) > 0, `shifts seen: ${shifts.join(', ')}`);
  });

  test('no layout shift on a phone either (412 × 823, one column)', async () => {
    const { page, problems } = await open(ssr, await articlePath(4), { viewport: { width: 412, height: 823 }, slowBelowFold: true });
    await belowFoldComplete(page);
    await page.waitForLoadState('networkidle');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { kioskShifts: number[] }).kioskShifts), []);
    assert.deepEqual(problems, []);
  });

  // Regression: rows of a fixed height with overflow hidden cut the section and time line off
  // every headline that took three lines.
  test('every headline in the latest list and most read shows its section and time, however long it is', async () => {
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 412, height: 823 },
    ]) {
      for (const server of [ssr, shell]) {
        const { page, problems } = await open(server, await articlePath(), { viewport });
        await belowFoldComplete(page);
        const rows = await page.$$eval('.latest__list li, .most-read__list li', (items) =>
          items.map((li) => {
            const row = li.getBoundingClientRect();
            const link = li.querySelector('a')!;
            const meta = li.querySelector('.headline-meta')!.getBoundingClientRect();
            const time = li.querySelector('.headline-meta time')!.getBoundingClientRect();
            return {
              title: link.textContent ?? '',
              clamped: link.scrollHeight > link.clientHeight + 1,
              metaShown:
                meta.height > 0 && meta.top >= row.top - 0.5 && meta.bottom <= row.bottom + 0.5 && time.left >= row.left - 0.5 && time.right <= row.right + 0.5,
            };
          }),
        );
        const where = `${server === ssr ? 'served' : 'shell'} at ${viewport.width} px`;
        assert.ok(rows.length >= 24, `${where}: ${rows.length} rows`);
        assert.deepEqual(
          rows.filter((r) => !r.metaShown).map((r) => r.title),
          [],
          `${where}: every time line is shown`,
        );
        assert.ok(
          rows.some((r) => r.title === longTitle && r.clamped),
          `${where}: the long headline is there, clamped to two lines`,
        );
        assert.deepEqual(problems, []);
        await context?.close();
        context = undefined;
      }
    }
  });

  test('a site where nothing has been read yet shows no most-read box, and nothing shifts', async () => {
    const path = await latestArticlePath(quiet.baseUrl, 2);
    const { page, problems } = await open(quiet, path, { slowBelowFold: true });
    await page.waitForFunction(() => document.querySelectorAll('.latest__list li').length >= 14 && document.querySelector('.most-read') === null, undefined, {
      timeout: 15_000,
    });
    await page.waitForLoadState('networkidle');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { kioskShifts: number[] }).kioskShifts), [], 'the box left below the fold');
    assert.equal(await page.locator('.newsletter form').count(), 1, 'the blocks after it are there');
    assert.deepEqual(problems, []);
  });

  test('DOM budget off: the server renders every block, and the browser hydrates it as it is', async () => {
    const path = await articlePath();
    const html = await (await fetch(full.baseUrl + path)).text();
    assert.match(html, /teaser-grid--more/);
    assert.match(html, /most-read/);
    const { page, problems } = await open(full, path);
    await belowFoldComplete(page);
    await page.waitForLoadState('networkidle');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { kioskShifts: number[] }).kioskShifts), []);
    assert.deepEqual(problems, []);
    const served = await elementsIn(page, html);
    const shown = await page.evaluate(() => document.querySelectorAll('*').length);
    console.log(`article page, DOM_BUDGET=off: ${served} elements as served, ${shown} as finally shown, ${Buffer.byteLength(html)} bytes`);
  });

  test('the shell renders the whole page from the API', async () => {
    const { page, problems, mode } = await open(shell, await articlePath());
    assert.equal(mode, 'shell');
    await belowFoldComplete(page);
    for (const selector of [
      '.breadcrumb',
      '.article__title',
      '.share',
      '.article__figure img[srcset]',
      '.read-also a',
      '.tags a',
      '.related .teaser',
      '.newsletter form',
    ]) {
      assert.ok((await page.locator(selector).count()) > 0, `${selector} is rendered`);
    }
    assert.equal(await page.locator('.related .teaser').count(), 6);
    assert.deepEqual(problems, []);
  });

  test('a related link navigates in the browser with one API request', async () => {
    const { page, problems } = await open(ssr, await articlePath());
    const documents: string[] = [];
    const apiGets: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'document') documents.push(request.url());
      if (request.method() === 'GET' && new URL(request.url()).pathname.startsWith('/api/')) apiGets.push(new URL(request.url()).pathname);
    });
    await belowFoldComplete(page);
    apiGets.length = 0;
    const target = (await page.getAttribute('.related .teaser__title a >> nth=0', 'href'))!;
    const navigated = nextNavigation(page);
    await page.click('.related .teaser__title a >> nth=0');
    await navigated;
    assert.equal(new URL(page.url()).pathname, target);
    assert.deepEqual(documents, [], 'no full reload');
    assert.deepEqual(apiGets, [`/api/articles/${target.split('/')[2]}`], 'one request, for the article and its teasers');
    assert.equal(await page.locator('.related .teaser').count(), 6);
    assert.deepEqual(problems, []);
  });

  test('a tag page pages on', async () => {
    const { page, problems } = await open(ssr, '/tag/elections');
    const before = await page.locator('.section-page__list > li').count();
    assert.equal(before, 20);
    await page.click('.section-page__more button');
    await page.waitForFunction((n) => document.querySelectorAll('.section-page__list > li').length > n, before);
    const ids = await page.$$eval('.section-page__list .teaser__title a', (links) => links.map((a) => a.getAttribute('href')!.split('/')[2]!));
    assert.equal(ids.length, 40);
    assert.deepEqual([...ids].sort().reverse(), ids, 'newest first across pages');
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(problems, []);
  });

  test('most read counts views from a served page, the shell and an in-browser navigation', async () => {
    const served = await open(ssr, await articlePath(5));
    const viaShell = await open(shell, await articlePath(6));
    const navigated = await open(ssr, await articlePath(7));
    const target = (await navigated.page.getAttribute('.related .teaser__title a >> nth=0', 'href'))!;
    const done = nextNavigation(navigated.page);
    await navigated.page.click('.related .teaser__title a >> nth=0');
    await done;
    const targetId = target.split('/')[2]!;
    // Beacons go out after render.
    await waitFor('the beacon of the article navigated to', () => navigated.beacons.includes(targetId));
    assert.equal(served.beacons.length, 1, 'the served page: one view');
    assert.equal(viaShell.beacons.length, 1, 'the shell: one view');
    assert.deepEqual(navigated.beacons.slice(1), [targetId], 'the navigation: one view of the new article');
    const counted = [served.beacons[0]!, viaShell.beacons[0]!, targetId];
    // Flushed within a second, ranked within the 5 s a ranking is kept.
    const ranked = await waitForValue(
      'the three views ranked',
      async () => ((await (await fetch(`${ssr.baseUrl}/api/most-read?limit=50`)).json()) as { items: { id: string }[] }).items.map((h) => h.id),
      (ids) => counted.every((id) => ids.includes(id)),
    );
    for (const id of counted) assert.ok(ranked.includes(id), `${id} is ranked: ${ranked.join(', ')}`);
  });
});
