import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { isEmptyStore, seedIfEmpty, seedStore } from './seed';
import { openSqliteStore } from './sqlite';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-seed-if-empty-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const small = { published: 30, drafts: 2 };

function countAll(dbPath: string): number {
  const store = openSqliteStore(dbPath, { readonly: true });
  try {
    return store.countAll();
  } finally {
    store.close();
  }
}

test('a missing store is seeded, in a directory created for it, and nothing is left beside it', async () => {
  const dbPath = path.join(dir, 'fresh', 'data', 'kiosk.sqlite');
  const result = await seedIfEmpty(dbPath, small);
  assert.deepEqual({ seeded: result.seeded, inserted: result.inserted }, { seeded: true, inserted: 32 });
  // The WAL was checkpointed into the file before the rename: the file alone is the store.
  assert.deepEqual(fs.readdirSync(path.dirname(dbPath)), ['kiosk.sqlite']);
  assert.equal(countAll(dbPath), 32);
});

test('a store that has articles is left as it is', async () => {
  const dbPath = path.join(dir, 'kept.sqlite');
  await seedStore(dbPath, { published: 5, drafts: 0 });
  const before = fs.statSync(dbPath).mtimeMs;
  const result = await seedIfEmpty(dbPath, small);
  assert.equal(result.seeded, false);
  assert.equal(countAll(dbPath), 5);
  assert.equal(fs.statSync(dbPath).mtimeMs, before);
});

test('an empty store file and the leftovers of an interrupted seed are replaced by a complete store', async () => {
  const dbPath = path.join(dir, 'interrupted.sqlite');
  new Database(dbPath).close();
  fs.writeFileSync(`${dbPath}.seeding`, 'half a seed');
  fs.writeFileSync(`${dbPath}.seeding-wal`, 'not a WAL');
  assert.equal(isEmptyStore(dbPath), true);
  const result = await seedIfEmpty(dbPath, small);
  assert.equal(result.seeded, true);
  assert.deepEqual(
    fs.readdirSync(dir).filter((f) => f.startsWith('interrupted')),
    ['interrupted.sqlite'],
  );
  assert.equal(countAll(dbPath), 32);
});
