// The newsroom-API adapter against a real Kiosk as its newsroom API, through a double that
// misbehaves on demand (test/flaky-newsroom.ts), all on real sockets: the adapter
// alone, then the whole site over it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Article, FrontPage } from '../../src/content';
import { cacheControl } from '../cache-policy';
import { serveTestApp, serveTestSite, seedTempStore, textOf, type TestServer } from '../../test/server';
import { startFlakyNewsroom, type FlakyNewsroom, type NewsroomMode } from '../../test/flaky-newsroom';
import { ContentUnavailable } from './failure';
import { openNewsroomApi } from './newsroom-api';
import { contentOver, type Content } from './open';
import type { ContentReader } from './source';

const timeoutMs = 500;
/** A page request must be answered within the content timeout plus this (generous: the test machine is shared). */
const marginMs = 1_500;
const failingModes: NewsroomMode[] = ['hang', 'reset', 'error500', 'not-json', 'wrong-shape', 'html', 'slow', 'huge'];

let dir: string;
let kiosk: TestServer;
let newsroom: FlakyNewsroom;
let article: Article;
const opened: Content[] = [];

before(async () => {
  ({ dir } = await seedTempStore(200, 5));
  kiosk = await serveTestApp(`${dir}/kiosk.sqlite`);
  newsroom = await startFlakyNewsroom(kiosk.baseUrl);
  const [first] = await kiosk.content.latest(1);
  article = (await kiosk.content.article(first!.id))!;
  // The first renders of a fresh process are slow; none of them should count against a timeout.
  for (const path of ['/api/front', '/api/sections/sport', `/api/articles/${article.id}`, '/api/latest', '/', '/sport', `/${article.section}/${article.id}`]) {
    await fetch(kiosk.baseUrl + path);
  }
});

