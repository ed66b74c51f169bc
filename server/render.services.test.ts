import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { latestListSize } from '../src/content';
import { stateElementId } from '../src/page-contract';
import type { Content } from './content/open';
import type { ContentReader } from './content/source';
import { PageCache } from './page-cache';
import { buildChrome, renderPage, type RenderDeps } from './render';
import { openSqliteContent, seedTempStore, serveTestApp, testAssets } from '../test/server';

let dir: string;
let dbPath: string;
let parts: Content;
let content: ContentReader;
let articlePath: string;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(200, 2));
  parts = openSqliteContent(dbPath);
  content = parts.reader;
  const [newest] = await content.latest(1);
  articlePath = `/${newest!.section}/${newest!.id}`;
});

after(async () => {
  await parts.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const withoutNonce = (html: string) => html.replace(/ nonce="[^"]+"/g, '');

test('the chrome rendered once and spliced in gives byte for byte the page rendered whole', async () => {
  for (const domBudget of [true, false]) {
    const whole: RenderDeps = { content, assets: testAssets, siteUrl: 'https://kiosk.example', chrome: null, domBudget };
    const spliced: RenderDeps = { ...whole, chrome: buildChrome() };
    for (const path of [articlePath, '/', '/news', '/tag/elections', '/news/999999999999999999', '/nowhere']) {
      const a = await renderPage(path, whole);
      const b = await renderPage(path, spliced);
      assert.equal(a.kind, 'page');
      assert.equal(b.kind, 'page');
      if (a.kind === 'page' && b.kind === 'page') {
        assert.equal(b.status, a.status, path);
        assert.equal(withoutNonce(b.html), withoutNonce(a.html), path);
      }
    }
  }
});

test('DOM_BUDGET: on, the server leaves most read and more from the section to the browser and says so; off, it renders them', async () => {
  const stateOf = (html: string) =>
    JSON.parse(new RegExp(`<script id="${stateElementId}"[^>]*>([^<]*)</script>`).exec(html)![1]!) as {
      render: { belowFoldDeferred: boolean; siteUrl: string };
      mostRead: { items: unknown[] | null };
      articleTeasers: Record<string, { related: unknown[]; moreFromSection: unknown[] }>;
    };
  const deps: RenderDeps = { content, assets: testAssets, siteUrl: 'https://kiosk.example' };
  const on = await renderPage(articlePath, { ...deps, domBudget: true });
  const off = await renderPage(articlePath, { ...deps, domBudget: false });
  assert.ok(on.kind === 'page' && off.kind === 'page');
  const id = articlePath.split('/')[2]!;
  // What search engines need is in both: the article, its byline, image, breadcrumb and related links.
  for (const html of [on.html, off.html]) {
    for (const marker of [
      'class="breadcrumb"',
      'class="article__title"',
      'class="article__byline"',
      'srcSet="/media/',
      'class="related"',
      'class="read-also"',
    ]) {
      assert.ok(html.includes(marker), marker);
    }
    // The blocks keep their box and heading either way, so their space is reserved.
    assert.match(html, /<section class="more-from-section below-fold"/);
  }
  // Most read's box is reserved while the browser loads it; rendered here, with nothing read in
  // the last hour (no views in this store), there is no box at all rather than an empty one.
  assert.match(on.html, /<section class="most-read below-fold"[^>]*><h2 id="most-read-heading">/);
  assert.doesNotMatch(on.html, /teaser-grid--more|most-read__list/);
  assert.match(off.html, /teaser-grid--more/);
  assert.doesNotMatch(off.html, /class="most-read/);
  const [onState, offState] = [stateOf(on.html), stateOf(off.html)];
  assert.deepEqual(onState.render, { belowFoldDeferred: true, siteUrl: 'https://kiosk.example' });
  assert.equal(offState.render.belowFoldDeferred, false);
  assert.equal(onState.mostRead.items, null, 'the browser loads most read');
  assert.ok(Array.isArray(offState.mostRead.items), 'the server loaded most read');
  // The browser needs no request to fill in more from the section: the state has it.
  assert.deepEqual(onState.articleTeasers[id], {
    related: (await content.articleWithTeasers(id))!.related,
    moreFromSection: (await content.articleWithTeasers(id))!.moreFromSection,
  });
  assert.equal(onState.articleTeasers[id]?.related.length, 6);
  assert.ok((onState.articleTeasers[id]?.moreFromSection.length ?? 0) > 0);
});

test('the server renders SSR_LATEST_ITEMS latest headlines and says so in the state, for the browser to complete', async () => {
  for (const latestItems of [5, latestListSize]) {
    const outcome = await renderPage(articlePath, { content, assets: testAssets, siteUrl: 'https://kiosk.example', latestItems });
    assert.equal(outcome.kind, 'page');
    if (outcome.kind !== 'page') return;
    const list = /<ol class="latest__list">(.*?)<\/ol>/.exec(outcome.html)?.[1] ?? '';
    // The article itself is left out of its own latest list.
    assert.equal(list.match(/<li>/g)?.length, latestItems - 1);
    const state = JSON.parse(new RegExp(`<script id="${stateElementId}"[^>]*>([^<]*)</script>`).exec(outcome.html)![1]!) as {
      latest: { requested: number; items: unknown[] };
    };
    assert.equal(state.latest.requested, latestItems);
    assert.equal(state.latest.items.length, latestItems);
  }
});

test('the page cache: fresh hits, expiry by time, by content version, and a memory bound that evicts the oldest', () => {
  let now = 0;
  let version = 1;
  const cache = new PageCache(
    1_000,
    100_000,
    () => version,
    () => now,
  );
  const page = (n: number) => ({ html: 'x'.repeat(n), headers: {}, nonce: 'n' });
  cache.set('/a', page(10_000));
  assert.ok(cache.get('/a'));
  now = 1_001;
  assert.equal(cache.get('/a'), null, 'expired');
  cache.set('/a', page(10_000));
  version = 2;
  assert.equal(cache.get('/a'), null, 'the content changed');
  for (const key of ['/1', '/2', '/3', '/4', '/5', '/6']) cache.set(key, page(10_000));
  assert.ok(cache.bytes <= 100_000);
  assert.equal(cache.get('/1'), null, 'the least recently used went first');
  assert.ok(cache.get('/6'));
  cache.set('/huge', page(60_000));
  assert.equal(cache.get('/huge'), null, 'a page larger than the whole budget is not kept');
});

test('over a socket: cached pages get a fresh nonce, errors are never cached, an ingested update shows at once', async () => {
  const token = 'render-test-ingest-token-0123456789abcdef';
  const server = await serveTestApp(dbPath, undefined, { PAGE_CACHE_TTL_MS: '60000', INGEST_TOKEN: token });
  try {
    const first = await fetch(server.baseUrl + articlePath);
    assert.equal(first.headers.get('x-page-cache'), null);
    const second = await fetch(server.baseUrl + articlePath);
    assert.equal(second.headers.get('x-page-cache'), 'hit');
    assert.equal(second.headers.get('x-render-mode'), 'ssr');
    const [a, b] = [await first.text(), await second.text()];
    const nonceOf = (html: string) => / nonce="([^"]+)"/.exec(html)?.[1];
    assert.notEqual(nonceOf(a), nonceOf(b));
    assert.ok(second.headers.get('content-security-policy')!.includes(`'nonce-${nonceOf(b)}'`));
    assert.equal(withoutNonce(b), withoutNonce(a));

    for (let i = 0; i < 2; i++) assert.equal((await fetch(`${server.baseUrl}/news/999999999999999999`)).headers.get('x-page-cache'), null);

    const id = articlePath.split('/')[2]!;
    const current = (await content.article(id))!;
    const update = await fetch(`${server.baseUrl}/api/ingest/articles/${id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        section: current.section,
        status: 'published',
        title: 'Updated: the correction is in',
        lead: current.lead,
        author: current.author,
        image: current.image,
        publishedAt: current.publishedAt,
        body: current.body,
        // Later than the seeded version, which the correction replaces.
        modifiedAt: new Date().toISOString(),
      }),
    });
    assert.equal(update.status, 200);
    const fresh = await fetch(server.baseUrl + articlePath);
    assert.equal(fresh.headers.get('x-page-cache'), null, 'the update dropped the cached page');
    assert.match(await fresh.text(), /Updated: the correction is in/);
  } finally {
    await server.close();
  }
});
