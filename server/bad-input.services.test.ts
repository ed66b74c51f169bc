// Bad input over a real socket, written byte for byte (fetch would normalise dot segments and
// refuse raw bytes): every answer is a 4xx page or JSON error, or the page itself where the
// oddity is harmless; never a 5xx, a stack trace, a reflected query string or a hang.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Article } from '../src/content';
import { assertSafeAnswer, rawRequest, seedTempStore, sendRaw, serveTestApp, type RawResponse, type TestServer } from '../test/server';

let server: TestServer;
let dir: string;
let article: Article;

before(async () => {
  ({ dir } = await seedTempStore(100, 5));
  server = await serveTestApp(`${dir}/kiosk.sqlite`);
  const [first] = await server.content.latest(1);
  article = (await server.content.article(first!.id))!;
});

after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const send = (method: string, target: string | Buffer, headers = ''): Promise<RawResponse> => sendRaw(server.baseUrl, method, target, headers);

async function expectStatus(method: string, target: string | Buffer, status: number | number[], headers = '') {
  const what = `${method} ${JSON.stringify(String(target)).slice(0, 80)}`;
  const res = await send(method, target, headers);
  assertSafeAnswer(res, what);
  const allowed = Array.isArray(status) ? status : [status];
  assert.ok(allowed.includes(res.status), `${what}: expected ${allowed.join(' or ')}, got ${res.status}`);
  return res;
}

