// One Kiosk per port: a second one started on a port the first serves refuses, in one sentence
// naming the first, in every listening layout and through `npm start`; the first keeps every
// reader and can still replace its own workers. The two serve different stores, so an answer
// says which Kiosk gave it, as an old instance left running would show old content.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { seedStore } from './content/seed';
import { freePort, startBuiltServer, type BuiltServer } from '../test/server';
import { waitFor } from '../test/wait';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let dir: string;
let firstStore: string;
let secondStore: string;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-one-per-port-'));
  firstStore = path.join(dir, 'first.sqlite');
  secondStore = path.join(dir, 'second.sqlite');
  await seedStore(firstStore, { published: 200, drafts: 0 });
  await seedStore(secondStore, { published: 200, drafts: 0, seed: 7 });
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The front page's JSON on a connection of its own, so a second listener would get its share. */
function front(baseUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(`${baseUrl}/api/front`, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`status ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

interface Second {
  child: ChildProcess;
  output(): string;
}

function spawnSecond(args: string[], env: Record<string, string>): Second {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', WEB_CONCURRENCY: '2', CONTENT_DB_PATH: secondStore, DIST_DIR: path.join(root, 'dist'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Waits for the second to exit, or fails as soon as one of its workers listens. */
async function expectRefusal(second: Second, owner: number, port: number): Promise<void> {
  try {
    await waitFor('the second Kiosk exits or serves', () => second.child.exitCode !== null || second.output().includes('"worker listening"'));
    assert.ok(!second.output().includes('"worker listening"'), `the second Kiosk started serving beside the first:\n${second.output()}`);
    assert.notEqual(second.child.exitCode, 0, second.output());
    const sentence = `Port ${port} is already taken by PID ${owner} (`;
    assert.ok(second.output().includes(sentence), `"${sentence}…" in:\n${second.output()}`);
    assert.doesNotMatch(second.output(), /^\s+at .+:\d+/m, 'no stack trace');
  } finally {
    if (second.child.exitCode === null) {
      // SIGTERM: npm start passes it on to the cluster it started, which SIGKILL would orphan.
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    }
  }
}

async function assertOnlyFirstAnswers(first: BuiltServer, expected: string, requests: number): Promise<void> {
  for (let i = 0; i < requests; i++) assert.equal(await front(first.baseUrl), expected, `request ${i + 1} was answered by another Kiosk`);
}

test('a second Kiosk on a served port refuses to start, in every listening layout and through npm start; the first keeps every reader and its own restarts', async (t) => {
  // Each store's front page tells the two apart; checked, or "only the first answered" proves nothing.
  const alone = await startBuiltServer(secondStore);
  const secondsFront = await front(alone.baseUrl);
  assert.equal(await alone.stop(), 0);

  const port = await freePort();
  // The default layout: reuse-port workers, the one a second instance could silently join.
  const first = await startBuiltServer(firstStore, { PORT: String(port), WEB_CONCURRENCY: '2' });
  try {
    const expected = await front(first.baseUrl);
    assert.notEqual(expected, secondsFront);
    const bundle = ['--enable-source-maps', path.join(root, 'dist', 'server', 'index.cjs')];
    const attempts: [string, string[], Record<string, string>][] = [
      ['reuse-port', bundle, { LISTEN_MODE: 'reuse-port' }],
      ['per-worker', bundle, { LISTEN_MODE: 'per-worker', HOST: '', WEB_CONCURRENCY: '1' }],
      ['npm start', ['--import', 'tsx', path.join(root, 'scripts', 'start.ts'), '--no-build', '--no-seed'], {}],
    ];
    for (const [layout, args, env] of attempts) {
      await t.test(layout, () => expectRefusal(spawnSecond(args, { PORT: String(port), ...env }), first.process.pid!, port));
    }

    await assertOnlyFirstAnswers(first, expected, 50);

    const [killed] = first.workerPids();
    process.kill(killed!, 'SIGKILL');
    await waitFor('a replacement worker in the first Kiosk', () => first.workerPids().length === 3);
    await assertOnlyFirstAnswers(first, expected, 50);
  } finally {
    assert.equal(await first.stop(), 0);
  }
});

test('a port held by another program, even one that shares it with SO_REUSEPORT, is refused naming that program', async () => {
  const port = await freePort();
  const other = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => other.listen({ port, reusePort: true }, resolve));
  try {
    const bundle = ['--enable-source-maps', path.join(root, 'dist', 'server', 'index.cjs')];
    await expectRefusal(spawnSecond(bundle, { PORT: String(port) }), process.pid, port);
  } finally {
    await new Promise((resolve) => other.close(resolve));
  }
});
