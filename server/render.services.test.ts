import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { latestListSize, type ContentClient, type Teaser } from '../src/content';
import { ContentCache } from './content/cache';
import { ChangeHub } from './content/changes';
import { headSize } from './content/reader';
import { stateElementId } from '../src/page-contract';
import type { Content } from './content/open';
import type { ContentReader } from './content/source';
import { PageCache } from './page-cache';
import { WorkerMetrics } from './metrics/worker-metrics';
import { createPageHandler } from './pages';
import { pageLifetimes, shellCacheControl } from './cache-policy';
import { buildChrome, renderPage, type RenderDeps } from './render';
import { openSqliteContent, seedTempStore, serveTestApp, testAssets } from '../test/server';

let dir: string;
let dbPath: string;
let parts: Content;
let content: ContentReader;
let articlePath: string;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(200, 2));
  parts = await openSqliteContent(dbPath);
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

/** A page cache over a content cache of `maxBytes`, fed by a hub, on a clock the test moves. */
function pageCacheOver(maxBytes: number) {
  const clock = { ms: 0 };
  const changes = new ChangeHub();
  const cache = new ContentCache({
    name: 'test store',
    isOutage: () => false,
    changes,
    maxEntries: 1_000,
    maxBytes,
    staleMs: 0,
    freshMs: Infinity,
    backoffMs: 0,
    now: () => clock.ms,
  });
  const pages = new PageCache(1_000, cache, { noting: () => ({}) as ContentClient });
  /** Renders `path` as the reader would an article page: the article `id`, and the news section's head (ids 1 to 3). */
  async function render(path: string, id: string, length = 20_000) {
    const miss = pages.render();
    const reads = cache.noting(miss.reads);
    await reads.get(
      `article:${id}`,
      () => Promise.resolve({ id }),
      () => ({ article: id }),
    );
    await reads.get(
      'head:section:news',
      () => Promise.resolve(['3', '2', '1']),
      () => ({ list: 'section:news', from: null }),
    );
    pages.set(path, { html: 'x'.repeat(length), headers: {}, nonce: 'n' }, miss);
  }
  const news = { section: 'news' as const, tags: [], status: 'published' as const };
  const sport = { ...news, section: 'sport' as const };
  return { cache, pages, changes, clock, render, news, sport };
}

