// The newsroom-API adapter against a real Kiosk as its newsroom API, through a double that
// misbehaves on demand (test/flaky-newsroom.ts), all on real sockets: the adapter
// alone, then the whole site over it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Article, SectionPage, Teaser } from '../../src/content';
import { cacheControl } from '../cache-policy';
import { serveTestApp, serveTestSite, seedTempStore, textOf, type TestServer } from '../../test/server';
import { startFlakyNewsroom, type FlakyNewsroom, type NewsroomMode } from '../../test/flaky-newsroom';
import { describeReaderContract } from '../../test/store-contract';
import { ContentUnavailable } from './failure';
import { openNewsroomApi } from './newsroom-api';
import { contentOver, type Content } from './open';
import type { ContentReader } from './source';

const timeoutMs = 500;
/** A page request must be answered within the content timeout plus this (generous: the test machine is shared). */
const marginMs = 1_500;
const seeded = { published: 200, drafts: 5 } as const;
const failingModes: NewsroomMode[] = ['hang', 'reset', 'error500', 'not-json', 'wrong-shape', 'html', 'slow', 'huge'];

let dir: string;
let kiosk: TestServer;
let newsroom: FlakyNewsroom;
let article: Article;
const opened: Content[] = [];

before(async () => {
  ({ dir } = await seedTempStore(seeded.published, seeded.drafts));
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
  /** Another newsroom than the file's shared one. */
  baseUrl?: string;
}

type Adapter = ContentReader & { content: Content; cacheStats(): { entries: number; bytes: number } };

/** The newsroom API as a worker reads it: the store, and the content cache over it. */
function adapter(options: AdapterOptions = {}): Adapter {
  const content = contentOver(
    openNewsroomApi({ baseUrl: options.baseUrl ?? newsroom.url, timeoutMs }),
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

/**
 * A newsroom of the test's own, for a test that counts what the newsroom is asked: requests an
 * earlier test's pages sent to the shared one before they failed may still be arriving there.
 */
async function withOwnNewsroom(run: (own: FlakyNewsroom) => Promise<void>): Promise<void> {
  const own = await startFlakyNewsroom(kiosk.baseUrl);
  try {
    await run(own);
  } finally {
    await own.close();
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
    await withOwnNewsroom(async (own) => {
      own.mode = 'ok';
      const source = adapter({ baseUrl: own.url });
      assert.equal(await source.article('209912312359000000'), null);
      const before = own.requests;
      assert.equal(await source.article('../../admin'), null);
      assert.equal(await source.article('1?x=1'), null);
      assert.equal(await source.section('weather' as 'news'), null);
      await assert.rejects(source.section('news', { cursor: '../x' }), RangeError);
      assert.equal(own.requests, before);
      assert.equal(source.cacheStats().entries, 0, 'not-found answers are not kept');
    });
  });

  test('keep-alive: connections carry request after request', async () => {
    await withOwnNewsroom(async (own) => {
      own.mode = 'ok';
      const source = adapter({ baseUrl: own.url });
      const before = { connections: own.connections, requests: own.requests };
      const ids = (await kiosk.content.latest(20)).map((h) => h.id);
      for (const id of ids) assert.ok(await source.article(id));
      const requests = own.requests - before.requests;
      const connections = own.connections - before.connections;
      // An article page asks for the article, then its tags' and its section's lists at once: no
      // more connections than one page's lists, however many requests.
      assert.ok(requests > 40 && connections <= 8, `${connections} connections for ${requests} requests`);
    });
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
    // The paths a section page asks for, answered as the newsroom answers them, then changed:
    // each round answers the paths known so far and learns the next one asked.
    newsroom.mode = 'custom';
    const real = new Map<string, SectionPage>();
    for (let round = 0; round < 5; round += 1) {
      const asked = new Set<string>();
      newsroom.custom = (path) => {
        const page = real.get(path);
        if (page === undefined) asked.add(path);
        return page === undefined
          ? { status: 500, type: 'application/json', body: '{}' }
          : { status: 200, type: 'application/json', body: JSON.stringify(page) };
      };
      if (
        (await adapter()
          .section('news')
          .catch(() => null)) !== null &&
        asked.size === 0
      )
        break;
      for (const path of asked) real.set(path, (await (await fetch(kiosk.baseUrl + path)).json()) as SectionPage);
    }
    const answering = (change: (page: SectionPage) => unknown) => (path: string) => ({
      status: 200,
      type: 'application/json',
      body: JSON.stringify(change(real.get(path)!)),
    });
    newsroom.custom = answering((page) => ({ ...page, internalNote: 'x', items: page.items.map((t) => ({ ...t, editorEmail: 'a@b' })) }));
    const section = (await adapter().section('news'))!;
    assert.deepEqual(section, await kiosk.content.section('news'));
    assert.equal('editorEmail' in section.items[0]!, false);

    const first = (page: SectionPage, change: (teaser: Teaser) => unknown) => ({ ...page, items: [change(page.items[0]!), ...page.items.slice(1)] });
    const hostile = [
      (page: SectionPage) => first(page, (t) => ({ ...t, image: { ...t.image, src: 'javascript:alert(1)' } })),
      (page: SectionPage) => first(page, (t) => ({ ...t, id: '../1' })),
      (page: SectionPage) => first(page, (t) => ({ ...t, section: 'weather' })),
      (page: SectionPage) => first(page, (t) => ({ ...t, title: 'x'.repeat(10_000) })),
      (page: SectionPage) => ({ ...page, items: Array.from({ length: 1_000 }, () => page.items[0]) }),
    ];
    for (const change of hostile) {
      newsroom.custom = answering(change);
      await assert.rejects(adapter().section('news'), isContentUnavailable);
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

  test('readers of the same page share its requests to the API', async () => {
    await withOwnNewsroom(async (own) => {
      own.mode = 'hang';
      const source = adapter({ baseUrl: own.url });
      const results = await Promise.all(Array.from({ length: 10 }, () => timed(() => source.frontPage())));
      assert.ok(results.every((r) => isContentUnavailable(r.error)));
      const asked = [...own.paths];
      // The front page's lists (every section's, which make the everything list too) and its tags.
      assert.ok(asked.length >= 13, asked.join(' '));
      assert.equal(new Set(asked).size, asked.length, `ten readers, each path asked once: ${asked.join(' ')}`);
    });
  });

  test('within the fresh time the API is not asked again', async () => {
    await withOwnNewsroom(async (own) => {
      own.mode = 'ok';
      const source = adapter({ freshMs: 60_000, baseUrl: own.url });
      const before = own.requests;
      await source.frontPage();
      const asked = own.requests;
      assert.ok(asked > before);
      await source.frontPage();
      await source.latest();
      await source.section('news');
      assert.equal(own.requests, asked, 'the front page, the latest list and a section page: nothing asked again');
    });
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
    await withOwnNewsroom(async (own) => {
      own.mode = 'ok';
      let now = 0;
      const source = adapter({ backoffMs: 400, now: () => now, baseUrl: own.url });
      const good = await source.frontPage();
      own.mode = 'reset';
      assert.deepEqual(await source.frontPage(), good, 'stale copy');
      const before = own.requests;
      now = 399;
      assert.deepEqual(await source.frontPage(), good, 'stale copy, without asking');
      await assert.rejects(source.mostRead(), isContentUnavailable, 'nothing cached: at once a 503');
      assert.equal(own.requests, before);
      now = 400;
      own.mode = 'ok';
      assert.ok(await source.mostRead());
      assert.equal(own.requests, before + 1);
    });
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

describe('the store contract, read through the newsroom API', () => {
  // A second reader over the first Kiosk's /api, directly (no misbehaving double between): the
  // contract's reads answer as they do over the SQLite store that Kiosk serves from.
  let reader: ContentReader;
  before(() => {
    const content = contentOver(
      openNewsroomApi({ baseUrl: `${kiosk.baseUrl}/api`, timeoutMs: 5_000 }),
      { contentTimeoutMs: 5_000, contentFreshS: 60, contentStaleS: 60, contentCacheEntries: 10_000, contentCacheMb: 64 },
      {},
      {},
    );
    opened.push(content);
    reader = content.reader;
  });
  describeReaderContract(() => reader, seeded);

  test('what the newsroom API cannot answer is said, not made up', async () => {
    // Previews are refused at start-up with CONTENT_API_URL; asked anyway, the 503 says why in its cause.
    await assert.rejects(
      reader.articleAnyStatus(article.id),
      (error) => error instanceof ContentUnavailable && /drafts are not available from the newsroom API/.test(String((error.cause as Error).message)),
    );
    const { store } = opened.at(-1)!;
    await assert.rejects(store.count(), /does not say how many/);
    assert.equal(store.changes, null);
  });
});
