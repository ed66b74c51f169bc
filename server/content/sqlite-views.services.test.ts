// The views file and the sign-ups file against real SQLite files, with a second connection
// holding the write lock as another worker (or an operator's sqlite3 shell) would.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { StoreBusy } from './source';
import { moveSignupsFromViewsFile, openSqliteSignups } from './sqlite-signups';
import { openSqliteViews, viewQueries } from './sqlite-views';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-views-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newPath = (name: string) => path.join(dir, `${(files += 1)}-${name}.sqlite`);
const id = (n: number) => `2026112121${String(n).padStart(8, '0')}`;

/** Another connection holding the file's write lock until released. */
function holdWriteLock(file: string): { release(): void } {
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  return {
    release() {
      other.exec('ROLLBACK');
      other.close();
    },
  };
}

test('ranking reads the totals by their index, and taking minutes out walks the minute index: no sort, no scan', () => {
  const file = newPath('views');
  const views = openSqliteViews(file);
  return views.ranked(1).then(() => {
    const db = new Database(file, { readonly: true });
    try {
      for (const [name, params] of [
        ['ranked', [10]],
        ['leaving', [1, 500]],
      ] as const) {
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${viewQueries[name]}`)
          .all(...params)
          .map((row) => (row as { detail: string }).detail)
          .join('; ');
        assert.match(plan, /USING (COVERING )?INDEX/, `${name}: ${plan}`);
        assert.doesNotMatch(plan, /TEMP B-TREE/, `${name}: ${plan}`);
      }
    } finally {
      db.close();
      views.close();
    }
  });
});

test('a write that finds the file held by another writer gives up at once and hands its counts back', async () => {
  const file = newPath('views');
  const views = openSqliteViews(file);
  try {
    await views.record(100, new Map([[id(1), 1]]));
    const lock = holdWriteLock(file);
    let unwritten: ReadonlyMap<string, number>;
    const started = performance.now();
    try {
      unwritten = await views.record(
        100,
        new Map([
          [id(1), 2],
          [id(2), 1],
        ]),
      );
    } finally {
      lock.release();
    }
    // The old file waited for the lock (busy_timeout, 2 s) with the event loop held.
    assert.ok(performance.now() - started < 1_000, `returned after ${Math.round(performance.now() - started)} ms`);
    assert.deepEqual(
      unwritten,
      new Map([
        [id(1), 2],
        [id(2), 1],
      ]),
    );
    assert.deepEqual(await views.ranked(5), [id(1)], 'nothing half-written');
    assert.deepEqual(await views.record(100, unwritten), new Map());
    assert.deepEqual(await views.ranked(5), [id(1), id(2)]);
  } finally {
    views.close();
  }
});

test('a large flush is written in short transactions, with turns of the event loop between them', async () => {
  const views = openSqliteViews(newPath('views'));
  try {
    const counts = new Map(Array.from({ length: 5_000 }, (_, n) => [id(n), 1 + (n % 7)]));
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    assert.deepEqual(await views.record(200, counts), new Map());
    done = true;
    assert.ok(turns >= 40, `the event loop turned ${turns} times during the flush (5,000 articles, 100 a transaction)`);
    assert.equal((await views.ranked(5_000)).length, 5_000);
  } finally {
    views.close();
  }
});

test('minutes leave the window in chunks and exactly once, however many workers expire', async () => {
  const file = newPath('views');
  const [a, b] = [openSqliteViews(file), openSqliteViews(file)];
  try {
    const old = new Map(Array.from({ length: 1_200 }, (_, n) => [id(n), 2]));
    await a.record(1_000, old);
    await a.record(
      1_059,
      new Map([
        [id(0), 1],
        [id(5_000), 4],
      ]),
    );
    await Promise.all([a.expire(1_059 + 59), b.expire(1_059 + 59), a.expire(1_059 + 59)]);
    assert.deepEqual(await a.ranked(10), [id(5_000), id(0)], 'the old minute is gone from the totals, the kept one stays');
    const db = new Database(file, { readonly: true });
    try {
      assert.deepEqual(db.prepare('SELECT count(*) AS n, sum(views) AS v FROM article_views').get(), { n: 2, v: 5 });
      assert.deepEqual(db.prepare('SELECT count(*) AS n, sum(views) AS v FROM article_view_totals').get(), { n: 2, v: 5 });
    } finally {
      db.close();
    }
  } finally {
    a.close();
    b.close();
  }
});

test('a sign-up that finds the file locked waits off the event loop, then is refused with nothing written', async () => {
  const file = newPath('newsletter');
  const signups = openSqliteSignups(file, { deadlineMs: 300 });
  try {
    await signups.signup('first@example.com', ['morning'], '2026-11-25T08:00:00.000Z');
    const lock = holdWriteLock(file);
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    try {
      await assert.rejects(signups.signup('second@example.com', ['morning'], '2026-11-25T08:01:00.000Z'), StoreBusy);
    } finally {
      clearInterval(ticker);
      lock.release();
    }
    // Had it waited on the event loop (busy_timeout), the timer could not have run meanwhile.
    assert.ok(ticks >= 5, `the event loop ran ${ticks} timer ticks while the sign-up waited`);
    const db = new Database(file, { readonly: true });
    try {
      assert.deepEqual(db.prepare('SELECT address FROM newsletter_signups').pluck().all(), ['first@example.com']);
    } finally {
      db.close();
    }
    await signups.signup('second@example.com', ['morning'], '2026-11-25T08:02:00.000Z');
  } finally {
    signups.close();
  }
});

test('a sign-up waits for a writer that lets go within its deadline', async () => {
  const file = newPath('newsletter');
  const signups = openSqliteSignups(file, { deadlineMs: 2_000 });
  try {
    await signups.signup('first@example.com', ['morning'], '2026-11-25T08:00:00.000Z');
    const lock = holdWriteLock(file);
    // The writer letting go after a moment, within the deadline, is the case under test.
    setTimeout(() => lock.release(), 100);
    await signups.signup('second@example.com', ['morning'], '2026-11-25T08:01:00.000Z');
  } finally {
    signups.close();
  }
});

test('unconfirmed sign-ups expire; confirmed ones and recent ones stay', async () => {
  const file = newPath('newsletter');
  const signups = openSqliteSignups(file);
  try {
    for (let n = 0; n < 2_500; n += 1) await signups.signup(`old${n}@example.com`, ['morning'], '2026-11-01T08:00:00.000Z');
    await signups.signup('kept@example.com', ['morning'], '2026-11-01T08:00:00.000Z');
    await signups.signup('recent@example.com', ['morning'], '2026-11-24T08:00:00.000Z');
    const db = new Database(file);
    db.prepare("UPDATE newsletter_signups SET confirmed = 1 WHERE address = 'kept@example.com'").run();
    assert.equal(await signups.expireUnconfirmed('2026-11-18T00:00:00.000Z'), 2_500);
    assert.deepEqual(db.prepare('SELECT address FROM newsletter_signups ORDER BY address').pluck().all(), ['kept@example.com', 'recent@example.com']);
    db.close();
  } finally {
    signups.close();
  }
});

test('sign-ups an earlier version kept in the views file move to their own file, once', () => {
  const views = newPath('views');
  const old = new Database(views);
  old.exec(`CREATE TABLE newsletter_signups (address TEXT PRIMARY KEY, newsletters TEXT NOT NULL, signed_up_at TEXT NOT NULL, confirmed INTEGER NOT NULL DEFAULT 0);
    INSERT INTO newsletter_signups VALUES ('a@example.com', 'morning', '2026-11-20T08:00:00.000Z', 1), ('b@example.com', 'sport', '2026-11-21T08:00:00.000Z', 0);`);
  old.close();
  const signupsFile = newPath('newsletter');
  assert.equal(moveSignupsFromViewsFile(views, signupsFile), 2);
  assert.equal(moveSignupsFromViewsFile(views, signupsFile), 0);
  const moved = new Database(signupsFile, { readonly: true });
  assert.deepEqual(moved.prepare('SELECT address, newsletters, signed_up_at, confirmed FROM newsletter_signups ORDER BY address').all(), [
    { address: 'a@example.com', newsletters: 'morning', signed_up_at: '2026-11-20T08:00:00.000Z', confirmed: 1 },
    { address: 'b@example.com', newsletters: 'sport', signed_up_at: '2026-11-21T08:00:00.000Z', confirmed: 0 },
  ]);
  moved.close();
  const after = new Database(views, { readonly: true });
  assert.equal(after.prepare("SELECT 1 FROM sqlite_master WHERE name = 'newsletter_signups'").get(), undefined);
  after.close();
});
