import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { seedStore } from './seed';
import { openSqliteStore } from './sqlite';
import { contentStoreProblem } from './store-check';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-store-check-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a missing, empty or draft-only store is a start-up error that names SEED_DEMO_CONTENT; a published one is not', async () => {
  const missing = path.join(dir, 'missing.sqlite');
  assert.match(contentStoreProblem({ content: { store: 'sqlite', path: missing } }) ?? '', /^No content store at .*SEED_DEMO_CONTENT=true/);

  const empty = path.join(dir, 'empty.sqlite');
  new Database(empty).close();
  assert.match(contentStoreProblem({ content: { store: 'sqlite', path: empty } }) ?? '', /cannot be read \(.*no articles table.*SEED_DEMO_CONTENT=true/);

  const drafts = path.join(dir, 'drafts.sqlite');
  await seedStore(drafts, { published: 1, drafts: 2 });
  const db = new Database(drafts);
  db.prepare("UPDATE articles SET status = 'draft'").run();
  db.close();
  assert.match(contentStoreProblem({ content: { store: 'sqlite', path: drafts } }) ?? '', /has no published articles.*SEED_DEMO_CONTENT=true/);

  const full = path.join(dir, 'full.sqlite');
  await seedStore(full, { published: 3, drafts: 0 });
  assert.equal(contentStoreProblem({ content: { store: 'sqlite', path: full } }), null);
  assert.equal(contentStoreProblem({ content: { store: 'newsroom-api', url: 'http://newsroom.invalid/api' } }), null, 'the store is not used');
});

test('a store written before tags and the change log gets them at the start-up check, its articles untagged, and then serves', async () => {
  const old = path.join(dir, 'before-tags.sqlite');
  await seedStore(old, { published: 3, drafts: 0 });
  const db = new Database(old);
  for (const trigger of ['articles_inserted', 'articles_updated', 'articles_renumbered', 'articles_deleted']) db.exec(`DROP TRIGGER ${trigger}`);
  db.exec('DROP TABLE article_changes; DROP TABLE article_tags; ALTER TABLE articles DROP COLUMN tags');
  db.close();
  assert.throws(() => openSqliteStore(old, { readonly: true }), /predates tags or the change log/);
  assert.equal(contentStoreProblem({ content: { store: 'sqlite', path: old } }), null);
  const store = openSqliteStore(old, { readonly: true });
  try {
    const [newest] = await store.teasers('all', 1);
    assert.deepEqual((await store.article(newest!.id))?.tags, []);
    assert.deepEqual(await store.teasers({ tag: 'elections' }, 1), []);
  } finally {
    store.close();
  }
});

test('a store written before ordered pushes gets their columns at the start-up check; its rows are ordered by their updated time', async () => {
  const old = path.join(dir, 'before-ordering.sqlite');
  await seedStore(old, { published: 3, drafts: 0 });
  const db = new Database(old);
  db.exec('ALTER TABLE articles DROP COLUMN modified_at; ALTER TABLE articles DROP COLUMN previews_revoked_before');
  db.close();
  assert.throws(() => openSqliteStore(old, { readonly: true }), /ordered pushes/);
  assert.equal(contentStoreProblem({ content: { store: 'sqlite', path: old } }), null);
  const reader = openSqliteStore(old, { readonly: true });
  const writer = openSqliteStore(old);
  try {
    const [newest] = await reader.teasers('all', 1);
    const article = (await reader.article(newest!.id))!;
    assert.equal(await reader.previewsRevokedBefore(article.id), null);
    const before = new Date(Date.parse(article.updatedAt) - 60_000).toISOString();
    assert.deepEqual(writer.upsert({ ...article, title: 'A replay from before' }, { modifiedAt: before }), { outcome: 'stale', modifiedAt: article.updatedAt });
    assert.equal(writer.upsert(article, { modifiedAt: article.updatedAt }).outcome, 'unchanged');
  } finally {
    writer.close();
    reader.close();
  }
});