test('the page cache: in the content cache, expiry by time, dropped by a change to what it shows and by nothing else, one byte bound', async () => {
  const { cache, pages, changes, clock, render, news, sport } = pageCacheOver(100_000);
  await render('/a', '900');
  assert.ok(pages.get('/a'));
  clock.ms = 1_001;
  assert.equal(pages.get('/a'), null, 'expired');
  await render('/a', '900');
  await render('/b', '901');
  changes.emit({ kind: 'article', id: '900', now: sport, was: sport });
  assert.equal(pages.get('/a'), null, 'the article it shows changed');
  assert.ok(pages.get('/b'), 'another article changed, in no list it shows');
  changes.emit({ kind: 'article', id: '4', now: news, was: null });
  assert.equal(pages.get('/b'), null, 'a story entered a list it shows');
  for (const key of ['/1', '/2', '/3', '/4', '/5', '/6']) await render(key, '900');
  assert.ok(cache.stats().bytes <= 100_000);
  assert.equal(pages.get('/1'), null, 'the least recently used went first');
  assert.ok(pages.get('/6'));
  await render('/huge', '900', 120_000);
  assert.equal(pages.get('/huge'), null, 'a page larger than the whole budget is not kept');
  await render('/c', '900');
  const miss = pages.render();
  await cache.noting(miss.reads).get(
    'article:901',
    () => Promise.resolve({ id: '901' }),
    () => ({ article: '901' }),
  );
  changes.emit({ kind: 'article', id: '5', now: sport, was: null });
  pages.set('/d', { html: 'x', headers: {}, nonce: 'n' }, miss);
  assert.equal(pages.get('/d'), null, 'a change came while it was put together: not kept');
  assert.ok(pages.get('/c'), 'that change dropped none of what /c shows');
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

test('over a socket: a push drops the pages that show the article and keeps every other page warm', async () => {
  const token = 'render-test-ingest-token-0123456789abcdef';
  const server = await serveTestApp(dbPath, undefined, { PAGE_CACHE_TTL_MS: '60000', INGEST_TOKEN: token });
  try {
    const all = await parts.store.teasers('all', 1_000);
    // An article older than every list head reaches back to, listed on its section's first page.
    let pushed: Teaser | undefined;
    for (const teaser of all.slice(headSize + 1)) {
      if (!(await content.section(teaser.section))!.items.some((t) => t.id === teaser.id)) continue;
      pushed = teaser;
      break;
    }
    assert.ok(pushed, 'the seed has an old article on the first page of its section');
    const article = (await content.article(pushed.id))!;
    let unrelated: Teaser | undefined;
    for (const teaser of all) {
      const other = await content.article(teaser.id);
      if (other!.section !== article.section && !other!.tags.some((tag) => article.tags.includes(tag))) {
        unrelated = teaser;
        break;
      }
    }
    assert.ok(unrelated, 'the seed has an article in another section with none of its tags');
    const dropped = [`/${article.section}/${article.id}`, `/${article.section}`];
    const kept = `/${unrelated.section}/${unrelated.id}`;
    for (const path of [...dropped, kept]) {
      await fetch(server.baseUrl + path);
      const again = await fetch(server.baseUrl + path);
      assert.equal(again.headers.get('x-page-cache'), 'hit', path);
      if (path === `/${article.section}`) assert.match(await again.text(), new RegExp(article.id), 'the section page lists it');
    }
    const update = await fetch(`${server.baseUrl}/api/ingest/articles/${article.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        section: article.section,
        status: 'published',
        title: 'Corrected: an old story',
        lead: article.lead,
        author: article.author,
        image: article.image,
        publishedAt: article.publishedAt,
        body: article.body,
        tags: article.tags,
        modifiedAt: new Date().toISOString(),
      }),
    });
    assert.equal(update.status, 200);
    for (const path of dropped) {
      const fresh = await fetch(server.baseUrl + path);
      assert.equal(fresh.headers.get('x-page-cache'), null, `${path}: the push dropped it`);
      assert.match(await fresh.text(), /Corrected: an old story/, path);
    }
    assert.equal((await fetch(server.baseUrl + kept)).headers.get('x-page-cache'), 'hit', `${kept}: shows nothing the push changed`);
  } finally {
    await server.close();
  }
});

test("a page whose content may show what a change took back (the content cache's mark moved while it was put together) gets the shell's short edge lifetime", async () => {
  // The mark as the content cache moves it: here by the article's read, as when a change comes
  // in during the render or a list is handed out as it was while read again (server/content/cache.ts).
  let mark = 0;
  let moveDuringRender = false;
  const moving: ContentClient = {
    ...content,
    articleWithTeasers: async (id) => {
      if (moveDuringRender) mark += 1;
      return content.articleWithTeasers(id);
    },
  };
  const short = shellCacheControl(5);
  const handler = createPageHandler({
    render: { content: moving, assets: testAssets, siteUrl: 'https://kiosk.example', lifetimes: pageLifetimes(true) },
    metrics: new WorkerMetrics(),
    vouching: { mark: () => mark, cacheControl: short },
  });
  const server = http.createServer((req, res) => handler(req, res, () => res.writeHead(405).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}${articlePath}`;
  try {
    const steady = await fetch(url);
    assert.equal(steady.status, 200);
    assert.equal(steady.headers.get('cache-control'), pageLifetimes(true).article, 'nothing moved: the article lifetime, long while edge purge is on');
    await steady.text();
    moveDuringRender = true;
    const moved = await fetch(url);
    assert.equal(moved.status, 200);
    assert.equal(moved.headers.get('cache-control'), short, 'the mark moved: no edge keeps it past a purge already sent');
    assert.notEqual(short, pageLifetimes(true).article);
    await moved.text();
  } finally {
    server.close();
  }
});
