// The production build (throng primary and a worker) reading content from a newsroom API that
// fails every way it can: pages keep coming within the content timeout, from the recent copy
// or as a short-lived 503, and the worker never dies (a crash would show as a second
// "worker listening" line, or as the cluster's exit).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { rawRequest, seedTempStore, serveTestApp, startBuiltServer, type TestServer } from '../../test/server';
import { startFlakyNewsroom, type FlakyNewsroom, type NewsroomMode } from '../../test/flaky-newsroom';
import { waitFor } from '../../test/wait';

const timeoutMs = 600;
/** Generous: the test machine is shared, and this proves "bounded", not "fast". */
const marginMs = 2_000;

let dir: string;
let kiosk: TestServer;
let newsroom: FlakyNewsroom;
let articlePaths: string[];

before(async () => {
  ({ dir } = await seedTempStore(200, 5));
  kiosk = await serveTestApp(`${dir}/kiosk.sqlite`);
  newsroom = await startFlakyNewsroom(kiosk.baseUrl);
  articlePaths = (await kiosk.content.latest(10)).map((h) => `/${h.section}/${h.id}`);
  // The newsroom's first answers in a fresh process are slow; none should count against a timeout.
  for (const path of ['/api/front', '/api/sections/sport', `/api/articles/${articlePaths[0]!.split('/')[2]}`, '/api/latest']) await fetch(kiosk.baseUrl + path);
});

after(async () => {
  await newsroom.close();
  await kiosk.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function get(baseUrl: string, target: string) {
  const started = performance.now();
  const res = await rawRequest(baseUrl, `GET ${target} HTTP/1.1\r\nHost: kiosk.example\r\nConnection: close\r\n\r\n`, timeoutMs + marginMs);
  return { ...res, ms: performance.now() - started };
}

/** A healthy newsroom's answer, allowing a slow first one (a timeout, then the backoff that follows it: asked again past it). */
async function eventuallyOk(baseUrl: string, target: string): Promise<void> {
  await waitFor(`${target} answered 200`, async () => (await get(baseUrl, target)).status === 200, { everyMs: 1_100 });
}

test('the built server over a failing newsroom API: recent copies or 503s in time, and the worker lives', async () => {
  const server = await startBuiltServer(path.join(dir, 'no-such-store.sqlite'), {
    CONTENT_API_URL: newsroom.url,
    CONTENT_TIMEOUT_MS: String(timeoutMs),
    CONTENT_FRESH_S: '0',
  });
  try {
    newsroom.mode = 'ok';
    const warm = ['/', '/sport', articlePaths[0]!, '/api/front'];
    for (const target of warm) await eventuallyOk(server.baseUrl, target);

    const modes: NewsroomMode[] = ['hang', 'reset', 'error500', 'not-json', 'wrong-shape', 'html', 'slow', 'huge'];
    for (const [i, mode] of modes.entries()) {
      newsroom.mode = mode;
      // Never read before: an article, and a page of a list behind a cursor (a list's first page
      // is put together from the list the front page keeps, so it is warm).
      const cold = [articlePaths[i + 1]!, `/api/sections/news?limit=${i + 1}&cursor=${articlePaths[0]!.split('/')[2]}`];
      const answers = await Promise.all([...warm, ...cold].map((target) => get(server.baseUrl, target).then((res) => ({ target, ...res }))));
      for (const { target, status, headers, ms } of answers) {
        const what = `${mode} ${target}`;
        assert.ok(ms < timeoutMs + marginMs, `${what} answered in ${Math.round(ms)} ms`);
        if (warm.includes(target)) {
          assert.equal(status, 200, `${what}: the recent copy`);
        } else {
          assert.equal(status, 503, what);
          assert.equal(headers['retry-after'], '5', what);
          assert.match(headers['cache-control'] ?? '', /s-maxage=5/, what);
        }
      }
      // Past the backoff that follows an outage, so the next mode is really asked for: the backoff
      // is a time, and nothing outside the worker shows when it ends.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    }

    newsroom.mode = 'ok';
    for (const target of [...warm, articlePaths[9]!]) await eventuallyOk(server.baseUrl, target);
    const listening = server.output().match(/"worker listening"/g)?.length;
    assert.equal(listening, 1, `one worker all along:\n${server.output()}`);
    assert.doesNotMatch(server.output(), /uncaught|unhandled/i);
    assert.match(server.output(), /"newsroom API failed"/);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test('CONTENT_API_URL with INGEST_TOKEN stops start-up with a message naming both', async () => {
  await assert.rejects(
    startBuiltServer(path.join(dir, 'kiosk.sqlite'), { CONTENT_API_URL: newsroom.url, INGEST_TOKEN: 'x'.repeat(32) }),
    /INGEST_TOKEN and CONTENT_API_URL are both set/,
  );
});
