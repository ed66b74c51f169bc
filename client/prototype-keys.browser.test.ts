// Tags the CMS may create whose slugs name members of Object.prototype ("constructor"), and
// addresses shaped like them, in real Chromium against the built server: server-rendered and
// hydrated, as the shell every reader gets in a spike, and after in-browser navigation. Each
// page renders or is the not-found page; none is blank and none throws.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { seedTempStore, startBuiltServer, type BuiltServer } from '../test/server';
import { launchChromium, recordProblems } from '../test/browser';

const token = 'prototype-keys-ingest-token-0123456789abcdef';
/** Valid tag slugs; each but the first names (lower-cased) what a plain object's prototype has. */
const prototypeTags = ['constructor', 'valueof', 'tostring', 'hasownproperty'];
const stories = [
  { id: '202611221200000101', title: 'The constructor tag, first story', tags: prototypeTags },
  { id: '202611221201000102', title: 'The constructor tag, second story', tags: ['constructor'] },
];
const articlePathOf = (id: string) => `/news/${id}`;

type Kind = 'front' | 'section' | 'tag' | 'article' | 'notFound';

/** Every kind of page, with the slugs in question where the page has one. */
const pages: { path: string; kind: Kind; shows?: string[] }[] = [
  { path: '/', kind: 'front' },
  { path: '/news', kind: 'section' },
  { path: articlePathOf(stories[0]!.id), kind: 'article', shows: [stories[0]!.title] },
  { path: '/tag/constructor', kind: 'tag', shows: stories.map((s) => s.title) },
  ...prototypeTags.slice(1).map((tag) => ({ path: `/tag/${tag}`, kind: 'tag' as const, shows: [stories[0]!.title] })),
  // Tags nobody used, or that no slug may be.
  { path: '/tag/isprototypeof', kind: 'notFound' },
  { path: '/tag/__proto__', kind: 'notFound' },
  { path: '/tag/toString', kind: 'notFound' },
  // Sections that do not exist.
  { path: '/constructor', kind: 'notFound' },
  { path: '/toString', kind: 'notFound' },
  { path: '/__proto__', kind: 'notFound' },
  { path: '/valueOf', kind: 'notFound' },
  { path: '/hasOwnProperty', kind: 'notFound' },
  { path: `/constructor/${stories[0]!.id}`, kind: 'notFound' },
  { path: `/__proto__/${stories[0]!.id}`, kind: 'notFound' },
];

const selectorOf: Record<Kind, string> = {
  front: '.front-page',
  section: '.section-page:not(.tag-page)',
  tag: '.tag-page',
  article: '.article-page',
  notFound: '.not-found',
};

let browser: Browser;
const sites: { server: BuiltServer; dir: string }[] = [];
let ssr: BuiltServer;
let shell: BuiltServer;

