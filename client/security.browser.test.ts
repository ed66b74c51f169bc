// Hostile content in a real browser, under the real Content-Security-Policy: served
// server-rendered and hydrated, and rendered by the client after an in-browser navigation.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { seedTempStore, startBuiltServer, type BuiltServer } from '../test/server';
import { launchChromium, nextNavigation, recordProblems } from '../test/browser';

const token = 'browser-security-ingest-token-0123456789ab';
const id = '202611221200000001';
const title = 'Alert </script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';

let server: BuiltServer;
let dir: string;
let browser: Browser;

before(async () => {
  ({ dir } = await seedTempStore(200, 2));
  server = await startBuiltServer(`${dir}/kiosk.sqlite`, { INGEST_TOKEN: token });
  const res = await fetch(`${server.baseUrl}/api/ingest/articles/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      section: 'news',
      status: 'published',
      title,
      lead: '<svg onload="window.__pwned=3">\u2028',
      author: 'Mallory',
      image: { src: `/media/${id}.svg`, alt: '" onerror="window.__pwned=4', width: 1200, height: 675 },
      publishedAt: '2026-11-22T12:00:00Z',
      modifiedAt: '2026-11-22T12:00:00Z',
      body: [{ type: 'paragraph', text: 'javascript:window.__pwned=5 </p><iframe src="javascript:alert(1)">' }],
    }),
  });
  assert.equal(res.status, 201);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('hostile content stays text when hydrated and when rendered after navigation, with no CSP violation', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const problems = recordProblems(page);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });

    const response = await page.goto(`${server.baseUrl}/news/${id}`);
    assert.match(response?.headers()['content-security-policy'] ?? '', /'nonce-/);
    await page.waitForSelector('html[data-kiosk-ready]');
    assert.equal(await page.textContent('h1'), title);
    assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('iframe, .article__body img').count(), 0);

    // Now the client renders it from /api after an in-browser navigation.
    await page.click('.site-logo');
    await page.waitForSelector('.front-page, main');
    const navigated = nextNavigation(page);
    await page.click(`a[href="/news/${id}"] >> nth=0`);
    await navigated;
    assert.equal(await page.textContent('h1'), title);
    assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
