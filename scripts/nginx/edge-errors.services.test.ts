// What a request is must not depend on which layer asks, and no error may be kept at the edge for
// everyone: real Nginx (the local rendering of nginx/kiosk.conf.template) in front of the real
// built cluster with ingestion on, and the same requests to the worker directly. Needs nginx
// (scripts/setup-system.sh) and `npm run build`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, freePortRange, seedTempStore, startBuiltServer, type BuiltServer } from '../../test/server';
import { generousCeilingMs } from '../../test/wait';
import { startLocalNginx, type LocalNginx } from './local';
import { root } from './render';

const token = 'ingest-token-for-tests-0123456789abcdef';

let dir: string;
let cluster: BuiltServer;
let nginx: LocalNginx;
/** Through Nginx, as CloudFront reaches the origin. */
let viaNginx: string;
/** The worker itself, as Nginx reaches it. */
let direct: string;
let serial = 700_000;

before(async () => {
  let dbPath: string;
  ({ dir, dbPath } = await seedTempStore(200, 5));
  const workerPort = await freePortRange(1);
  cluster = await startBuiltServer(dbPath, { LISTEN_MODE: 'per-worker', PORT: String(workerPort), WEB_CONCURRENCY: '1', INGEST_TOKEN: token });
  direct = `http://127.0.0.1:${workerPort}`;
  const nginxPort = await freePort();
  nginx = await startLocalNginx({ listen: `127.0.0.1:${nginxPort}`, workerPorts: [workerPort], originSecrets: [] });
  viaNginx = `http://127.0.0.1:${nginxPort}`;
});

after(async () => {
  await nginx?.stop();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function newId(): string {
  serial += 1;
  return `202611220900${String(serial).padStart(6, '0')}`;
}

function article() {
  return {
    section: 'world',
    status: 'published',
    title: 'Harbour reopens after the storm',
    lead: 'Ferries run again from the morning tide.',
    author: 'Kiosk Desk',
    image: { src: '/media/harbour.svg', alt: 'The harbour at dawn', width: 1200, height: 675 },
    publishedAt: '2026-11-22T09:00:00Z',
    body: [{ type: 'paragraph', text: 'The harbour reopened at six.' }],
  };
}

interface Answer {
  status: number;
  /** Every header line as sent, names lower-cased, repeated headers kept apart. */
  lines: [string, string][];
  body: Buffer;
}

function header(answer: Answer, name: string): string[] {
  return answer.lines.filter(([n]) => n === name).map(([, v]) => v);
}

function text(answer: Answer): string {
  return answer.body.toString('latin1');
}

/**
 * Writes `head` (and `body`, if any) on a new connection and resolves with the first complete
 * answer: its headers and a body of its Content-Length, chunked to its end, or up to the close.
 * The connection need not close, so an answer given before a request body was sent is seen as
 * soon as it comes. Rejects when no complete answer arrives (the connection closed first, or the
 * generous ceiling passed).
 */
function exchange(baseUrl: string, head: string | Buffer, body?: Buffer): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (error: Error | null, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(() => finish(new Error(`no answer within ${generousCeilingMs} ms`)), generousCeilingMs);
    const parse = (closed: boolean): Answer | null => {
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return null;
      const [statusLine, ...rest] = received.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
      const lines = rest.map((line): [string, string] => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
      });
      const raw = received.subarray(end + 4);
      const length = lines.find(([n]) => n === 'content-length')?.[1];
      if (length !== undefined) return raw.length >= Number(length) ? { status, lines, body: raw.subarray(0, Number(length)) } : null;
      if (lines.some(([n, v]) => n === 'transfer-encoding' && /chunked/i.test(v))) {
        if (!raw.includes('\r\n0\r\n\r\n') && !raw.subarray(0, 5).equals(Buffer.from('0\r\n\r\n'))) return null;
        const parts: Buffer[] = [];
        let at = 0;
        for (;;) {
          const lineEnd = raw.indexOf('\r\n', at);
          const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
          if (!(size > 0)) break;
          parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
          at = lineEnd + 2 + size + 2;
        }
        return { status, lines, body: Buffer.concat(parts) };
      }
      if (status === 304 || status === 204 || (status >= 100 && status < 200)) return { status, lines, body: Buffer.alloc(0) };
      return closed ? { status, lines, body: raw } : null;
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = parse(false);
      if (answer) finish(null, answer);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const answer = parse(true);
      if (answer) finish(null, answer);
      else finish(new Error(`the connection closed without a complete answer: ${JSON.stringify(received.toString('latin1').slice(0, 200))}`));
    });
    socket.write(head);
    if (body) socket.write(body);
  });
}

