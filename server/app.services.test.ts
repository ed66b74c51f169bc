import assert from 'node:assert/strict';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { after, before, describe, test } from 'node:test';
import type { Article, FrontPage, SectionPage, Teaser } from '../src/content';
import { stateElementId } from '../src/page-contract';
import { sections } from '../src/sections';
import { cacheControl } from './cache-policy';
import { openSqliteStore } from './content/sqlite';
import { seedTempStore, serveTestApp, textOf, type TestServer } from '../test/server';

let server: TestServer;
let dir: string;
let article: Article;

before(async () => {
  ({ dir } = await seedTempStore(600, 20));
  server = await serveTestApp(`${dir}/kiosk.sqlite`);
  const [first] = await server.content.latest(1);
  article = (await server.content.article(first!.id))!;
});

after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function get(path: string, init?: RequestInit) {
  return fetch(server.baseUrl + path, { redirect: 'manual', ...init });
}

function stateOf(html: string): unknown {
  const match = new RegExp(`<script id="${stateElementId}" type="application/json" nonce="[^"]+">([^<]*)</script>`).exec(html);
  assert.ok(match, 'the document carries the serialized state');
  return JSON.parse(match[1]!);
}

describe('server-rendered pages', () => {
  test('an article page has its headline and body text in the HTML, with no JavaScript needed', async () => {
    const res = await get(`/${article.section}/${article.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-render-mode'), 'ssr');
    assert.equal(res.headers.get('cache-control'), cacheControl.article);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    const text = textOf(html);
    assert.ok(text.includes(article.title), 'headline');
    assert.ok(text.includes(article.lead), 'lead');
    for (const block of article.body) assert.ok(text.includes(block.text), `body block: ${block.text.slice(0, 40)}`);
    assert.ok(text.includes(article.author), 'byline');
    assert.equal(html.match(/<h1[\s>]/g)?.length, 1, 'exactly one h1');
    assert.match(html, /<main id="main"/);
    assert.match(html, /<html lang="en">/);
    assert.match(html, /data-render-mode="ssr"/);
    assert.ok(html.includes(`<link rel="canonical" href="https://kiosk.example/${article.section}/${article.id}">`));
    assert.match(html, /<meta property="og:type" content="article">/);
    assert.ok(html.includes(`<meta property="og:image" content="https://kiosk.example${article.image.src}">`));
    assert.ok(html.includes(`alt="${article.image.alt}"`));
    assert.match(html, /<script defer src="\/assets\/main\.test\.js" nonce="[A-Za-z0-9+/=]{24}"><\/script>/);
    assert.ok(html.includes('<link rel="stylesheet" href="/assets/main.test.css">'));
    assert.ok(text.includes('Latest news'));
  });

  test('the serialized state holds the article and the latest list, and nothing from other requests', async () => {
    const html = await (await get(`/${article.section}/${article.id}`)).text();
    const state = stateOf(html) as { articles: Record<string, Article>; latest: { items: { id: string }[] }; frontPage: { page: unknown } };
    assert.deepEqual(Object.keys(state.articles), [article.id]);
    assert.equal(state.articles[article.id]!.title, article.title);
    assert.equal(state.latest.items.length, 5, 'SSR_LATEST_ITEMS: the browser completes the list');
    assert.equal(state.frontPage.page, null, 'a fresh store per request');
  });

  test('the front page leads with the newest story and has teasers from every section', async () => {
    const res = await get('/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), cacheControl.front);
    const html = await res.text();
    const text = textOf(html);
    for (const s of sections) assert.ok(text.includes(s.name), s.name);
    const teasers = html.match(/class="teaser teaser--/g)?.length ?? 0;
    assert.ok(teasers >= 35 && teasers <= 45, `about 40 teasers, got ${teasers}`);
    assert.equal(html.match(/<h1[\s>]/g)?.length, 1);
  });

  test('a section page lists its newest stories', async () => {
    const res = await get('/sport');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), cacheControl.section);
    const html = await res.text();
    assert.match(html, /<h1>Sport<\/h1>/);
    const page = (await server.content.section('sport'))!;
    assert.ok(textOf(html).includes(page.items[0]!.title));
    assert.match(html, /More sport/);
  });

  test('unknown section, unknown article and unknown paths get the 404 page', async () => {
    for (const path of ['/weather', '/sport/209912312359000000', '/sport/not-an-id', '/a/b/c']) {
      const res = await get(path);
      assert.equal(res.status, 404, path);
      const html = await res.text();
      assert.match(html, /Page not found/, path);
      assert.match(html, /<meta name="robots" content="noindex">/, path);
      assert.doesNotMatch(html, /rel="canonical"/, path);
    }
  });

  test('an article under the wrong section redirects permanently to its one address', async () => {
    const other = sections.find((s) => s.slug !== article.section)!;
    const res = await get(`/${other.slug}/${article.id}`);
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), `/${article.section}/${article.id}`);
  });

  test('a trailing slash redirects to the address without it', async () => {
    const res = await get('/sport/');
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '/sport');
  });

  test('drafts are never served on public pages', async () => {
    const draft = await findDraft();
    assert.ok(draft, 'the seeded store has drafts');
    assert.equal(draft.status, 'draft');
    const res = await get(`/${draft.section}/${draft.id}`);
    assert.equal(res.status, 404);
    assert.ok(!(await res.text()).includes(draft.title));
    const api = await get(`/api/articles/${draft.id}`);
    assert.equal(api.status, 404);
  });

  test('methods other than GET and HEAD on pages are 405 with Allow', async () => {
    const res = await get('/', { method: 'POST', body: 'x' });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'GET, HEAD');
    assert.match(await res.text(), /only answers GET and HEAD/);
  });

  test('malformed percent-encoding and control characters are 400 pages, not 500', async () => {
    for (const path of ['/%E0%A4%A', '/news/%00', '/%ZZ']) {
      const res = await get(path);
      assert.equal(res.status, 400, path);
      const html = await res.text();
      assert.match(html, /could not be answered/, path);
      assert.doesNotMatch(html, /at \w+ \(/, `no stack trace for ${path}`);
    }
  });

  test('HEAD answers headers without a body', async () => {
    const res = await get(`/${article.section}/${article.id}`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-render-mode'), 'ssr');
    assert.equal(await res.text(), '');
  });
});

describe('JSON API', () => {
  test('front page: a lead and three teasers from each section', async () => {
    const res = await get('/api/front');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), cacheControl.front);
    const body = (await res.json()) as FrontPage;
    assert.ok(body.lead.id);
    assert.deepEqual(
      body.sections.map((s) => s.section),
      sections.map((s) => s.slug),
    );
    for (const s of body.sections) assert.equal(s.teasers.length, 3);
  });

  test('a section pages by cursor without overlap', async () => {
    const first = (await (await get('/api/sections/news?limit=5')).json()) as SectionPage;
    assert.equal(first.items.length, 5);
    assert.ok(first.nextCursor);
    const res = await get(`/api/sections/news?limit=5&cursor=${first.nextCursor}`);
    assert.equal(res.headers.get('cache-control'), cacheControl.section);
    const second = (await res.json()) as SectionPage;
    assert.equal(second.items.length, 5);
    const ids = new Set(first.items.map((t) => t.id));
    for (const t of second.items) assert.ok(!ids.has(t.id));
    assert.ok(second.items[0]!.id < first.items[4]!.id, 'newest first');
    assert.deepEqual(Object.keys(first.items[0]!).sort(), ['id', 'image', 'lead', 'publishedAt', 'section', 'title']);
  });

  test('one article, with its structured body', async () => {
    const res = await get(`/api/articles/${article.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), cacheControl.article);
    const body = (await res.json()) as { article: Article };
    assert.equal(body.article.id, article.id);
    assert.ok(body.article.body.length >= 8 && body.article.body.length <= 15);
  });

  test('the latest list', async () => {
    const body = (await (await get('/api/latest?limit=3')).json()) as { items: Teaser[] };
    assert.equal(body.items.length, 3);
    assert.deepEqual(Object.keys(body.items[0]!).sort(), ['id', 'publishedAt', 'section', 'title']);
  });

  const malformed: [string, RegExp][] = [
    ['/api/articles/12345', /18 digits/],
    ['/api/articles/abc', /18 digits/],
    ['/api/sections/Sport', /lower-case/],
    ['/api/sections/news?cursor=abc', /cursor/],
    ['/api/sections/news?limit=0', /limit/],
    ['/api/sections/news?limit=500', /limit/],
    ['/api/sections/news?limit=5&limit=6', /once/],
    ['/api/articles/%E0%A4%A', /malformed/],
  ];
  for (const [path, message] of malformed) {
    test(`malformed input is a 400 JSON error: ${path}`, async () => {
      const res = await get(path);
      assert.equal(res.status, 400);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(res.headers.get('cache-control'), cacheControl.noStore);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'bad_request');
      assert.match(body.error.message, message);
    });
  }

  for (const path of ['/api/sections/weather', '/api/articles/209912312359000000', '/api/nothing', '/api']) {
    test(`unknown things are a 404 JSON error: ${path}`, async () => {
      const res = await get(path);
      assert.equal(res.status, 404);
      const body = (await res.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'not_found');
    });
  }

  test('writes to the API are 405 JSON', async () => {
    const res = await get('/api/front', { method: 'DELETE' });
    assert.equal(res.status, 405);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'method_not_allowed');
  });
});

