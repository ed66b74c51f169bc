import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpParseError, HttpResponseReader, type HttpAnswer } from './http-response';

function read(parts: string[], close = false): HttpAnswer[] {
  const reader = new HttpResponseReader();
  const answers: HttpAnswer[] = [];
  for (const part of parts) reader.push(Buffer.from(part, 'latin1'), (a) => answers.push(a));
  if (close) reader.end((a) => answers.push(a));
  return answers;
}

/** Every way of cutting `text` in two, so no state may assume a whole line per chunk. */
function everySplit(text: string): string[][] {
  return Array.from({ length: text.length - 1 }, (_, i) => [text.slice(0, i + 1), text.slice(i + 1)]);
}

const sized = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Render-Mode: ssr\r\nContent-Length: 5\r\n\r\nhello';
const chunked = 'HTTP/1.1 200 OK\r\nx-render-mode: shell\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: y\r\n\r\n';
const shed = 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

describe('HTTP response reader', () => {
  test('a sized response, with the headers the bench counts', () => {
    assert.deepEqual(read([sized]), [{ status: 200, renderMode: 'ssr', retryAfter: false, keepAlive: true, bodyBytes: 5, staticFile: false }]);
  });

  test('a chunked response with extensions and trailers', () => {
    assert.deepEqual(read([chunked]), [{ status: 200, renderMode: 'shell', retryAfter: false, keepAlive: true, bodyBytes: 15, staticFile: false }]);
  });

  test('a 503 with Retry-After that closes the connection', () => {
    assert.deepEqual(read([shed]), [{ status: 503, renderMode: null, retryAfter: true, keepAlive: false, bodyBytes: 0, staticFile: false }]);
  });

  test("Nginx's shell is a static file: Last-Modified tells it from Node's", () => {
    const nginxShell = 'HTTP/1.1 200 OK\r\nLast-Modified: Sun, 22 Nov 2026 15:12:37 GMT\r\nX-Render-Mode: shell\r\nContent-Length: 2\r\n\r\nok';
    assert.equal(read([nginxShell])[0]!.staticFile, true);
  });

  test('the same answers however the bytes are split', () => {
    for (const text of [sized, chunked, shed]) {
      const whole = read([text]);
      for (const parts of everySplit(text)) assert.deepEqual(read(parts), whole, JSON.stringify(parts));
    }
  });

  test('back-to-back responses in one chunk, and a 100 Continue skipped', () => {
    const answers = read(['HTTP/1.1 100 Continue\r\n\r\n' + sized + chunked + sized]);
    assert.deepEqual(
      answers.map((a) => [a.status, a.renderMode, a.bodyBytes]),
      [
        [200, 'ssr', 5],
        [200, 'shell', 15],
        [200, 'ssr', 5],
      ],
    );
  });

  test('a body without a length ends with the connection', () => {
    const reader = new HttpResponseReader();
    const answers: HttpAnswer[] = [];
    reader.push(Buffer.from('HTTP/1.0 200 OK\r\n\r\nabc'), (a) => answers.push(a));
    reader.push(Buffer.from('def'), (a) => answers.push(a));
    assert.equal(answers.length, 0);
    reader.end((a) => answers.push(a));
    assert.deepEqual(answers, [{ status: 200, renderMode: null, retryAfter: false, keepAlive: false, bodyBytes: 6, staticFile: false }]);
  });

  test('idle only between responses', () => {
    const reader = new HttpResponseReader();
    assert.ok(reader.idle);
    reader.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Len'), () => {});
    assert.ok(!reader.idle);
  });

  test('garbage is a parse error, not a hang', () => {
    assert.throws(() => read(['SSH-2.0-OpenSSH\r\n\r\n']), HttpParseError);
    assert.throws(() => read(['HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n']), HttpParseError);
    assert.throws(() => read(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n']), HttpParseError);
  });
});
