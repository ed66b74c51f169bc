// Two test files start built servers at once, each on a port the kernel called free: both can be
// handed the same one. The second Kiosk then refuses to start (the port is taken) and
// startBuiltServer picks another, where a port the caller chose is still refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { freePort } from './ports';
import { seedTempStore, startBuiltServer, type BuiltServer } from './built-server';

let dir: string;
let dbPath: string;
let first: BuiltServer;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(20, 0));
  first = await startBuiltServer(dbPath);
});

after(async () => {
  await first?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a port taken between the pick and the bind: another is picked, and both servers serve', async () => {
  const taken = Number(new URL(first.baseUrl).port);
  const picked: number[] = [];
  const second = await startBuiltServer(dbPath, {}, async () => {
    const port = picked.length === 0 ? taken : await freePort();
    picked.push(port);
    return port;
  });
  try {
    assert.equal(picked.length, 2, 'the taken port, then another');
    assert.equal(picked[0], taken);
    assert.equal(second.baseUrl, `http://127.0.0.1:${picked[1]}`);
    for (const server of [first, second]) assert.equal((await fetch(`${server.baseUrl}/api/front`)).status, 200);
  } finally {
    await second.stop();
  }
});

test('a port the caller chose is not changed: taken, the start fails and says by whom', async () => {
  await assert.rejects(startBuiltServer(dbPath, { PORT: new URL(first.baseUrl).port }), /Port \d+ is already taken by PID \d+/);
});
