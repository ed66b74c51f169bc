import Database from 'better-sqlite3';
import type { Headline } from '../../src/content';
import { articleIdPattern } from '../../src/sections';
import { KeptRanking, minuteOf, pruneBefore, rankedOverRead, windowStart } from './views-window';

// What readers do (views, newsletter sign-ups) lives in a file of its own beside the content
// store: every worker flushes views into it every few seconds, and a commit to the content file
// would move its data_version and throw away every worker's memoised front page and lists.

export function viewsPathFor(contentPath: string): string {
  return contentPath.replace(/(\.sqlite3?|\.db)?$/, '.views$1');
}

const schema = `
  CREATE TABLE IF NOT EXISTS article_views (
    article_id TEXT NOT NULL,
    minute     INTEGER NOT NULL,
    views      INTEGER NOT NULL,
    PRIMARY KEY (article_id, minute)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS article_views_by_minute ON article_views (minute);
  CREATE TABLE IF NOT EXISTS newsletter_signups (
    address      TEXT PRIMARY KEY,
    newsletters  TEXT NOT NULL,
    signed_up_at TEXT NOT NULL,
    confirmed    INTEGER NOT NULL DEFAULT 0
  );
`;

export const viewQueries = {
  add: `INSERT INTO article_views (article_id, minute, views) VALUES (?, ?, ?)
    ON CONFLICT (article_id, minute) DO UPDATE SET views = views + excluded.views`,
  prune: 'DELETE FROM article_views WHERE minute < ?',
  ranked: `SELECT article_id FROM article_views WHERE minute >= ?
    GROUP BY article_id ORDER BY sum(views) DESC, article_id DESC LIMIT ?`,
  signup: 'INSERT INTO newsletter_signups (address, newsletters, signed_up_at) VALUES (?, ?, ?) ON CONFLICT (address) DO NOTHING',
  signedUp: 'SELECT newsletters FROM newsletter_signups WHERE address = ?',
  updateSignup: 'UPDATE newsletter_signups SET newsletters = ? WHERE address = ?',
} as const;

export interface SqliteViews {
  /** Adds one flush's counts (article id → views) to a minute, in one transaction. */
  record(minute: number, counts: ReadonlyMap<string, number>): void;
  /** Most viewed over the window; `headlines` maps ranked ids to published headlines. */
  mostRead(limit: number, headlines: (ranked: string[]) => Headline[]): Promise<Headline[]>;
  /** A second sign-up adds letters to the first; its time stays the first's. */
  signup(address: string, newsletters: readonly string[], at: string): void;
  close(): void;
}

/** Opened on first use: a one-shot tool that never counts or ranks never creates the file. */
export function openSqliteViews(path: string, now: () => number = Date.now): SqliteViews {
  let opened: ReturnType<typeof open> | null = null;
  const ranking = new KeptRanking<Headline[]>(now);

  function open() {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Every worker flushes here: wait for another's short transaction rather than fail.
    db.pragma('busy_timeout = 2000');
    db.exec(schema);
    const add = db.prepare<[string, number, number]>(viewQueries.add);
    const prune = db.prepare<[number]>(viewQueries.prune);
    const ranked = db.prepare<[number, number], string>(viewQueries.ranked).pluck();
    const record = db.transaction((minute: number, counts: ReadonlyMap<string, number>) => {
      for (const [id, views] of counts) if (articleIdPattern.test(id) && views > 0) add.run(id, minute, views);
      prune.run(pruneBefore(minute));
    });
    const insertSignup = db.prepare<[string, string, string]>(viewQueries.signup);
    const signedUp = db.prepare<[string], string>(viewQueries.signedUp).pluck();
    const updateSignup = db.prepare<[string, string]>(viewQueries.updateSignup);
    const signup = db.transaction((address: string, letters: readonly string[], at: string) => {
      if (insertSignup.run(address, [...letters].sort().join(','), at).changes > 0) return;
      const merged = new Set([...(signedUp.get(address) ?? '').split(','), ...letters]);
      updateSignup.run([...merged].filter(Boolean).sort().join(','), address);
    });
    return { db, record, ranked, signup };
  }
  const views = () => (opened ??= open());

  return {
    record(minute, counts) {
      if (counts.size === 0) return;
      views().record(minute, counts);
      ranking.clear();
    },
    mostRead(limit, headlines) {
      return ranking.get(limit, async () => headlines(views().ranked.all(windowStart(minuteOf(now())), limit * rankedOverRead)).slice(0, limit));
    },
    signup(address, newsletters, at) {
      views().signup(address, newsletters, at);
    },
    close() {
      opened?.db.close();
      opened = null;
    },
  };
}