function send(baseUrl: string, method: string, target: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
  const all = { Host: 'kiosk.example', ...headers, ...(bytes ? { 'Content-Length': String(bytes.length) } : {}), Connection: 'close' };
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return exchange(baseUrl, head, bytes);
}

function jsonError(answer: Answer, what: string): { code: string; message: string } {
  assert.match(header(answer, 'content-type')[0] ?? '', /^application\/json/, `${what}: a JSON error`);
  const parsed = JSON.parse(text(answer)) as { error: { code: string; message: string } };
  assert.equal(typeof parsed.error.code, 'string', what);
  return parsed.error;
}

/** Exactly one Cache-Control, and one no cache keeps: private and no-store. */
function assertNoStore(answer: Answer, what: string): void {
  assert.deepEqual(header(answer, 'cache-control'), ['private, no-store'], `${what}: ${answer.status} must carry no-store`);
}

describe('every layer reads a path the same way', () => {
  const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

  test('the ingestion path in another case is an unknown API path, to the worker and through Nginx alike: no write', async () => {
    for (const [layer, baseUrl] of [
      ['worker', direct],
      ['nginx', viaNginx],
    ] as const) {
      for (const spelling of ['/api/INGEST', '/api/Ingest']) {
        for (const method of ['PUT', 'DELETE', 'GET']) {
          const id = newId();
          const body = method === 'PUT' ? JSON.stringify(article()) : undefined;
          const what = `${layer}: ${method} ${spelling}/articles/${id}`;
          const answer = await send(baseUrl, method, `${spelling}/articles/${id}`, auth, body);
          const unknown = await send(baseUrl, method, `/api/nothing/articles/${id}`, auth, body);
          assert.equal(answer.status, unknown.status, `${what}: answered as /api/nothing is`);
          assert.equal(jsonError(answer, what).code, jsonError(unknown, what).code, what);
          if (method === 'GET') assert.equal(answer.status, 404, what);
          assert.deepEqual(header(answer, 'allow'), header(unknown, 'allow'), what);
          // Nothing was written or taken off: the article is unknown to the API.
          assert.equal((await send(baseUrl, 'GET', `/api/articles/${id}`)).status, 404, `${what}: nothing written`);
        }
      }
    }
  });

  test('the ingestion path as spelled reaches ingestion through Nginx, its body streamed whole to the parser', async () => {
    // What a valid article is belongs to ingestion's own tests; here, that the right token gets
    // past Nginx and the body arrives whole: the parser reads it to its end and answers for it.
    const malformed = await send(viaNginx, 'PUT', `/api/ingest/articles/${newId()}`, auth, `{"title": "${'a'.repeat(100_000)}"`);
    assert.equal(malformed.status, 400, text(malformed));
    assert.equal(jsonError(malformed, 'malformed').message, 'The body is not valid JSON.');
    const unknownField = await send(viaNginx, 'PUT', `/api/ingest/articles/${newId()}`, auth, JSON.stringify({ title: 'a'.repeat(100_000), nonsense: 1 }));
    assert.equal(unknownField.status, 400, text(unknownField));
    assertNoStore(unknownField, 'a refused article');
  });
});

