// Hostile content and the headers that fence it in, over a real socket. Content arrives the
// way an attacker's would: through the CMS's ingestion, which accepts any text in a title.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { stateElementId } from '../src/page-contract';
import { securityHeaders } from './security-headers';
import { buildShell, shellResponse } from './shell';
import { seedTempStore, serveTestApp, testAssets, type TestServer } from '../test/server';

const token = 'security-test-ingest-token-0123456789abcdef';
const id = '202611220900000001';
const hostile = {
  title: 'Breaking </script><script>alert(1)</script> \u2028 news',
  lead: '<img src=x onerror=alert(2)> and "quotes" & ampersands',
  quote: 'javascript:alert(3)',
  paragraph: '</SCRIPT><svg onload=alert(4)>\u2029<!-- not a comment -->',
};

let dir: string;
let server: TestServer;

before(async () => {
  let dbPath: string;
  ({ dir, dbPath } = await seedTempStore(100, 2));
  server = await serveTestApp(dbPath, undefined, { INGEST_TOKEN: token });
  const res = await fetch(`${server.baseUrl}/api/ingest/articles/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      section: 'tech',
      status: 'published',
      title: hostile.title,
      lead: hostile.lead,
      author: 'Mallory',
      image: { src: `/media/${id}.svg`, alt: hostile.lead, width: 1200, height: 675 },
      publishedAt: '2026-11-22T09:00:00Z',
      modifiedAt: '2026-11-22T09:00:00Z',
      body: [
        { type: 'paragraph', text: hostile.paragraph },
        { type: 'quote', text: hostile.quote, attribution: '<b>bold</b>' },
      ],
    }),
  });
  assert.equal(res.status, 201);
});

after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('hostile titles and bodies render as text: no tag, handler or line separator reaches the HTML raw', async () => {
  for (const path of [`/tech/${id}`, '/', '/tech']) {
    const html = await (await fetch(server.baseUrl + path)).text();
    const outsideState = html.replace(new RegExp(`<script id="${stateElementId}"[^>]*>[^<]*</script>`), '');
    assert.doesNotMatch(html, /<script>alert|<img src=x|<svg onload|<\/SCRIPT>|<b>bold/, path);
    // The only script elements are the bundle's and the state's.
    const scripts = [...outsideState.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.ok(
      scripts.every((tag) => / src="\/assets\//.test(tag)),
      `${path}: ${scripts.join(' ')}`,
    );
    assert.doesNotMatch(outsideState, /href="javascript:/i);
  }
  const article = await (await fetch(`${server.baseUrl}/tech/${id}`)).text();
  assert.ok(article.includes('Breaking &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;'), 'the title is shown as the text it is');
});

test('the serialized state gives back exactly the hostile strings, and nothing in it closes the script element', async () => {
  const html = await (await fetch(`${server.baseUrl}/tech/${id}`)).text();
  const match = new RegExp(`<script id="${stateElementId}" type="application/json"[^>]*>([^<]*)</script>`).exec(html);
  assert.ok(match, 'the state is in one script element with no "<" inside');
  // In HTML text U+2028 is only a space; inside a script it would end a line: it must be escaped there.
  assert.doesNotMatch(match[1]!, /[\u2028\u2029]/);
  const state = JSON.stringify(JSON.parse(match[1]!));
  for (const text of Object.values(hostile)) assert.ok(state.includes(JSON.stringify(text).slice(1, -1)), text);
});

test('pages carry a per-response CSP nonce on every script; the shell and error pages carry nonce-free policies', async () => {
  const first = await fetch(`${server.baseUrl}/tech/${id}`);
  const second = await fetch(`${server.baseUrl}/tech/${id}`);
  const nonceOf = (res: Response) => /script-src 'nonce-([A-Za-z0-9+/=]+)' 'strict-dynamic'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
  const nonce = nonceOf(first);
  assert.ok(nonce && nonce.length >= 22, 'a nonce of 128 bits');
  assert.notEqual(nonce, nonceOf(second), 'a fresh nonce per response');
  const html = await first.text();
  const tags = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  assert.ok(tags.length >= 2);
  for (const tag of tags) assert.ok(tag.includes(` nonce="${nonce}"`), tag);
  for (const header of ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]) {
    assert.ok(first.headers.get('content-security-policy')!.includes(header), header);
  }
  assert.equal(first.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(first.headers.get('x-frame-options'), 'DENY');
  assert.equal(first.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');

  const shell = await serveTestApp(`${dir}/kiosk.sqlite`, undefined, { SSR_QUEUE_LIMIT: '0' });
  try {
    const res = await fetch(`${shell.baseUrl}/tech/${id}`);
    assert.equal(res.headers.get('x-render-mode'), 'shell');
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'$/);
    assert.doesNotMatch(await res.text(), /nonce=/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  } finally {
    await shell.close();
  }

  const missing = await fetch(`${server.baseUrl}/tech/999999999999999999`);
  assert.equal(missing.status, 404);
  const bad = await fetch(`${server.baseUrl}/%zz`);
  assert.equal(bad.status, 400);
  assert.match(bad.headers.get('content-security-policy') ?? '', /script-src 'none'/);
  const api = await fetch(`${server.baseUrl}/api/articles/${id}`);
  assert.equal(api.headers.get('x-content-type-options'), 'nosniff');
});

test('the shell as data (what a file for Nginx is written from) carries the headers it is served with', () => {
  const shell = buildShell(testAssets, 'https://kiosk.example', 7);
  const { body, headers } = shellResponse(shell);
  assert.ok(body.equals(shell.body));
  assert.equal(headers['Cache-Control'], 'public, max-age=0, s-maxage=7');
  assert.equal(headers.ETag, shell.etag);
  assert.equal(headers['X-Render-Mode'], 'shell');
  assert.equal(headers['Content-Length'], String(body.length));
  assert.match(headers['Content-Security-Policy'] ?? '', /script-src 'self'/);
  for (const [name, value] of Object.entries(securityHeaders)) assert.equal(headers[name], value, name);
});
