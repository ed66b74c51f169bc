// The load generator (loadgen.c) against a real server whose answers are known: every request
// is counted once, by where its answer came from, and a request that gets no answer is a
// timeout at its scheduled time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { repositoryRoot as root } from '@kiosk/surface';
import { buildNativeGenerator, NativeGenerator } from './native-generator';

let dir: string;
let binary: string | null = null;
let server: http.Server;
let port: number;
const seen = new Map<string, number>();

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-loadgen-'));
  const built = buildNativeGenerator(root, dir);
  if ('binary' in built) binary = built.binary;
  else throw new Error(built.error);
  server = http.createServer((req, res) => {
    seen.set(req.url!, (seen.get(req.url!) ?? 0) + 1);
    if (req.url === '/ssr') res.writeHead(200, { 'X-Render-Mode': 'ssr', 'Content-Length': 5 }).end('hello');
    else if (req.url === '/node-shell') res.writeHead(200, { 'X-Render-Mode': 'shell', 'Content-Length': 5 }).end('shell');
    else if (req.url === '/nginx-shell')
      res.writeHead(200, { 'X-Render-Mode': 'shell', 'Last-Modified': new Date(0).toUTCString(), 'Transfer-Encoding': 'chunked' }).end('from disk');
    else if (req.url === '/busy') res.writeHead(503, { 'Retry-After': '5', 'Content-Length': 0, Connection: 'close' }).end();
    // The last good copy, as Nginx answers it from a file: Last-Modified too, and yet no shell.
    else if (req.url === '/last-good')
      res.writeHead(200, { 'X-Render-Mode': 'last-good', 'Last-Modified': new Date(0).toUTCString(), 'Content-Length': 4 }).end('copy');
    // A mode nobody taught the generator, one that merely starts like a known one, and none at all.
    else if (req.url === '/unknown') res.writeHead(200, { 'X-Render-Mode': 'prerendered', 'Content-Length': 2 }).end('hi');
    else if (req.url === '/ssr-like') res.writeHead(200, { 'X-Render-Mode': 'ssr-stale', 'Content-Length': 2 }).end('hi');
    else if (req.url === '/no-mode') res.writeHead(200, { 'Content-Length': 2 }).end('hi');
    else if (req.url === '/error') res.writeHead(500, { 'X-Render-Mode': 'ssr', 'Content-Length': 0 }).end();
    // /hang: never answered
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server.closeAllConnections();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('loadgen: fresh, last good, shell from Node and from Nginx, 503, other errors, unknown modes and no mode, each counted apart from real answers', async () => {
  // No hung path here (the test below has one): a timeout long enough that a busy machine's slow answer is still an answer.
  const sources = ['/ssr', '/last-good', '/node-shell', '/nginx-shell', '/busy', '/unknown', '/ssr-like', '/no-mode', '/error', '/ssr'];
  const paths = path.join(dir, 'sources.json');
  fs.writeFileSync(paths, JSON.stringify(sources));
  const generator = new NativeGenerator(binary!, paths);
  const result = await generator.run({ host: '127.0.0.1', port, ratePerS: 1000, warmupS: 0.2, durationS: 1, timeoutMs: 3000, maxConnections: 200 }, () => {});
  const c = result.counts;
  // Ten paths in rotation, a thousand requests in the window: a hundred each.
  assert.equal(c.scheduled, 1000);
  assert.equal(c.ssr, 200, 'only "ssr" is server-rendered');
  assert.equal(c.lastGood, 100);
  assert.equal(c.shell, 200);
  assert.equal(c.shellNginx, 100, "a last good copy with Last-Modified is not Nginx's shell");
  assert.equal(c.unknownMode, 200, '"prerendered" and "ssr-stale" are unknown, never server-rendered');
  assert.equal(c.noMode, 100);
  assert.equal(c.status503, 100);
  assert.equal(c.non2xx, 200, 'the 503s and the 500s');
  assert.equal(c.timeouts, 0);
  assert.equal(c.errors, 0);
  assert.equal(c.ok, 800);
  assert.equal(c.ssrShare, 0.2);
  // Per second: the answers that arrived within the window, whenever they were sent.
  assert.ok(Math.abs(c.lastGoodPerS - 100) <= 30, `last good per second: ${c.lastGoodPerS}`);
  assert.ok(Math.abs(c.ssrPerS - 200) <= 60, `server-rendered per second: ${c.ssrPerS}`);
});

// Answers as Nginx writes them, byte for byte: its last good copy from a file (lower-case header
// name, chunked) and a page a worker rendered, passed through.
const nginxAnswers: Record<string, string> = {
  '/copy':
    'HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Thu, 26 Nov 2026 23:00:00 GMT\r\nContent-Type: text/html; charset=utf-8\r\n' +
    'Transfer-Encoding: chunked\r\nConnection: keep-alive\r\nLast-Modified: Thu, 26 Nov 2026 22:58:00 GMT\r\nETag: "6767a2c8-4"\r\n' +
    'x-render-mode: last-good\r\nCache-Control: public, max-age=0, s-maxage=5\r\n\r\n4\r\ncopy\r\n0\r\n\r\n',
  '/fresh':
    'HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Thu, 26 Nov 2026 23:00:00 GMT\r\nContent-Type: text/html; charset=utf-8\r\n' +
    'Content-Length: 5\r\nConnection: keep-alive\r\nX-Render-Mode: ssr \r\n\r\nfresh',
};

test('loadgen: answers written as Nginx writes them, a last good copy and a fresh page, each counted as what it is', async () => {
  const raw = net.createServer((socket) =>
    socket.on('data', (chunk) => {
      const wanted = /^GET (\S+)/.exec(chunk.toString())?.[1] ?? '';
      socket.write(nginxAnswers[wanted] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    }),
  );
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  try {
    const paths = path.join(dir, 'nginx.json');
    fs.writeFileSync(paths, JSON.stringify(Object.keys(nginxAnswers)));
    const generator = new NativeGenerator(binary!, paths);
    const rawPort = (raw.address() as AddressInfo).port;
    const { counts } = await generator.run(
      { host: '127.0.0.1', port: rawPort, ratePerS: 400, warmupS: 0.1, durationS: 0.5, timeoutMs: 1000, maxConnections: 20 },
      () => {},
    );
    assert.equal(counts.scheduled, 200);
    assert.deepEqual([counts.ok, counts.lastGood, counts.ssr, counts.shell, counts.shellNginx, counts.unknownMode, counts.noMode], [200, 100, 100, 0, 0, 0, 0]);
  } finally {
    raw.close();
  }
});

test('loadgen: the rate sent, each answer counted by its source, a hung request a timeout', async () => {
  seen.clear();
  const paths = path.join(dir, 'paths.json');
  fs.writeFileSync(paths, JSON.stringify(['/ssr', '/node-shell', '/nginx-shell', '/busy', '/hang']));
  const generator = new NativeGenerator(binary!, paths);
  const windows: string[] = [];
  const result = await generator.run({ host: '127.0.0.1', port, ratePerS: 500, warmupS: 0.2, durationS: 1, timeoutMs: 300, maxConnections: 50 }, (phase) =>
    windows.push(phase),
  );
  assert.deepEqual(windows, ['measuring', 'measured']);
  const c = result.counts;
  assert.equal(c.scheduled, 500, 'one second at 500/s');
  assert.ok(Math.abs(c.sentPerS - 500) < 25, `sent ${c.sentPerS}/s`);
  // Five paths in rotation: a fifth of the window's requests each.
  assert.equal(c.ssr, 100);
  assert.equal(c.shell, 200);
  assert.equal(c.shellNginx, 100);
  assert.equal(c.status503, 100);
  assert.equal(c.status503WithRetryAfter, 100);
  assert.equal(c.timeouts, 100);
  assert.equal(c.ok, 300);
  assert.equal(c.non2xx, 100);
  assert.equal(c.errors, 0);
  assert.equal(c.latencyMs.max, 300, 'timeouts enter the percentiles at the timeout');
  assert.ok(result.pool.opened >= 100, 'each 503 closed its connection, each timeout cost one');
  assert.equal(seen.get('/ssr'), 120, 'warm-up and window together: 1.2 s at 500/s, a fifth each');
});