describe('through Nginx the token is checked before the body is read', () => {
  test('a wrong token with a 900 KB body announced is refused at once, before any of the body is sent', async () => {
    // Only the head: a body the client never sends. Buffering first, Nginx would wait for it
    // until client_body_timeout and Node would never be asked.
    const head =
      `PUT /api/ingest/articles/${newId()} HTTP/1.1\r\nHost: kiosk.example\r\nAuthorization: Bearer not-the-token\r\n` +
      'Content-Type: application/json\r\nContent-Length: 900000\r\nConnection: close\r\n\r\n';
    const answer = await exchange(viaNginx, head);
    assert.equal(answer.status, 401, text(answer));
    assert.equal(jsonError(answer, 'wrong token').code, 'unauthorized');
    assert.match(header(answer, 'www-authenticate')[0] ?? '', /^Bearer /);
    assertNoStore(answer, 'wrong token');
  });

  test('no token at all, the same', async () => {
    const head = `DELETE /api/ingest/articles/${newId()} HTTP/1.1\r\nHost: kiosk.example\r\nContent-Length: 900000\r\nConnection: close\r\n\r\n`;
    const answer = await exchange(viaNginx, head);
    assert.equal(answer.status, 401, text(answer));
    assert.equal(jsonError(answer, 'no token').code, 'unauthorized');
  });

  test('a body over Nginx’s 1 MB is a JSON 413 with no-store, whatever the token; between Node’s 512 KB and 1 MB, Node’s JSON 413', async () => {
    for (const authorization of [`Bearer ${token}`, 'Bearer not-the-token']) {
      const head =
        `PUT /api/ingest/articles/${newId()} HTTP/1.1\r\nHost: kiosk.example\r\nAuthorization: ${authorization}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n';
      const answer = await exchange(viaNginx, head);
      assert.equal(answer.status, 413, text(answer));
      assert.equal(jsonError(answer, '2 MB').code, 'payload_too_large');
      assertNoStore(answer, '2 MB');
    }
    const big = Buffer.alloc(900_000, 0x20);
    const answer = await send(
      viaNginx,
      'PUT',
      `/api/ingest/articles/${newId()}`,
      { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      big,
    );
    assert.equal(answer.status, 413, text(answer));
    assert.equal(jsonError(answer, '900 KB').code, 'payload_too_large');
    assertNoStore(answer, '900 KB');
  });

  test('a body over 16 KB to the rest of the API is a JSON 413 too', async () => {
    const answer = await send(viaNginx, 'POST', '/api/front', { 'Content-Type': 'application/json' }, Buffer.alloc(20_000, 0x20));
    assert.equal(answer.status, 413, text(answer));
    assert.equal(jsonError(answer, '/api/front').code, 'payload_too_large');
    assertNoStore(answer, '/api/front');
  });
});

describe('no error can be cached for everyone', () => {
  test('Nginx’s own answers to a bad request for a page say no-store', async () => {
    const cases: [string, string][] = [
      ['a 12 KB User-Agent', `GET / HTTP/1.1\r\nHost: kiosk.example\r\nUser-Agent: ${'a'.repeat(12_000)}\r\nConnection: close\r\n\r\n`],
      ['a control character in the User-Agent', 'GET / HTTP/1.1\r\nHost: kiosk.example\r\nUser-Agent: Mozilla\x01/5.0\r\nConnection: close\r\n\r\n'],
      ['a request line over 8 KB', `GET /${'a'.repeat(9_000)} HTTP/1.1\r\nHost: kiosk.example\r\nConnection: close\r\n\r\n`],
      ['a header line without a colon', 'GET / HTTP/1.1\r\nHost: kiosk.example\r\nUser-Agent Mozilla\r\nConnection: close\r\n\r\n'],
      ['a cookie over 8 KB', `GET /sport HTTP/1.1\r\nHost: kiosk.example\r\nCookie: ${'c=1; '.repeat(2_000)}\r\nConnection: close\r\n\r\n`],
      ['a NUL in the path', 'GET /\x00 HTTP/1.1\r\nHost: kiosk.example\r\nConnection: close\r\n\r\n'],
      ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
      ['an encoded NUL in the path', 'GET /a%00b HTTP/1.1\r\nHost: kiosk.example\r\nConnection: close\r\n\r\n'],
    ];
    for (const [what, request] of cases) {
      const answer = await exchange(viaNginx, request);
      assert.ok(answer.status >= 400 && answer.status < 500, `${what}: ${answer.status}`);
      assertNoStore(answer, what);
    }
  });

  test('a request Nginx refuses before any location is JSON under the API’s paths, as Node’s errors there are, and a page elsewhere', async () => {
    const bigAgent = `User-Agent: ${'a'.repeat(12_000)}\r\n`;
    for (const [target, json] of [
      ['/api/front', true],
      ['/api', true],
      [`/api/ingest/articles/${newId()}`, true],
      [`/api/views/${newId()}`, true],
      ['/', false],
      ['/apix', false],
      ['/sport', false],
    ] as const) {
      const answer = await exchange(viaNginx, `GET ${target} HTTP/1.1\r\nHost: kiosk.example\r\n${bigAgent}Connection: close\r\n\r\n`);
      assert.equal(answer.status, 400, target);
      assertNoStore(answer, target);
      // Node's own answer to an error at the same path, for the kind of body it gives.
      const node = await send(direct, 'GET', `${target}/nothing/here`);
      assert.equal(/^application\/json/.test(header(node, 'content-type')[0] ?? ''), json, `${target}: Node's error is ${json ? '' : 'not '}JSON`);
      if (json) assert.equal(jsonError(answer, target).code, 'bad_request');
      else assert.match(header(answer, 'content-type')[0] ?? '', /^text\/html/, target);
    }
    // Refused before the server's rewrite phase: no warning per request for the error log to fill with.
    assert.doesNotMatch(nginx.errors(), /uninitialized/);
  });

  test('Nginx’s own 403, 404 and 413 say no-store; Node’s errors keep their own lifetime, once', async () => {
    for (const [what, method, target, status] of [
      ['a missing asset', 'GET', '/assets/main.0000000000.js', 404],
      ['/metrics', 'GET', '/metrics', 404],
      ['a write to the health check', 'POST', '/healthz', 403],
    ] as const) {
      const answer = await send(viaNginx, method, target);
      assert.equal(answer.status, status, what);
      assertNoStore(answer, what);
    }
    const tooLarge = await send(viaNginx, 'POST', '/', {}, Buffer.alloc(20_000, 0x20));
    assert.equal(tooLarge.status, 413);
    assertNoStore(tooLarge, 'a page with a 20 KB body');

    // Node's not-found page is meant to be kept briefly (a story published a moment later shows
    // soon); Nginx adds nothing to it or to a page.
    for (const layer of [direct, viaNginx]) {
      const missing = await send(layer, 'GET', '/no/such/page');
      assert.equal(missing.status, 404);
      assert.deepEqual(header(missing, 'cache-control'), ['public, max-age=0, s-maxage=10'], `${layer}: the not-found page`);
      const refused = await send(layer, 'POST', '/');
      assert.equal(refused.status, 405);
      assertNoStore(refused, `${layer}: POST /`);
    }
    const front = await send(viaNginx, 'GET', '/');
    assert.equal(front.status, 200);
    assert.equal(header(front, 'cache-control').length, 1, 'a page keeps its one Cache-Control');
    assert.match(header(front, 'cache-control')[0]!, /s-maxage=10/);
  });
});

