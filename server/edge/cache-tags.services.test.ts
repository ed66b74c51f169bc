// The Cache-Tag header on every cacheable kind of answer (pages and /api), within CloudFront's
// rules, and the edge lifetimes it makes safe; then an unpublish, heard through the SQLite change
// log by the purge sender as the primary runs it: every answer that showed the story carries a
// tag in the next batch. Real SQLite, the real site on a socket, the real change feed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Headline } from '../../src/content';
import { cacheControl, purgedCacheControl } from '../cache-policy';
import { loadConfig } from '../config';
import { seedTempStore, serveTestApp, type TestServer } from '../../test/server';
import { startEdgePurge, type EdgePurge } from './start';
import { cacheTagHeaderName, isCacheTag, maxTagLength, maxTagsPerObject } from './tags';

const distribution = 'E2QWRUHAPOMQZL';
let dir: string;
let dbPath: string;
let site: TestServer;
let plain: TestServer;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(600, 10));
  site = await serveTestApp(dbPath, undefined, { CLOUDFRONT_DISTRIBUTION_ID: distribution });
  plain = await serveTestApp(dbPath);
});

after(async () => {
  await site?.close();
  await plain?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  path: string;
  status: number;
  cacheControl: string | null;
  tags: string[] | null;
  body: string;
}

async function get(server: TestServer, path: string): Promise<Answer> {
  const res = await fetch(server.baseUrl + path, { redirect: 'manual' });
  const header = res.headers.get(cacheTagHeaderName);
  return { path, status: res.status, cacheControl: res.headers.get('cache-control'), tags: header === null ? null : header.split(','), body: await res.text() };
}

function checkTags(answer: Answer): string[] {
  assert.ok(answer.tags !== null, `${answer.path} carries ${cacheTagHeaderName}`);
  assert.ok(answer.tags.length >= 1 && answer.tags.length <= maxTagsPerObject, `${answer.path}: ${answer.tags.length} tags`);
  for (const tag of answer.tags) {
    assert.ok(isCacheTag(tag) && tag.length <= maxTagLength, `${answer.path}: ${JSON.stringify(tag)} within CloudFront's rules`);
    assert.equal(tag, tag.trim());
  }
  assert.equal(new Set(answer.tags.map((t) => t.toLowerCase())).size, answer.tags.length, `${answer.path}: no tag twice (tags are case-insensitive)`);
  return answer.tags;
}

/** A published story with tags, the newest such: on the front page, in its section, its tags and the latest list. */
async function story(): Promise<{ id: string; section: string; tag: string }> {
  const { items } = (await (await fetch(`${site.baseUrl}/api/latest`)).json()) as { items: Headline[] };
  for (const item of items) {
    const { article } = (await (await fetch(`${site.baseUrl}/api/articles/${item.id}`)).json()) as { article: { tags: string[]; section: string } };
    if (article.tags.length > 0) return { id: item.id, section: article.section, tag: article.tags[0]! };
  }
  throw new Error('no published story with tags in the latest list');
}

describe('cache tags', () => {
  test('every cacheable kind of answer carries tags of what it shows, within the rules; a 404 carries none and stays short', async () => {
    const x = await story();
    const { items } = (await (await fetch(`${site.baseUrl}/api/sections/${x.section}`)).json()) as { items: Headline[] };
    const other = items.find((item) => item.id !== x.id)!;
    const expected: Record<string, string[]> = {
      '/': ['front'],
      '/api/front': ['front'],
      [`/${x.section}`]: [`s:${x.section}`],
      [`/api/sections/${x.section}`]: [`s:${x.section}`],
      [`/api/sections/${x.section}?cursor=${other.id}`]: [`s:${x.section}`],
      [`/tag/${x.tag}`]: [`t:${x.tag}`],
      [`/api/tags/${x.tag}`]: [`t:${x.tag}`],
      [`/${x.section}/${x.id}`]: [`a:${x.id}`],
      [`/api/articles/${x.id}`]: [`a:${x.id}`],
      [`/${x.section}/${other.id}`]: [`a:${other.id}`],
      [`/api/articles/${other.id}`]: [`a:${other.id}`],
      '/api/latest': ['l:all'],
      '/api/most-read': ['l:all'],
    };
    for (const [path, wanted] of Object.entries(expected)) {
      const answer = await get(site, path);
      assert.equal(answer.status, 200, path);
      const tags = checkTags(answer);
      for (const tag of wanted) assert.ok(tags.includes(tag), `${path} carries ${tag}: ${tags.join(',')}`);
    }
    for (const path of ['/no-such-page', `/${x.section}/999999999999999999`, '/tag/no-such-tag-anywhere', '/api/articles/999999999999999999']) {
      const answer = await get(site, path);
      assert.equal(answer.status, 404, path);
      assert.equal(answer.tags, null, `${path}: a 404 a story may replace carries no tags`);
      assert.equal(answer.cacheControl, cacheControl.notFound, path);
    }
  });

  test("edge lifetimes: the long ones with a distribution to purge, today's without", async () => {
    const x = await story();
    const pairs: [string, keyof typeof purgedCacheControl][] = [
      ['/', 'front'],
      [`/${x.section}`, 'section'],
      [`/tag/${x.tag}`, 'tag'],
      [`/${x.section}/${x.id}`, 'article'],
      ['/api/front', 'front'],
      [`/api/articles/${x.id}`, 'article'],
      ['/api/latest', 'latest'],
      ['/api/most-read', 'mostRead'],
    ];
    for (const [path, kind] of pairs) {
      assert.equal((await get(site, path)).cacheControl, purgedCacheControl[kind], path);
      const today = kind === 'latest' || kind === 'mostRead' ? cacheControl.front : cacheControl[kind];
      assert.equal((await get(plain, path)).cacheControl, today, `${path} without a distribution`);
    }
    for (const kind of ['front', 'section', 'tag', 'article', 'latest'] as const) {
      const sMaxAge = Number(/s-maxage=(\d+)/.exec(purgedCacheControl[kind])![1]);
      assert.ok(sMaxAge >= 600 && sMaxAge <= 3_600, `${kind}: ${sMaxAge} s at the edge`);
      assert.match(purgedCacheControl[kind], /(^|, )max-age=0(,|$)/, `${kind}: browsers revalidate`);
      assert.match(purgedCacheControl[kind], /stale-if-error=86400/);
    }
  });
});

describe('an unpublish', () => {
  let edge: EdgePurge;
  const calls: string[][] = [];

  before(() => {
    const config = loadConfig({ CONTENT_DB_PATH: dbPath, CLOUDFRONT_DISTRIBUTION_ID: distribution, EDGE_PURGE_INTERVAL_MS: '200' });
    edge = startEdgePurge(config, {
      target: {
        live: true,
        invalidate: (items) => {
          calls.push([...items]);
          return Promise.resolve();
        },
        close: () => undefined,
      },
    })!;
  });

  after(() => edge?.close(1_000));

  test('puts every tag of every answer that showed the story into the next batch', async () => {
    const x = await story();
    const { items } = (await (await fetch(`${site.baseUrl}/api/sections/${x.section}`)).json()) as { items: Headline[] };
    const paths = [
      '/',
      '/api/front',
      '/api/latest',
      `/${x.section}`,
      `/api/sections/${x.section}`,
      `/tag/${x.tag}`,
      `/api/tags/${x.tag}`,
      `/${x.section}/${x.id}`,
      `/api/articles/${x.id}`,
      ...items.filter((item) => item.id !== x.id).flatMap((item) => [`/${x.section}/${item.id}`, `/api/articles/${item.id}`]),
    ];
    const showing: Answer[] = [];
    for (const path of paths) {
      const answer = await get(plain, path);
      if (answer.status === 200 && answer.body.includes(x.id)) showing.push(answer);
    }
    assert.ok(showing.length >= 10, `${showing.length} answers show the story`);
    assert.ok(edge.sending, 'the single machine sends its own');

    const started = performance.now();
    const result = await site.parts.writer!.unpublish(x.id, '2099-01-01T00:00:00.000Z', { modifiedAt: '2099-01-01T00:00:00.000Z' });
    assert.equal(result.outcome, 'updated');
    const deadline = Date.now() + 5_000;
    while (calls.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(calls.length, 1, 'one call for the change');
    const batch = new Set(calls[0]!);
    const ms = performance.now() - started;
    assert.ok(ms < 2_000, `the call within 2 s of the commit (${Math.round(ms)} ms)`);
    for (const answer of showing) {
      const reached = (answer.tags ?? []).filter((tag) => batch.has(`#${tag}`));
      assert.ok(reached.length > 0, `${answer.path} showed the story; none of its tags (${answer.tags?.join(',')}) is in ${[...batch].join(',')}`);
    }
    for (const item of batch) assert.match(item, /^#/, 'tags, not paths');
  });
});
