// The load generator (loadgen.c) against a real server whose answers are known: every request
// is counted once, by where its answer came from, and a request that gets no answer is a
// timeout at its scheduled time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

test('loadgen: the rate sent, each answer counted by its source, a hung request a timeout', async () => {
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
