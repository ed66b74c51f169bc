// Nothing counted is lost on SIGTERM, through the whole production path: the built cluster
// (throng primary, two workers) takes view beacons with a flush interval longer than the test,
// is sent SIGTERM, and every view is in the store once it has exited.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { openSqliteStore } from './content/sqlite';
import { seedTempStore, startBuiltServer } from '../test/server';

let dir: string;
let dbPath: string;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(300, 5));
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('SIGTERM: both workers flush the views they counted before they exit', async () => {
  const server = await startBuiltServer(dbPath, { WEB_CONCURRENCY: '2', VIEWS_FLUSH_S: '60', CLIENT_ADDRESS_HOPS: '1' });
  const store = openSqliteStore(dbPath, { readonly: true });
  try {
    const ids = (await store.teasers('all', 12)).map((h) => h.id);
    // Article i gets 12 - i readers: a ranking with no ties, sent at once over many connections,
    // which the kernel spreads over the two workers (SO_REUSEPORT).
    const beacons = ids.flatMap((id, i) => Array.from({ length: 12 - i }, (_, reader) => ({ id, from: `198.51.100.${reader}` })));
    const statuses = await Promise.all(
      beacons.map(async ({ id, from }) => (await fetch(`${server.baseUrl}/api/views/${id}`, { method: 'POST', headers: { 'X-Forwarded-For': from } })).status),
    );
    assert.ok(
      statuses.every((s) => s === 204),
      statuses.join(),
    );
    assert.deepEqual(await store.mostRead(10), [], 'nothing is written before a flush');
    assert.equal(await server.stop(), 0, 'the cluster exits cleanly');
    const output = server.output();
    assert.equal((output.match(/"worker listening"/g) ?? []).length, 2);
    // A store of its own: the first keeps the empty ranking it read for its 5 s.
    const reopened = openSqliteStore(dbPath, { readonly: true });
    const ranked = (await reopened.mostRead(10)).map((h) => h.id);
    reopened.close();
    assert.deepEqual(ranked, ids.slice(0, 10), `every view reached the store:\n${output.slice(-2_000)}`);
  } finally {
    store.close();
    await server.stop();
  }
});