describe('Nginx’s redirects and ranges', () => {
  test('a redirect names no host: the Location is the path alone, whatever Host came', async () => {
    for (const target of ['/preview', '/media']) {
      const answer = await send(viaNginx, 'GET', target, { Host: 'origin.internal.example' });
      assert.equal(answer.status, 301, target);
      assert.deepEqual(header(answer, 'location'), [`${target}/`], target);
    }
  });

  test('a request for many ranges of an asset gets the file once, never more bytes than the file', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'dist/client/manifest.json'), 'utf8')) as { scripts: string[] };
    const file = manifest.scripts[0]!;
    const size = fs.statSync(path.join(root, 'dist/client/assets', file)).size;
    const ranges = Array.from({ length: 500 }, (_, i) => `${i * 2}-${i * 2}`).join(',');
    const many = await send(viaNginx, 'GET', `/assets/${file}`, { Range: `bytes=${ranges}` });
    assert.equal(many.status, 200, 'more ranges than allowed: the whole file');
    assert.equal(many.body.length, size);
    // One range, as browsers and CloudFront ask, is still a 206 of that range.
    const one = await send(viaNginx, 'GET', `/assets/${file}`, { Range: 'bytes=0-99' });
    assert.equal(one.status, 206);
    assert.equal(one.body.length, 100);
  });
});
