// Slow clients against the built worker with no Nginx in front (the harder case): idle
// connections that never send a byte and trickling ones that send a header byte at a time
// must not keep readers from being served.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { loadConfig } from './config';
import { seedTempStore, startBuiltServer, type BuiltServer } from '../test/server';

let dir: string;
let server: BuiltServer;
const sockets: net.Socket[] = [];

before(async () => {
  ({ dir } = await seedTempStore(300, 2));
  server = await startBuiltServer(`${dir}/kiosk.sqlite`);
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', reject);
  });
}

test('2,000 idle and trickling connections do not keep a reader from a page', async () => {
  const port = Number(new URL(server.baseUrl).port);
  for (let i = 0; i < 2_000; i++) {
    const socket = await open(port);
    socket.on('error', () => {});
    sockets.push(socket);
  }
  // Half of them send a request line and then one header byte every 200 ms, never finishing.
  const trickling = sockets.filter((_, i) => i % 2 === 0);
  for (const socket of trickling) socket.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  const drip = setInterval(() => {
    for (const socket of trickling) if (!socket.destroyed) socket.write('a');
  }, 200);
  try {
    // The trickle going on for a while (five drips) is the case under test: readers come during it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const front = await fetch(`${server.baseUrl}/api/latest?limit=5`);
    const { items } = (await front.json()) as { items: { section: string; id: string }[] };
    // Were the slow connections in the readers' way, the readers would be served only once Node
    // cut those off, at its headers timeout (66 s). Half that is the ceiling: generous for a busy
    // machine, and still short of where the other explanation could serve them.
    const ceilingMs = loadConfig({}).headersTimeoutMs / 2;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await fetch(`${server.baseUrl}/${items[i % items.length]!.section}/${items[i % items.length]!.id}`, {
          signal: AbortSignal.timeout(2 * ceilingMs),
        });
        await res.arrayBuffer();
        return { status: res.status, ms: performance.now() - started };
      }),
    );
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
    const slowestMs = Math.max(...answers.map((a) => a.ms));
    assert.ok(slowestMs < ceilingMs, `50 readers served before the slow connections could be cut off: the last after ${Math.round(slowestMs)} ms`);
    assert.equal(server.process.exitCode, null, 'the cluster is still up');
    const stillOpen = sockets.filter((s) => !s.destroyed).length;
    assert.ok(stillOpen > 1_500, `the slow connections were held, not refused (${stillOpen} open)`);
  } finally {
    clearInterval(drip);
  }
});
