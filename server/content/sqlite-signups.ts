import Database from 'better-sqlite3';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isBusy } from './sqlite-views';
import { StoreBusy, type SignupStore } from './source';

// Newsletter sign-ups in a file of their own beside the content store: a mailing list is
// personal data, kept, backed up and deleted on its own terms, apart from anonymous view counts.
// A sign-up is answered "thank you" only once it is on disk (synchronous = FULL: the commit is
// synced before it returns). Nothing waits for a lock on the event loop: a write that finds the
// file held by another writer is tried again a little later, up to a deadline, and then refused
// with StoreBusy, which the reader sees as "try again in a moment", never as a lost sign-up.

export function signupsPathFor(contentPath: string): string {
  return contentPath.replace(/(\.sqlite3?|\.db)?$/, '.newsletter$1');
}

const schema = `
  CREATE TABLE IF NOT EXISTS newsletter_signups (
    address      TEXT PRIMARY KEY,
    newsletters  TEXT NOT NULL,
    signed_up_at TEXT NOT NULL,
    confirmed    INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS newsletter_signups_unconfirmed ON newsletter_signups (signed_up_at) WHERE confirmed = 0;
`;

const queries = {
  insert: 'INSERT INTO newsletter_signups (address, newsletters, signed_up_at) VALUES (?, ?, ?) ON CONFLICT (address) DO NOTHING',
  letters: 'SELECT newsletters FROM newsletter_signups WHERE address = ?',
  update: 'UPDATE newsletter_signups SET newsletters = ? WHERE address = ?',
  expire: `DELETE FROM newsletter_signups WHERE rowid IN (
    SELECT rowid FROM newsletter_signups WHERE confirmed = 0 AND signed_up_at < ? LIMIT ?)`,
} as const;

/** How long a sign-up may wait for a busy file, in steps a few milliseconds apart. */
const defaultDeadlineMs = 800;
const retryEveryMs = 15;
const expiredPerTransaction = 1_000;

export function prepareSignupsFile(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(schema);
}

/**
 * Sign-ups that an earlier version kept in the views file move to their own file, once: copied
 * in one transaction (a sign-up already in the new file stays as it is), then dropped from the
 * old one. Run by the primary before the workers start. Resolves with how many moved.
 */
export function moveSignupsFromViewsFile(viewsPath: string, signupsPath: string): number {
  if (!fs.existsSync(viewsPath)) return 0;
  const db = new Database(signupsPath);
  try {
    db.pragma('busy_timeout = 5000');
    prepareSignupsFile(db);
    db.prepare('ATTACH DATABASE ? AS views').run(viewsPath);
    try {
      const old = db.prepare("SELECT 1 FROM views.sqlite_master WHERE type = 'table' AND name = 'newsletter_signups'").get();
      if (old === undefined) return 0;
      return db
        .transaction(() => {
          const moved = db
            .prepare(
              `INSERT INTO main.newsletter_signups (address, newsletters, signed_up_at, confirmed)
               SELECT address, newsletters, signed_up_at, confirmed FROM views.newsletter_signups WHERE true
               ON CONFLICT (address) DO NOTHING`,
            )
            .run().changes;
          db.exec('DROP TABLE views.newsletter_signups');
          return moved;
        })
        .immediate();
    } finally {
      db.exec('DETACH DATABASE views');
    }
  } finally {
    db.close();
  }
}

/** Opened on first use: a tool that never takes a sign-up never creates the file. */
export function openSqliteSignups(path: string, options: { deadlineMs?: number } = {}): SignupStore {
  const deadlineMs = options.deadlineMs ?? defaultDeadlineMs;
  let opened: ReturnType<typeof open> | null = null;

  function open() {
    const db = new Database(path);
    try {
      db.pragma('busy_timeout = 2000');
      prepareSignupsFile(db);
      db.pragma('busy_timeout = 0');
    } catch (error) {
      db.close();
      throw error;
    }
    const insert = db.prepare<[string, string, string]>(queries.insert);
    const letters = db.prepare<[string], string>(queries.letters).pluck();
    const update = db.prepare<[string, string]>(queries.update);
    const expire = db.prepare<[string, number]>(queries.expire);
    const expireSome = db.transaction((before: string) => expire.run(before, expiredPerTransaction).changes);
    const signup = db.transaction((address: string, newsletters: readonly string[], at: string) => {
      if (insert.run(address, [...newsletters].sort().join(','), at).changes > 0) return;
      const merged = new Set([...(letters.get(address) ?? '').split(','), ...newsletters]);
      update.run([...merged].filter(Boolean).sort().join(','), address);
    });
    return { db, signup, expireSome };
  }
  const signups = () => (opened ??= open());

  /** Runs `write` in an IMMEDIATE transaction, trying again while another writer holds the file, up to the deadline. */
  async function whenFree<T>(write: () => T): Promise<T> {
    const giveUpAt = performance.now() + deadlineMs;
    for (;;) {
      try {
        return write();
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (performance.now() + retryEveryMs > giveUpAt) throw new StoreBusy('the sign-ups file stayed locked');
        await sleep(retryEveryMs);
      }
    }
  }

  return {
    async signup(address, newsletters, at) {
      const store = signups();
      await whenFree(() => store.signup.immediate(address, newsletters, at));
    },
    async expireUnconfirmed(before) {
      const store = signups();
      let total = 0;
      for (;;) {
        const gone = await whenFree(() => store.expireSome.immediate(before));
        total += gone;
        if (gone < expiredPerTransaction) return total;
      }
    },
    close() {
      opened?.db.close();
      opened = null;
    },
  };
}
