// The last good copies' file layout: what Nginx's try_files $uri/index.html finds, and nothing
// a request could steer outside the directory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { copyFileOf, withoutNonce } from './copy-path';

test('canonical page paths map to <dir>/pages/<path>/index.html', () => {
  assert.equal(copyFileOf('/srv/lg', '/'), '/srv/lg/pages/index.html');
  assert.equal(copyFileOf('/srv/lg', '/world'), '/srv/lg/pages/world/index.html');
  assert.equal(copyFileOf('/srv/lg', '/world/202611222000000001'), '/srv/lg/pages/world/202611222000000001/index.html');
  assert.equal(copyFileOf('/srv/lg', '/tag/climate-change'), '/srv/lg/pages/tag/climate-change/index.html');
});

test('anything not canonical gets no file', () => {
  for (const path of [
    '',
    'world',
    '//',
    '/world/',
    '//evil',
    '/world//1',
    '/../etc',
    '/world/..',
    '/world/.index.html',
    '/World',
    '/%77orld',
    '/world?x=1',
    '/world/1/index.html',
    '/-x',
    '/caf\u00e9',
    '/a\u0000b',
    '/a b',
    '/a\\b',
    '/a/b/c/d/e',
    `/${'x'.repeat(200)}`,
  ]) {
    assert.equal(copyFileOf('/srv/lg', path), null, JSON.stringify(path));
  }
});

test("the copy is the answer's bytes without this answer's nonce attributes", () => {
  const nonce = 'ab+c/d==';
  // A two-byte page (a typographic quote) and a character beyond the BMP: the bytes around each
  // attribute are kept as they were encoded.
  const html = `<p>\u201cQuoted\u201d \u{1F4F0}</p><script defer src="/assets/a.js" nonce="${nonce}"></script><script id="s" type="application/json" nonce="${nonce}">{"x":1}</script><p>nonce="${nonce}" as text</p>`;
  const copy = withoutNonce(Buffer.from(html), nonce).toString('utf8');
  assert.equal(
    copy,
    `<p>\u201cQuoted\u201d \u{1F4F0}</p><script defer src="/assets/a.js"></script><script id="s" type="application/json">{"x":1}</script><p>nonce="${nonce}" as text</p>`,
  );
  assert.doesNotMatch(copy, / nonce=/);
});

test('a page without the nonce is written as it is', () => {
  const body = Buffer.from('<h1>No scripts</h1>');
  assert.equal(withoutNonce(body, 'abc').toString(), '<h1>No scripts</h1>');
});
