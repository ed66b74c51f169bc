// Slugs that name members of Object.prototype, through the browser's side of the routes: the
// store's thunks and reducers, then the page rendered from the store, as the shell and an
// in-browser navigation do it. client/prototype-keys.browser.test.ts runs the same in Chromium.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { App } from '../App';
import type { ContentClient, TagPage, Teaser } from '../content';
import { resolveRoute, type PageResult } from '../routes';
import { createStore, type RootState } from './index';
import { storeData } from './page-data';
import { loadMoreOf } from './thunks';

// Valid tag slugs (lower-case words) that a plain object answers from its prototype, or would if
// the slug rules were looser.
const tagSlugs = ['constructor', 'valueof', 'tostring', 'hasownproperty'];
const oddPaths = [
  '/constructor',
  '/toString',
  '/__proto__',
  '/valueOf',
  '/hasOwnProperty',
  '/tag/__proto__',
  '/tag/toString',
  '/constructor/202611221200000001',
  '/__proto__/202611221200000001',
];

function teaser(n: number, tag: string): Teaser {
  const id = `2026112212${String(n).padStart(8, '0')}`;
  return {
    id,
    section: 'news',
    title: `Story ${n} about ${tag}`,
    publishedAt: '2026-11-22T12:00:00.000Z',
    lead: 'A lead.',
    image: { src: `/media/${id}.svg`, alt: '', caption: '', credit: '', width: 1200, height: 675 },
  };
}

/** Content that knows only the given tags, each with one page of one story and a second page after it. */
function fakeContent(known: readonly string[]): ContentClient & { tagCalls: string[] } {
  const tagCalls: string[] = [];
  const unused = () => Promise.reject(new Error('not used here'));
  return {
    tagCalls,
    frontPage: unused,
    section: () => Promise.resolve(null),
    article: () => Promise.resolve(null),
    articleWithTeasers: () => Promise.resolve(null),
    latest: () => Promise.resolve([]),
    mostRead: () => Promise.resolve([]),
    tag(slug, options = {}) {
      tagCalls.push(slug);
      if (!known.includes(slug)) return Promise.resolve(null);
      const page: TagPage = options.cursor
        ? { tag: slug, items: [teaser(2, slug)], nextCursor: null }
        : { tag: slug, items: [teaser(1, slug)], nextCursor: teaser(1, slug).id };
      return Promise.resolve(page);
    },
  };
}

function render(store: ReturnType<typeof createStore>, page: PageResult): string {
  return renderToString(createElement(App, { store, page: page.component }));
}

test('a tag named like a prototype member is loaded and shown, with its stories', async () => {
  for (const slug of tagSlugs) {
    const content = fakeContent(tagSlugs);
    const store = createStore(content);
    const result = await resolveRoute(`/tag/${slug}`, storeData(store));
    assert.equal(result.kind === 'page' && result.status, 200, slug);
    assert.deepEqual(content.tagCalls, [slug], `${slug}: asked the content, not the prototype`);
    const html = render(store, result as PageResult);
    assert.ok(html.includes(`Story 1 about ${slug}`), slug);
  }
});

test('an unknown tag named like a prototype member is not found', async () => {
  for (const slug of tagSlugs) {
    const store = createStore(fakeContent([]));
    const result = await resolveRoute(`/tag/${slug}`, storeData(store));
    assert.equal(result.kind === 'page' && result.status, 404, slug);
    assert.ok(render(store, result as PageResult).includes('Page not found'), slug);
  }
});

test("the server's state for such a tag, parsed in the browser, renders without a fetch and pages on", async () => {
  for (const slug of tagSlugs) {
    const content = fakeContent(tagSlugs);
    const served = { tags: { [slug]: { items: [teaser(1, slug)], nextCursor: teaser(1, slug).id, loadingMore: false, moreFailed: false } } };
    const store = createStore(content, JSON.parse(JSON.stringify(served)) as Partial<RootState>);
    const result = await resolveRoute(`/tag/${slug}`, storeData(store));
    assert.deepEqual(content.tagCalls, [], `${slug}: hydrated from the state`);
    assert.ok(render(store, result as PageResult).includes(`Story 1 about ${slug}`), slug);
    await store.dispatch(loadMoreOf('tag', slug));
    const html = render(store, result as PageResult);
    assert.ok(html.includes(`Story 2 about ${slug}`), `${slug}: the next page was added`);
  }
});

test('a listing stored under `__proto__` is kept as an entry and sets no prototype', async () => {
  const content = fakeContent(['__proto__']);
  const store = createStore(
    content,
    JSON.parse('{"tags":{"__proto__":{"items":[],"nextCursor":"202611220000000001","loadingMore":false,"moreFailed":false}}}') as Partial<RootState>,
  );
  await store.dispatch(loadMoreOf('tag', '__proto__'));
  assert.deepEqual(content.tagCalls, ['__proto__']);
  const tags = store.getState().tags;
  assert.ok(Object.hasOwn(tags, '__proto__'));
  assert.equal(Object.getPrototypeOf(tags), null);
  assert.equal(JSON.parse(JSON.stringify(tags)).__proto__.items.length, 1);
});

test('unknown sections and odd paths named like prototype members are not found', async () => {
  for (const path of oddPaths) {
    const store = createStore(fakeContent(tagSlugs));
    const result = await resolveRoute(path, storeData(store));
    assert.equal(result.kind === 'page' && result.status, 404, path);
    assert.ok(render(store, result as PageResult).includes('Page not found'), path);
  }
});