describe('bad input over a real socket', () => {
  test('malformed percent-encoding is a 400 page, on pages and in the API', async () => {
    for (const target of ['/%', '/%Z', '/%ZZ', '/news/%E0%A4%A', '/%C3', '/%ED%A0%80', '/news/%FF%FE']) {
      const res = await expectStatus('GET', target, 400);
      assert.match(res.headers['content-type'] ?? '', /^text\/html/);
    }
    for (const target of ['/api/articles/%ZZ', '/api/sections/%E0%A4%A', '/api/sections/news?cursor=%ZZ', '/api/latest?limit=%E0']) {
      const res = await expectStatus('GET', target, 400);
      assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    }
  });

  test('overlong paths are a 400 page, or 431 from Node when they pass its header limit', async () => {
    await expectStatus('GET', `/${'a'.repeat(1100)}`, 400);
    await expectStatus('GET', `/news/${'9'.repeat(5_000)}`, 400);
    await expectStatus('GET', `/api/articles/${'9'.repeat(5_000)}`, 400);
    await expectStatus('GET', `/${'a'.repeat(20_000)}`, [400, 414, 431]);
  });

  test('traversal never leaves the site: 4xx, never a file', async () => {
    const targets = [
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/news/..%2f..%2fetc%2fpasswd',
      '/assets/../server/config.ts',
      '/assets/%2e%2e/server/config.ts',
      '/assets/..%2f..%2fpackage.json',
      '/assets/%2e%2e%2f%2e%2e%2fpackage.json',
      '/media/..%2f..%2fpackage.json',
      '/api/../server/config.ts',
      '/api/articles/..%2f..%2fpackage.json',
      '/favicon.svg/../package.json',
    ];
    for (const target of targets) {
      const res = await expectStatus('GET', target, [400, 403, 404]);
      assert.doesNotMatch(res.body, /root:|"devDependencies"|loadConfig/, `${target}: no file content`);
    }
  });

  test('NUL and control characters: raw ones are refused by Node, encoded ones are a 400 page', async () => {
    for (const byte of [0x00, 0x01, 0x08, 0x1b, 0x7f]) {
      await expectStatus('GET', Buffer.from([0x2f, 0x6e, 0x65, 0x77, 0x73, 0x2f, byte]), 400);
    }
    for (const target of ['/news/%00', '/%0d%0aSet-Cookie:%20a=b', '/news/%1b%5b31m', '/%7f', '/sport/%09']) {
      const res = await expectStatus('GET', target, 400);
      assert.equal(res.headers['set-cookie'], undefined);
    }
  });

  test('unknown sections and articles, and ids of the wrong shape, are 404 pages and 4xx JSON', async () => {
    for (const target of [
      '/weather',
      '/Sport',
      '/sport/209912312359000000',
      '/news/1',
      '/news/abc',
      `/news/${'1'.repeat(19)}`,
      '/news/a/b',
      '/-',
      '/news/-1',
    ]) {
      await expectStatus('GET', target, 404);
    }
    await expectStatus('GET', '/api/sections/weather', 404);
    await expectStatus('GET', '/api/articles/209912312359000000', 404);
    for (const target of [
      '/api/articles/1',
      '/api/articles/20991231235900000x',
      '/api/articles/-209912312359000000',
      '/api/sections/NEWS',
      '/api/sections/news?cursor=1',
      '/api/sections/news?limit=-1',
      '/api/latest?limit=1e3',
      '/api/latest?limit=0x10',
    ]) {
      await expectStatus('GET', target, 400);
    }
  });

  test('methods other than GET and HEAD on pages are 405 with Allow; unknown methods 400 from Node', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND']) {
      for (const target of ['/', '/sport', `/${article.section}/${article.id}`, '/weather']) {
        const res = await expectStatus(method, target, 405);
        assert.equal(res.headers.allow, 'GET, HEAD', `${method} ${target}`);
      }
    }
    await expectStatus('FOO', '/', 400);
    await expectStatus('GET', '/ HTTP/1.1\r\nGET', 400);
  });

  test('oversized headers are 431 from Node', async () => {
    await expectStatus('GET', '/sport', 431, `X-Padding: ${'a'.repeat(20_000)}\r\n`);
    const many = Array.from({ length: 3_000 }, (_, i) => `X-H${i}: v\r\n`).join('');
    await expectStatus('GET', '/sport', 431, many);
  });

  test('query strings on pages are ignored, never reflected', async () => {
    const probe = 'kioskprobe"><script>alert(1)</script>';
    const encoded = encodeURIComponent(probe);
    const plain = await expectStatus('GET', '/sport', 200);
    for (const [target, status] of [
      [`/sport?q=${encoded}`, 200],
      [`/sport?${encoded}=1&utm_source=${encoded}`, 200],
      [`/${article.section}/${article.id}?ref=${encoded}`, 200],
      [`/weather?q=${encoded}`, 404],
      [`/%ZZ?q=${encoded}`, 400],
      [`/sport/?q=${encoded}`, 301],
    ] as const) {
      const res = await expectStatus('GET', target, status);
      assert.ok(!res.body.includes('kioskprobe') && !res.body.includes('alert(1)'), `${target}: the query is not in the body`);
      assert.ok(!Object.values(res.headers).some((v) => v.includes('kioskprobe')), `${target}: nor in a header`);
    }
    const withQuery = await send('GET', `/sport?q=${encoded}`);
    // Per-response values (a CSP nonce) aside, the same page as without the query string.
    const stable = (html: string) => html.replace(/ nonce="[^"]*"/g, '');
    assert.equal(stable(withQuery.body), stable(plain.body), 'the same page as without the query string');
  });

  test('open redirect: a trailing-slash redirect never points off the site', async () => {
    for (const target of [
      '//evil.example/',
      '///evil.example/',
      '/\\evil.example/',
      '/\\/evil.example/',
      'http://evil.example/',
      'https://evil.example/sport/',
    ]) {
      const res = await expectStatus('GET', target, [301, 400, 404]);
      const location = res.headers.location;
      if (location !== undefined) assert.match(location, /^\/(?![/\\])/, `${target} redirected to ${location}`);
    }
    const res = await expectStatus('GET', '/sport//', 301);
    assert.equal(res.headers.location, '/sport');
  });

  test('an API address with a query string and nothing after /api is a JSON 404, like /api', async () => {
    const res = await expectStatus('GET', '/api?x=1', 404);
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  });

  test('API 405s without Allow: a write to the API says what it allows', async () => {
    for (const [method, target] of [
      ['POST', '/api/front'],
      ['DELETE', '/api/articles/209912312359000000'],
      ['PUT', '/api/'],
      ['PATCH', '/api/nothing'],
    ]) {
      const res = await expectStatus(method!, target!, 405);
      assert.equal(res.headers.allow, 'GET, HEAD', `${method} ${target}`);
      assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    }
  });

  test('request targets that are not paths (absolute-form, asterisk) are 4xx', async () => {
    await expectStatus('GET', 'http://kiosk.example/sport', [400, 404]);
    await expectStatus('GET', '*', [400, 404]);
    await expectStatus('OPTIONS', '*', [400, 405]);
  });

  test('tags, views and the newsletter: bad slugs, cursors, ids and addresses are clear 4xx answers', async () => {
    // A page for a malformed or unknown tag is the not-found page; the API says which is which.
    for (const target of ['/tag/Not_A_Tag', '/tag/-x', '/tag/no-such-tag', `/tag/${'a'.repeat(41)}`]) {
      const res = await expectStatus('GET', target, 404);
      assert.match(res.headers['content-type'] ?? '', /^text\/html/);
    }
    for (const [target, status] of [
      ['/api/tags/Not_A_Tag', 400],
      ['/api/tags/no-such-tag', 404],
      ['/api/tags/elections?cursor=abc', 400],
      ['/api/tags/elections?cursor=1%20OR%201=1', 400],
      ['/api/tags/elections?limit=0', 400],
      ['/api/tags/elections?cursor=1&cursor=2', 400],
      ['/api/most-read?limit=x', 400],
    ] as const) {
      const res = await expectStatus('GET', target, status);
      assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    }
    await expectStatus('POST', '/api/views/abc', 400);
    await expectStatus('POST', `/api/views/${'9'.repeat(19)}`, 400);
    await expectStatus('GET', `/api/views/${article.id}`, 405);
    await expectStatus('POST', `/api/views/${article.id}`, 204);

    const form = (body: string) =>
      rawRequest(
        server.baseUrl,
        `POST /newsletter HTTP/1.1\r\nHost: kiosk.example\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    for (const body of [
      '',
      'email=',
      'email=not-an-address&newsletters=morning',
      'email=a%40b&newsletters=morning',
      `email=${'a'.repeat(250)}%40example.com&newsletters=morning`,
      'email=reader%40example.com',
      'email=reader%40example.com&newsletters=lottery',
      'email=a%0A%40example.com&newsletters=morning',
    ]) {
      const res = await form(body);
      assertSafeAnswer(res, `newsletter ${body.slice(0, 40)}`);
      assert.equal(res.status, 400, body.slice(0, 60));
      assert.match(res.headers['content-type'] ?? '', /^text\/html/);
      assert.match(res.body, /email address|newsletter/i);
    }
    const ok = await form('email=Reader%40Example.COM&newsletters=morning&newsletters=sport');
    assert.equal(ok.status, 200);
    assert.match(ok.body, /We have noted Reader@example\.com/);
    assert.equal(ok.headers['cache-control'], 'private, no-store');
    await expectStatus('PUT', '/newsletter', 405);
  });
});