describe('state escaping', () => {
  test('a title carrying </script><script> and U+2028 round-trips safely through a real page', async () => {
    const hostile = '</script><script>window.__pwned=1</script>\u2028 \u2029 <!-- & --> <img src=x onerror=alert(1)>';
    const writer = openSqliteStore(`${dir}/kiosk.sqlite`);
    const id = '209901010000000001';
    writer.insertMany([{ ...article, id, title: hostile, lead: hostile }]);
    writer.close();

    const res = await get(`/${article.section}/${id}`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.equal(html.match(/<script[\s>]/g)?.length, 2, 'the bundle script and the state element, nothing injected');
    assert.doesNotMatch(html, /<img src=x/);
    const stateText = /<script id="__KIOSK_STATE__" type="application\/json" nonce="[^"]+">([^<]*)<\/script>/.exec(html)![1]!;
    assert.doesNotMatch(stateText, /[<>&\u2028\u2029]/);
    const state = stateOf(html) as { articles: Record<string, Article> };
    assert.equal(state.articles[id]!.title, hostile, 'the title survives the round trip byte for byte');
    assert.ok(textOf(html).includes('</script><script>window.__pwned=1</script>'), 'shown as text');
  });
});

async function findDraft(): Promise<Article | null> {
  const db = new Database(`${dir}/kiosk.sqlite`, { readonly: true });
  try {
    const row = db.prepare("SELECT id FROM articles WHERE status = 'draft' LIMIT 1").get() as { id: string } | undefined;
    return row ? server.content.articleAnyStatus(row.id) : null;
  } finally {
    db.close();
  }
}
