import Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describeError, log } from '../log';
import type { ViewsStore } from './source';
import { chunks, windowStart } from './views-window';

// Article views live in a file of their own beside the content store: every worker flushes
// into it every few seconds, and a commit to the content file would tell every worker that the
// content changed. Nothing here waits for a lock (busy_timeout 0): a write that finds the file
// held by another worker gives up at once and is tried again at the next flush, so a busy file
// never holds a worker's event loop. Writes go in transactions of a few hundred rows, a turn of
// the event loop apart, so none holds the loop or the lock for more than a millisecond or two.

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
  CREATE TABLE IF NOT EXISTS article_view_totals (
    article_id TEXT PRIMARY KEY,
    views      INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS article_view_totals_by_views ON article_view_totals (views DESC, article_id DESC);
`;

export const viewQueries = {
  addMinute: `INSERT INTO article_views (article_id, minute, views) VALUES (?, ?, ?)
    ON CONFLICT (article_id, minute) DO UPDATE SET views = views + excluded.views`,
  addTotal: `INSERT INTO article_view_totals (article_id, views) VALUES (?, ?)
    ON CONFLICT (article_id) DO UPDATE SET views = views + excluded.views`,
  leaving: 'SELECT article_id, minute, views FROM article_views WHERE minute < ? ORDER BY minute LIMIT ?',
  subtract: 'UPDATE article_view_totals SET views = views - ? WHERE article_id = ?',
  dropMinute: 'DELETE FROM article_views WHERE article_id = ? AND minute = ?',
  dropTotal: 'DELETE FROM article_view_totals WHERE article_id = ? AND views <= 0',
  ranked: 'SELECT article_id FROM article_view_totals ORDER BY views DESC, article_id DESC LIMIT ?',
} as const;

/** Articles written per transaction, and rows taken out of the window per transaction. */
const idsPerTransaction = 100;
const rowsPerExpiry = 50;
/** A read that finds the file busy (a checkpoint) is tried again on the next turns, this many times. */
const readAttempts = 5;

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_BUSY_SNAPSHOT';
}

interface LeavingRow {
  article_id: string;
  minute: number;
  views: number;
}

/**
 * Creates or upgrades the views file: a file written before running totals gets them, and
 * loses the rows it had (they may count ids that are no article; most read starts its hour
 * again). Run where waiting is harmless (the primary's start-up check, or on first open).
 */
export function prepareViewsFile(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const hasTotals = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'article_view_totals'").get() !== undefined;
  if (hasTotals) return;
  db.transaction(() => {
    db.exec(schema);
    db.exec('DELETE FROM article_views');
  }).immediate();
}

/** The views file's connection and the statements every worker runs on it. */
function openViewsFile(path: string) {
  const db = new Database(path);
  try {
    // Only opening may wait: another worker may be creating the same file right now.
    db.pragma('busy_timeout = 2000');
    prepareViewsFile(db);
    db.pragma('busy_timeout = 0');
  } catch (error) {
    db.close();
    throw error;
  }
  const addMinute = db.prepare<[string, number, number]>(viewQueries.addMinute);
  const addTotal = db.prepare<[string, number]>(viewQueries.addTotal);
  const leaving = db.prepare<[number, number], LeavingRow>(viewQueries.leaving);
  const subtract = db.prepare<[number, string]>(viewQueries.subtract);
  const dropMinute = db.prepare<[string, number]>(viewQueries.dropMinute);
  const dropTotal = db.prepare<[string]>(viewQueries.dropTotal);
  const ranked = db.prepare<[number], string>(viewQueries.ranked).pluck();
  const add = db.transaction((minute: number, entries: readonly [string, number][]) => {
    for (const [id, views] of entries) {
      addMinute.run(id, minute, views);
      addTotal.run(id, views);
    }
  });
  const expireSome = db.transaction((before: number): number => {
    const rows = leaving.all(before, rowsPerExpiry);
    for (const row of rows) {
      subtract.run(row.views, row.article_id);
      dropMinute.run(row.article_id, row.minute);
      dropTotal.run(row.article_id);
    }
    return rows.length;
  });
  return { db, add, expireSome, ranked };
}

/** Opened on first use: a one-shot tool that never counts or ranks never creates the file. */
export function openSqliteViews(path: string): ViewsStore {
  let opened: ReturnType<typeof openViewsFile> | null = null;
  const views = () => (opened ??= openViewsFile(path));

  return {
    async record(minute, counts) {
      const unwritten = new Map<string, number>();
      let first = true;
      for (const entries of chunks(counts, idsPerTransaction)) {
        if (!first) await nextTurn();
        first = false;
        const valid = entries.filter(([, n]) => n > 0);
        try {
          views().add.immediate(minute, valid);
        } catch (error) {
          if (!isBusy(error)) log.warn('writing article views failed; kept for the next flush', describeError(error));
          for (const [id, n] of valid) unwritten.set(id, n);
        }
      }
      return unwritten;
    },

    async expire(nowMinute) {
      const before = windowStart(nowMinute);
      for (;;) {
        let taken: number;
        try {
          taken = views().expireSome.immediate(before);
        } catch (error) {
          // Another worker is writing: it or the next flush takes the old minutes out.
          if (isBusy(error)) return;
          throw error;
        }
        if (taken < rowsPerExpiry) return;
        await nextTurn();
      }
    },

    async ranked(limit) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return views().ranked.all(limit);
        } catch (error) {
          if (!isBusy(error) || attempt === readAttempts) throw error;
          await nextTurn();
        }
      }
    },

    close() {
      opened?.db.close();
      opened = null;
    },
  };
}