async function ingest(server: BuiltServer, id: string, tags: string[], title: string): Promise<Response> {
  const publishedAt = `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(8, 10)}:${id.slice(10, 12)}:00Z`;
  const article = {
    section: 'news',
    status: 'published',
    title,
    lead: 'Tagged with a word every JavaScript object knows.',
    author: 'Test Desk',
    image: { src: `/media/${id}.svg`, alt: 'A picture', width: 1200, height: 675 },
    publishedAt,
    tags,
    body: [{ type: 'paragraph', text: 'A story for the tag page.' }],
  };
  const put = (body: object) =>
    fetch(`${server.baseUrl}/api/ingest/articles/${id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const first = await put(article);
  // Ingest versions that order pushes by the CMS's modifiedAt require it, and those that do not refuse it.
  if (first.status === 400 && (await first.clone().text()).includes('modifiedAt is required')) return put({ ...article, modifiedAt: publishedAt });
  return first;
}

/** A seeded store with its own server, and the stories the CMS pushes to it. */
async function startSite(env: Record<string, string>): Promise<BuiltServer> {
  const { dir } = await seedTempStore(200, 2);
  const server = await startBuiltServer(`${dir}/kiosk.sqlite`, { INGEST_TOKEN: token, ...env });
  sites.push({ server, dir });
  for (const story of stories) {
    const res = await ingest(server, story.id, story.tags, story.title);
    assert.equal(res.status, 201, `${story.id}: ${await res.text()}`);
  }
  return server;
}

before(async () => {
  [ssr, shell] = await Promise.all([startSite({}), startSite({ SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0' })]);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  for (const { server, dir } of sites) {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A page that records its uncaught errors where the page itself can see them, to stop waiting on. */
async function newPage(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const errors: string[] = [];
    (window as unknown as { __errors: string[] }).__errors = errors;
    window.addEventListener('error', (event) => errors.push(event.message));
    window.addEventListener('unhandledrejection', (event) => errors.push(String(event.reason)));
  });
  return { page, problems: recordProblems(page) };
}

/** Waits until the app is live or has thrown, whichever comes first. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => document.documentElement.hasAttribute('data-kiosk-ready') || (window as unknown as { __errors: string[] }).__errors.length > 0,
  );
}

/** Clicks a link and waits until the navigation has rendered or the app has thrown. */
async function navigateTo(page: Page, path: string): Promise<void> {
  await page.evaluate((href) => {
    document.getElementById('probe')?.remove();
    const link = document.createElement('a');
    link.id = 'probe';
    link.href = href;
    link.textContent = 'probe';
    document.body.prepend(link);
  }, path);
  const outcome = page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        window.addEventListener('kiosk:navigated', () => resolve(), { once: true });
        window.addEventListener('error', () => resolve(), { once: true });
      }),
  );
  await page.click('#probe');
  await outcome;
}

/** What the page shows: the kind of page in the main region, its heading, and the stories it lists. */
async function assertShows(page: Page, expected: (typeof pages)[number], how: string): Promise<void> {
  const label = `${expected.path} (${how})`;
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __errors: string[] }).__errors), [], `${label}: nothing thrown`);
  assert.equal(new URL(page.url()).pathname, expected.path, label);
  assert.equal(await page.locator(`#main ${selectorOf[expected.kind]}`).count(), 1, `${label}: a ${expected.kind} page`);
  const heading = (await page.locator('#main h1').first().textContent())?.trim() ?? '';
  assert.ok(heading.length > 0, `${label}: has a heading`);
  if (expected.kind === 'notFound') assert.equal(heading, 'Page not found', label);
  if (expected.kind === 'tag') assert.equal(heading.toLowerCase(), expected.path.slice('/tag/'.length), label);
  const text = (await page.locator('#main').textContent()) ?? '';
  for (const title of expected.shows ?? []) assert.ok(text.includes(title), `${label}: shows "${title}"`);
}

/** Console errors other than the API's and the server's expected 404s. */
function unexpected(problems: string[]): string[] {
  return problems.filter((p) => !/status of 404/.test(p));
}

describe('slugs named like prototype members', () => {
  test('the CMS can tag stories so, and the API answers for those tags and refuses impossible ones', async () => {
    const tag = (await (await fetch(`${ssr.baseUrl}/api/tags/constructor`)).json()) as { tag: string; items: { id: string }[] };
    assert.equal(tag.tag, 'constructor');
    assert.deepEqual(tag.items.map((t) => t.id).sort(), stories.map((s) => s.id).sort());
    for (const [path, status] of [
      ['/api/tags/isprototypeof', 404],
      ['/api/tags/__proto__', 400],
      ['/api/tags/toString', 400],
      ['/api/sections/constructor', 404],
      ['/api/sections/__proto__', 400],
      ['/api/articles/constructor', 400],
    ] as const) {
      assert.equal((await fetch(ssr.baseUrl + path)).status, status, path);
    }
    // Slugs a plain object's keys would trip on hardest are no tags at all: the ingest refuses them.
    for (const bad of ['__proto__', 'toString']) {
      assert.equal((await ingest(ssr, '202611221202000103', [bad], 'Not a tag')).status, 400, bad);
    }
  });

  test('server-rendered and hydrated, every page renders or is not found', async () => {
    const { page, problems } = await newPage();
    for (const expected of pages) {
      const response = await page.goto(ssr.baseUrl + expected.path);
      assert.equal(response?.headers()['x-render-mode'], 'ssr', expected.path);
      assert.equal(response?.status(), expected.kind === 'notFound' ? 404 : 200, expected.path);
      await settled(page);
      await assertShows(page, expected, 'server-rendered');
    }
    assert.deepEqual(unexpected(problems), []);
    await page.context().close();
  });

  test('as the shell, every page renders or is not found', async () => {
    const { page, problems } = await newPage();
    for (const expected of pages) {
      const response = await page.goto(shell.baseUrl + expected.path);
      assert.equal(response?.headers()['x-render-mode'], 'shell', expected.path);
      await settled(page);
      await assertShows(page, expected, 'shell');
    }
    assert.deepEqual(unexpected(problems), []);
    await page.context().close();
  });

  test("after in-browser navigation from an article's topic link, the constructor tag lists its stories", async () => {
    for (const server of [ssr, shell]) {
      const { page, problems } = await newPage();
      await page.goto(server.baseUrl + articlePathOf(stories[0]!.id));
      await settled(page);
      let documents = 0;
      page.on('request', (r) => r.resourceType() === 'document' && (documents += 1));
      const outcome = page.evaluate(
        () =>
          new Promise<void>((resolve) => {
            window.addEventListener('kiosk:navigated', () => resolve(), { once: true });
            window.addEventListener('error', () => resolve(), { once: true });
          }),
      );
      await page.click('.tags a[href="/tag/constructor"]');
      await outcome;
      await assertShows(
        page,
        pages.find((p) => p.path === '/tag/constructor')!,
        `navigated on ${server === ssr ? 'ssr' : 'shell'}`,
      );
      assert.equal(documents, 0, 'rendered in the browser');
      assert.deepEqual(unexpected(problems), []);
      await page.context().close();
    }
  });

  test('after in-browser navigation, every page renders or is not found', async () => {
    const { page, problems } = await newPage();
    await page.goto(ssr.baseUrl + '/news');
    await settled(page);
    let documents = 0;
    page.on('request', (r) => r.resourceType() === 'document' && (documents += 1));
    for (const expected of pages) {
      await navigateTo(page, expected.path);
      await assertShows(page, expected, 'navigated');
    }
    assert.equal(documents, 0, 'every page rendered in the browser');
    assert.deepEqual(unexpected(problems), []);
    await page.context().close();
  });
});
