// Touch targets on a phone, in real Chromium against the production build: the small section
// links in teaser and headline lines are at least 24 by 24 CSS pixels (WCAG 2.2, 2.5.8 target
// size minimum, the rule Lighthouse's target-size audit applies), on the article page both
// server-rendered and as the shell, and on the front and section pages, and none of them
// overlaps another link.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { seedTempStore, startBuiltServer, type BuiltServer } from '../test/server';
import { latestArticlePath, launchChromium, recordProblems } from '../test/browser';

let dir: string;
let ssr: BuiltServer;
let shell: BuiltServer;
let browser: Browser;

before(async () => {
  ({ dir } = await seedTempStore(500, 5));
  const dbPath = `${dir}/kiosk.sqlite`;
  // One after the other: each primary prepares the store's side files (views, sign-ups) at
  // start-up, and two doing it at once on one store can find it locked.
  ssr = await startBuiltServer(dbPath);
  shell = await startBuiltServer(dbPath, { SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0' });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await ssr?.stop();
  await shell?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const minimum = 24;
/** Layout rounds to 1/64 px; the audit (axe-core's target-size) allows this much for it. */
const roundingMargin = 0.05;
const sectionLinks = '.headline-meta a, .teaser__meta a';

interface Target {
  html: string;
  width: number;
  height: number;
  overlaps: string[];
}

/** The section links' boxes, and any other link each one overlaps. */
function measure(page: Page): Promise<Target[]> {
  return page.evaluate((selector) => {
    const all = [...document.querySelectorAll('a[href], button')].map((el) => ({ el, box: el.getBoundingClientRect() }));
    return [...document.querySelectorAll(selector)].map((el) => {
      const box = el.getBoundingClientRect();
      const overlaps = all
        .filter((other) => other.el !== el && !other.el.contains(el) && !el.contains(other.el))
        .filter((other) => other.box.width > 0 && other.box.height > 0)
        .filter((other) => other.box.left < box.right && box.left < other.box.right && other.box.top < box.bottom && box.top < other.box.bottom)
        .map((other) => other.el.outerHTML.slice(0, 80));
      return { html: el.outerHTML.slice(0, 80), width: box.width, height: box.height, overlaps };
    });
  }, sectionLinks);
}

async function phonePage(): Promise<{ page: Page; problems: string[] }> {
  // Lighthouse's mobile emulation: a Moto G Power.
  const context = await browser.newContext({ viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  return { page, problems: recordProblems(page) };
}

function assertTargets(targets: Target[], label: string, atLeast: number): void {
  assert.ok(targets.length >= atLeast, `${label}: ${targets.length} section links measured`);
  for (const t of targets) {
    assert.ok(t.width + roundingMargin >= minimum && t.height + roundingMargin >= minimum, `${label}: ${t.html} is ${t.width} × ${t.height} px`);
    assert.deepEqual(t.overlaps, [], `${label}: ${t.html} overlaps no other link`);
  }
}

test('on an article page, the section links in the latest list and the teasers are thumb-sized, server-rendered and as the shell', async () => {
  const path = await latestArticlePath(ssr.baseUrl, 2);
  for (const server of [ssr, shell]) {
    const { page, problems } = await phonePage();
    await page.goto(server.baseUrl + path);
    await page.waitForSelector('html[data-kiosk-ready]');
    // The lists the browser completes after hydration, and the teasers below the fold.
    await page.waitForFunction(() => document.querySelectorAll('.latest__list li').length >= 14);
    await page.locator('.more-from-section').scrollIntoViewIfNeeded();
    await page.waitForSelector('.teaser-grid--more .teaser__meta a');
    assertTargets(await measure(page), `${path} from ${server === ssr ? 'ssr' : 'the shell'}`, 14 + 12);
    assert.deepEqual(problems, []);
    await page.context().close();
  }
});

test('on the front page and a section page, the teasers’ section links are thumb-sized', async () => {
  for (const path of ['/', '/news']) {
    const { page, problems } = await phonePage();
    await page.goto(ssr.baseUrl + path);
    await page.waitForSelector('html[data-kiosk-ready]');
    assertTargets(await measure(page), path, 10);
    assert.deepEqual(problems, []);
    await page.context().close();
  }
});