after(async () => {
  for (const content of opened) await content.close();
  await newsroom.close();
  await kiosk.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface AdapterOptions {
  freshMs?: number;
  staleMs?: number;
  maxEntries?: number;
  maxBytes?: number;
  backoffMs?: number;
  now?: () => number;
}

type Adapter = ContentReader & { content: Content; cacheStats(): { entries: number; bytes: number } };

/** The newsroom API as a worker reads it: the store, and the content cache over it. */
function adapter(options: AdapterOptions = {}): Adapter {
  const content = contentOver(
    openNewsroomApi({ baseUrl: newsroom.url, timeoutMs }),
    {
      contentTimeoutMs: timeoutMs,
      contentFreshS: (options.freshMs ?? 0) / 1000,
      contentStaleS: (options.staleMs ?? 60_000) / 1000,
      contentCacheEntries: options.maxEntries ?? 1_000,
      contentCacheMb: (options.maxBytes ?? 16 * 1024 * 1024) / (1024 * 1024),
    },
    { backoffMs: options.backoffMs ?? 0, now: options.now },
    {},
  );
  opened.push(content);
  return { ...content.reader, content, cacheStats: () => content.cache.stats() };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await work();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

function isContentUnavailable(error: unknown): boolean {
  return error instanceof ContentUnavailable;
}

describe('the newsroom-API adapter', () => {
  test('healthy: it answers exactly what the newsroom holds', async () => {
    newsroom.mode = 'ok';
    const source = adapter();
    assert.deepEqual(await source.frontPage(), await kiosk.content.frontPage());
    assert.deepEqual(await source.section('news'), await kiosk.content.section('news'));
    const first = (await source.section('news', { limit: 3 }))!;
    assert.equal(first.items.length, 3);
    assert.deepEqual(
      await source.section('news', { limit: 3, cursor: first.nextCursor! }),
      await kiosk.content.section('news', { limit: 3, cursor: first.nextCursor! }),
    );
    assert.deepEqual(await source.article(article.id), article);
    assert.deepEqual(await source.latest(5), await kiosk.content.latest(5));
    assert.deepEqual(await source.latest(), await kiosk.content.latest());
  });

  test('unknown articles and sections are null; ids and slugs of the wrong shape never reach the API', async () => {
    newsroom.mode = 'ok';
    const source = adapter();
    assert.equal(await source.article('209912312359000000'), null);
    const before = newsroom.requests;
    assert.equal(await source.article('../../admin'), null);
    assert.equal(await source.article('1?x=1'), null);
    assert.equal(await source.section('weather' as 'news'), null);
    await assert.rejects(source.section('news', { cursor: '../x' }), RangeError);
    assert.equal(newsroom.requests, before);
    assert.equal(source.cacheStats().entries, 0, 'not-found answers are not kept');
  });

  test('keep-alive: one connection carries request after request', async () => {
    newsroom.mode = 'ok';
    const source = adapter();
    const before = newsroom.connections;
    const ids = (await kiosk.content.latest(20)).map((h) => h.id);
    for (const id of ids) assert.ok(await source.article(id));
    assert.ok(newsroom.connections - before <= 2, `${newsroom.connections - before} connections for 21 requests`);
  });

  for (const mode of failingModes) {
    test(`${mode}, nothing cached: contentUnavailable within the timeout, no crash`, async () => {
      newsroom.mode = mode;
      const source = adapter();
      const results = await Promise.all([
        timed(() => source.frontPage()),
        timed(() => source.section('sport')),
        timed(() => source.article(article.id)),
        timed(() => source.latest()),
      ]);
      for (const { ms, error } of results) {
        assert.ok(isContentUnavailable(error), `rejects with contentUnavailable, got ${String(error)}`);
        assert.ok(ms < timeoutMs + marginMs, `answered in ${Math.round(ms)} ms`);
      }
    });

    test(`${mode}, after a good answer: the recent copy within the timeout`, async () => {
      newsroom.mode = 'ok';
      const source = adapter();
      const good = { front: await source.frontPage(), article: await source.article(article.id) };
      newsroom.mode = mode;
      const front = await timed(() => source.frontPage());
      const again = await timed(() => source.article(article.id));
      assert.deepEqual(front.value, good.front);
      assert.deepEqual(again.value, good.article);
      for (const { ms } of [front, again]) assert.ok(ms < timeoutMs + marginMs, `answered in ${Math.round(ms)} ms`);
    });
  }

  test('answers are checked field by field: unknown fields dropped, a bad value refused', async () => {
    const real = (await (await fetch(`${kiosk.baseUrl}/api/front`)).json()) as FrontPage;
    newsroom.mode = 'custom';
    newsroom.custom = () => ({
      status: 200,
      type: 'application/json',
      body: JSON.stringify({ ...real, internalNote: 'x', lead: { ...real.lead, editorEmail: 'a@b' } }),
    });
    const front = await adapter().frontPage();
    assert.deepEqual(front, real);
    assert.equal('editorEmail' in front.lead, false);

    const hostile = [
      { ...real, lead: { ...real.lead, image: { ...real.lead.image, src: 'javascript:alert(1)' } } },
      { ...real, lead: { ...real.lead, id: '../1' } },
      { ...real, lead: { ...real.lead, section: 'weather' } },
      { ...real, lead: { ...real.lead, title: 'x'.repeat(10_000) } },
      { ...real, sections: Array.from({ length: 1_000 }, () => real.sections[0]) },
    ];
    for (const body of hostile) {
      newsroom.custom = () => ({ status: 200, type: 'application/json', body: JSON.stringify(body) });
      await assert.rejects(adapter().frontPage(), isContentUnavailable);
    }
  });

  test('an article the API calls a draft, or another article than the one asked for, is never shown', async () => {
    newsroom.mode = 'custom';
    newsroom.custom = () => ({ status: 200, type: 'application/json', body: JSON.stringify({ article: { ...article, status: 'draft' } }) });
    assert.equal(await adapter().article(article.id), null);
    newsroom.custom = () => ({ status: 200, type: 'application/json', body: JSON.stringify({ article: { ...article, id: '209912312359000000' } }) });
    await assert.rejects(adapter().article(article.id), isContentUnavailable);
  });

  test('an answer declaring more than the size bound is refused before it is read', async () => {
    newsroom.mode = 'custom';
    newsroom.custom = () => ({ status: 200, type: 'application/json', body: `"${'x'.repeat(3 * 1024 * 1024)}"` });
    await assert.rejects(adapter().frontPage(), isContentUnavailable);
  });

  test('readers of the same page share one request to the API', async () => {
    newsroom.mode = 'hang';
    const source = adapter();
    const before = newsroom.requests;
    const results = await Promise.all(Array.from({ length: 10 }, () => timed(() => source.frontPage())));
    assert.ok(results.every((r) => isContentUnavailable(r.error)));
    assert.equal(newsroom.requests - before, 1);
  });

  test('within the fresh time the API is not asked again', async () => {
    newsroom.mode = 'ok';
    const source = adapter({ freshMs: 60_000 });
    const before = newsroom.requests;
    await source.frontPage();
    await source.frontPage();
    assert.equal(newsroom.requests - before, 1);
  });

  test('up to the stale time a failure is answered from the old copy; past it, a 503', async () => {
    newsroom.mode = 'ok';
    let now = 0;
    const source = adapter({ staleMs: 100, now: () => now });
    const good = await source.frontPage();
    newsroom.mode = 'error500';
    now = 100;
    assert.deepEqual(await source.frontPage(), good, 'at the stale time: the old copy');
    now = 101;
    await assert.rejects(source.frontPage(), isContentUnavailable);
  });

  test('after an outage the API is left alone for the backoff, then asked again', async () => {
    newsroom.mode = 'ok';
    let now = 0;
    const source = adapter({ backoffMs: 400, now: () => now });
    const good = await source.frontPage();
    newsroom.mode = 'reset';
    assert.deepEqual(await source.frontPage(), good, 'stale copy');
    const before = newsroom.requests;
    now = 399;
    assert.deepEqual(await source.frontPage(), good, 'stale copy, without asking');
    await assert.rejects(source.latest(), isContentUnavailable, 'nothing cached: at once a 503');
    assert.equal(newsroom.requests, before);
    now = 400;
    newsroom.mode = 'ok';
    assert.ok(await source.latest());
    assert.equal(newsroom.requests, before + 1);
  });

  test('the cache stays bounded by entries and by bytes', async () => {
    newsroom.mode = 'ok';
    const ids = (await kiosk.content.latest(40)).map((h) => h.id);
    const byEntries = adapter({ maxEntries: 10 });
    for (const id of ids) await byEntries.article(id);
    assert.equal(byEntries.cacheStats().entries, 10);

    const byBytes = adapter({ maxBytes: 30_000 });
    for (const id of ids) await byBytes.article(id);
    const { entries, bytes } = byBytes.cacheStats();
    assert.ok(bytes <= 30_000 && entries >= 1 && entries < ids.length, `${entries} entries, ${bytes} bytes`);
  });
});

describe('the site over the newsroom API', () => {
  const paths = () => ['/', '/sport', `/${article.section}/${article.id}`];

  test('healthy: pages render as they do from the newsroom itself', async () => {
    newsroom.mode = 'ok';
    const site = await serveTestSite(adapter().content);
    try {
      for (const path of paths()) {
        const [ours, theirs] = await Promise.all([fetch(site.baseUrl + path), fetch(kiosk.baseUrl + path)]);
        assert.equal(ours.status, 200, path);
        assert.equal(ours.headers.get('x-render-mode'), 'ssr');
        assert.equal(textOf(await ours.text()), textOf(await theirs.text()), path);
      }
    } finally {
      await site.close();
    }
  });

  for (const mode of failingModes) {
    test(`${mode}: 503 pages and JSON when nothing is cached, 200 from the recent copy when it is`, async () => {
      newsroom.mode = 'ok';
      const cold = await serveTestSite(adapter().content);
      const warm = await serveTestSite(adapter().content);
      try {
        for (const path of paths()) assert.equal((await fetch(warm.baseUrl + path)).status, 200);
        newsroom.mode = mode;
        const requests = [...paths(), '/api/front'].flatMap((path) => [
          timed(() => fetch(cold.baseUrl + path).then(async (res) => ({ path, res, body: await res.text(), cached: false }))),
          timed(() => fetch(warm.baseUrl + path).then(async (res) => ({ path, res, body: await res.text(), cached: true }))),
        ]);
        for (const { ms, value, error } of await Promise.all(requests)) {
          assert.ok(value, `answered: ${String(error)}`);
          const { path, res, body, cached } = value;
          const what = `${cached ? 'warm' : 'cold'} ${path}`;
          assert.ok(ms < timeoutMs + marginMs, `${what} answered in ${Math.round(ms)} ms`);
          if (cached) {
            assert.equal(res.status, 200, what);
            continue;
          }
          assert.equal(res.status, 503, what);
          assert.equal(res.headers.get('retry-after'), '5', what);
          assert.equal(res.headers.get('cache-control'), cacheControl.contentUnavailable, what);
          assert.doesNotMatch(body, /^\s*at |ShapeError|UpstreamError|ECONNRESET/m, `${what}: no internals`);
          if (path === '/api/front') {
            assert.deepEqual(JSON.parse(body), {
              error: { code: 'content_unavailable', message: 'The news could not be fetched just now. Please try again in a few seconds.' },
            });
          } else {
            assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
            assert.match(textOf(body), /could not be fetched just now/, what);
          }
        }
      } finally {
        await cold.close();
        await warm.close();
      }
    });
  }
});
