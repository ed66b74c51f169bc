import Database from 'better-sqlite3';
import type { Article } from '../../src/content';
import { decideUnpublish, decideUpsert, storedRow, type StoredRow } from './rows';
import type { ChangeFeed } from './changes';
import { changeLogRows, SqliteChangeFeed } from './sqlite-changes';
import type { ArticleWriter, SignupStore, ViewsStore, WriteOrder, WriteResult } from './source';
import { openSqliteSignups, signupsPathFor } from './sqlite-signups';
import { openSqliteViews, viewsPathFor } from './sqlite-views';
import { sqliteQueries, storedColumns, replaceParams, writeStatements, type Query } from './sql-queries';
import { sqlReads } from './sql-reads';
import type { ArticleStore } from './store';

/** The embedded store: data only (the content cache keeps answers), read and written synchronously where it can. */
export interface SqliteStore extends ArticleStore, ArticleWriter {
  readonly path: string;
  /** Writes all of them in one transaction; returns how many rows went in. */
  insertMany(articles: Iterable<Article>): number;
  /** Every row, drafts included: the seed must not write over anybody's work. */
  countAll(): number;
  /** Published rows only, synchronously: the start-up check runs before anything is async. */
  countPublished(): number;
  /** Removes every article, drafts included; returns how many went. */
  deleteAll(): number;
  /** Creates or replaces one article (the CMS's push), unless the stored version is newer. */
  upsert(article: Article, order: WriteOrder): WriteResult;
  /** Takes a published article off the site (it stays as a draft, for preview) and revokes its preview links. */
  unpublish(id: string, updatedAt: string, order: WriteOrder): WriteResult;
  /** Article views, in a file of their own beside the content (server/content/sqlite-views.ts). */
  readonly views: ViewsStore;
  /** Newsletter sign-ups, in another (server/content/sqlite-signups.ts). */
  readonly signups: SignupStore;
  /** Every published article's id, for refusing views of anything else. */
  publishedIds(): Promise<string[]>;
  /** Every article written through any connection to this file, this one's own writes included. */
  readonly changes: ChangeFeed;
  close(): void;
}

// Ids are 18 digits (publish minute + serial), so comparing them as text is comparing
// them by publish time: "newest first" is `ORDER BY id DESC` and a cursor is `id < ?`.
const schema = `
  CREATE TABLE IF NOT EXISTS articles (
    id           TEXT PRIMARY KEY CHECK (length(id) = 18 AND id NOT GLOB '*[^0-9]*'),
    section      TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('published', 'draft')),
    title        TEXT NOT NULL,
    lead         TEXT NOT NULL,
    author       TEXT NOT NULL,
    image        TEXT NOT NULL,
    published_at TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    body         TEXT NOT NULL,
    tags         TEXT NOT NULL DEFAULT '[]',
    modified_at  TEXT,
    previews_revoked_before TEXT
  );
  CREATE INDEX IF NOT EXISTS articles_by_section ON articles (status, section, id DESC);
  CREATE INDEX IF NOT EXISTS articles_by_time ON articles (status, id DESC);
`;

// One row per tag an article carries, written with the article: a tag's page is a walk of
// its (tag, id) range newest first, like a section's on articles_by_section. The queries say
// CROSS JOIN, which fixes SQLite's join order: without statistics it would rather walk every
// published article and look each one's tags up.
const tagSchema = `
  CREATE TABLE IF NOT EXISTS article_tags (
    tag        TEXT NOT NULL,
    article_id TEXT NOT NULL,
    PRIMARY KEY (tag, article_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS article_tags_by_article ON article_tags (article_id);
`;

// Every change to an article, written by triggers in the writer's own transaction (so no
// writer can forget, an operator's sqlite3 shell included): what the article was and is, for
// the readers' change feeds (server/content/changes.ts). Readers notice a commit by
// data_version and read the rows after the last one they saw. Writers keep the newest
// changeLogRows; a reader further behind than that hears "everything changed".
const changeLogSchema = `
  CREATE TABLE IF NOT EXISTS article_changes (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    article_id  TEXT NOT NULL,
    section     TEXT,
    tags        TEXT,
    status      TEXT,
    was_section TEXT,
    was_tags    TEXT,
    was_status  TEXT
  );
  CREATE TRIGGER IF NOT EXISTS articles_inserted AFTER INSERT ON articles BEGIN
    INSERT INTO article_changes (article_id, section, tags, status) VALUES (new.id, new.section, new.tags, new.status);
  END;
  CREATE TRIGGER IF NOT EXISTS articles_updated AFTER UPDATE ON articles WHEN new.id = old.id BEGIN
    INSERT INTO article_changes (article_id, section, tags, status, was_section, was_tags, was_status)
      VALUES (new.id, new.section, new.tags, new.status, old.section, old.tags, old.status);
  END;
  CREATE TRIGGER IF NOT EXISTS articles_renumbered AFTER UPDATE ON articles WHEN new.id <> old.id BEGIN
    INSERT INTO article_changes (article_id, was_section, was_tags, was_status) VALUES (old.id, old.section, old.tags, old.status);
    INSERT INTO article_changes (article_id, section, tags, status) VALUES (new.id, new.section, new.tags, new.status);
  END;
  CREATE TRIGGER IF NOT EXISTS articles_deleted AFTER DELETE ON articles BEGIN
    INSERT INTO article_changes (article_id, was_section, was_tags, was_status) VALUES (old.id, old.section, old.tags, old.status);
  END;
`;

export { changeLogRows } from './sqlite-changes';

/** The store's reads (server/content/sql-queries.ts, shared with PostgreSQL), exported so tests can check every query's plan uses an index. */
export const queries = sqliteQueries;
export { newestOfListsSql } from './sql-queries';

interface CountRow {
  n: number;
}

export function openSqliteStore(path: string, options: { readonly?: boolean; viewsPath?: string; signupsPath?: string } = {}): SqliteStore {
  const readonly = options.readonly ?? false;
  const db = readonly ? new Database(path, { readonly, fileMustExist: true }) : new Database(path);
  try {
    if (readonly) {
      // A worker's reads: SQLite's own 2 MB page cache, not better-sqlite3's 16 MB, which a pass
      // over the archive fills and keeps resident in every worker while the content cache holds
      // the answers anyway (docs/operations.md, "Where a worker's memory goes").
      db.pragma('cache_size = -2000');
      requireSchema(db, path);
    } else {
      // WAL lets server workers keep reading while the seed (or an editor) writes.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // Several workers may take a CMS push at once; wait for the lock rather than fail.
      db.pragma('busy_timeout = 2000');
      db.exec(schema);
      addTags(db);
      addOrdering(db);
      db.exec(changeLogSchema);
    }
    return createStore(db, path, options.viewsPath ?? viewsPathFor(path), options.signupsPath ?? signupsPathFor(path));
  } catch (error) {
    db.close();
    throw error;
  }
}

function requireSchema(db: Database.Database, path: string): void {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'articles'").get();
  if (table === undefined) {
    throw new Error(`content store ${path} has no articles table; run \`npm run seed\` first`);
  }
  if (!hasTags(db) || !hasChangeLog(db) || !hasOrdering(db)) {
    throw new Error(`content store ${path} predates tags or the change log, or ordered pushes; open it once read-write (\`npm run seed\` does) to add them`);
  }
}

/**
 * Adds tags and the change log to a store written before them, once, before the workers open it
 * read-only (the primary's start-up check calls it). False when there was nothing to do or the
 * file cannot be written (a read-only mount): the workers then say what is missing.
 */
export function upgradeSqliteStore(path: string): boolean {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch {
    return false;
  }
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'articles'").get();
    if (table === undefined || (hasTags(db) && hasChangeLog(db) && hasOrdering(db))) return false;
    db.pragma('busy_timeout = 2000');
    db.transaction(() => {
      addTags(db);
      addOrdering(db);
      db.exec(changeLogSchema);
    })();
    return true;
  } catch {
    return false;
  } finally {
    db.close();
  }
}

function hasTags(db: Database.Database): boolean {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(articles)').all();
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'article_tags'").get();
  return columns.some((c) => c.name === 'tags') && table !== undefined;
}

function hasChangeLog(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'articles_deleted'").get() !== undefined;
}

/** A store written before tags gets the column and the table (its articles carry no tags). */
function addTags(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(articles)').all();
  if (!columns.some((c) => c.name === 'tags')) db.exec("ALTER TABLE articles ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'");
  db.exec(tagSchema);
}

/**
 * A store written before ordered pushes gets their columns. Its rows keep modified_at NULL, read
 * as their updated_at (coalesce), so no statement rewrites every row (and the change log) here.
 */
function addOrdering(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(articles)').all();
  if (!columns.some((c) => c.name === 'modified_at')) db.exec('ALTER TABLE articles ADD COLUMN modified_at TEXT');
  if (!columns.some((c) => c.name === 'previews_revoked_before')) db.exec('ALTER TABLE articles ADD COLUMN previews_revoked_before TEXT');
}

function hasOrdering(db: Database.Database): boolean {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(articles)').all();
  return columns.some((c) => c.name === 'modified_at') && columns.some((c) => c.name === 'previews_revoked_before');
}

/** Busy or failing underneath (the file, the disk), as opposed to one statement's mistake. */
function isOutage(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|NOMEM|PROTOCOL)/.test(code);
}

function createStore(db: Database.Database, path: string, viewsPath: string, signupsPath: string): SqliteStore {
  // One prepared statement per text (an article page's lists: one per shape of lists), on first use.
  const prepared = new Map<string, Database.Statement<unknown[]>>();
  const statement = (text: string) => prepared.get(text) ?? prepared.set(text, db.prepare(text)).get(text)!;
  const rows = <R>(query: Query): R[] => statement(query.text).all(...query.params) as R[];
  const count = (text: string) => rows<CountRow>({ text, params: [] })[0]?.n ?? 0;
  const views = openSqliteViews(viewsPath);
  const signups = openSqliteSignups(signupsPath);
  const feed = new SqliteChangeFeed(db);
  // The rest needs a connection that may write: prepared on first use, never on a read-only one.
  let writes: ReturnType<typeof prepareWrites> | null = null;
  const writing = () => (writes ??= prepareWrites(db));

  return {
    name: 'content store',
    path,
    isOutage,
    ...sqlReads('sqlite', async (query) => rows(query), views),
    views,
    signups,
    insertMany: (articles) => feed.afterOwnWrite(writing().insertMany(articles)),
    countAll: () => count(queries.countAll),
    countPublished: () => count(queries.countPublished),
    deleteAll: () => feed.afterOwnWrite(writing().deleteAll()),
    // Immediate: the write lock is taken before the stored version is read, so of two workers
    // racing with the same article the second reads what the first wrote (busy_timeout waits).
    upsert: (article, order) => feed.afterOwnWrite(writing().upsert.immediate(article, order)),
    unpublish: (id, updatedAt, order) => feed.afterOwnWrite(writing().unpublish.immediate(id, updatedAt, order)),
    changes: feed,
    close() {
      feed.close();
      views.close();
      signups.close();
      db.close();
    },
  };
}

/** An article's row and its tag rows are written together, in the caller's transaction. */
function prepareWrites(db: Database.Database) {
  const sql = writeStatements('sqlite');
  const insertRow = db.prepare<(string | null)[]>(sql.insert);
  const replaceRow = db.prepare<(string | null)[]>(sql.replace);
  const insert = { run: (row: StoredRow) => insertRow.run(...storedColumns.map((c) => row[c])) };
  const replace = { run: (row: StoredRow) => replaceRow.run(...replaceParams(row)) };
  const stored = db.prepare<[string], StoredRow>(sql.storedRow);
  const dropTags = db.prepare<[string]>(sql.dropTags);
  const addTag = db.prepare<[string, string]>(sql.addTags);
  const unpublish = db.prepare<[string, string, string, string]>(sql.unpublish);
  const pruneChanges = db.prepare<[number]>('DELETE FROM article_changes WHERE seq <= (SELECT max(seq) FROM article_changes) - ?');
  const writeTags = (article: Article) => {
    for (const tag of article.tags) addTag.run(tag, article.id);
  };
  const prune = () => pruneChanges.run(changeLogRows);
  return {
    unpublish: db.transaction((id: string, updatedAt: string, order: WriteOrder): WriteResult => {
      const decision = decideUnpublish(stored.get(id) ?? null, updatedAt, order);
      if (decision.write !== null) {
        unpublish.run(updatedAt, order.modifiedAt, decision.write.previewsRevokedBefore, id);
        prune();
      }
      return decision.result;
    }),
    insertMany: db.transaction((articles: Iterable<Article>) => {
      let inserted = 0;
      for (const article of articles) {
        insert.run(storedRow(article, article.updatedAt, null));
        writeTags(article);
        inserted += 1;
      }
      prune();
      return inserted;
    }),
    upsert: db.transaction((article: Article, order: WriteOrder): WriteResult => {
      const was = stored.get(article.id) ?? null;
      const decision = decideUpsert(was, article, order);
      if (decision.write === null) return decision.result;
      (was === null ? insert : replace).run(decision.write);
      dropTags.run(article.id);
      writeTags(article);
      prune();
      return decision.result;
    }),
    deleteAll: db.transaction(() => {
      db.prepare('DELETE FROM article_tags').run();
      const deleted = db.prepare('DELETE FROM articles').run().changes;
      prune();
      return deleted;
    }),
  };
}

/** A writer that opens its own read-write connection on first use: most workers never write. */
/**
 * A worker's store over the file: a read-only connection for everything it reads, and a writer
 * that opens a read-write connection of its own on the first CMS push the worker takes.
 */
export function openSqliteForWorker(path: string): { store: SqliteStore; writer: ArticleWriter & { close(): void } } {
  return { store: openSqliteStore(path, { readonly: true }), writer: lazyWriter(path) };
}

export function lazyWriter(path: string): ArticleWriter & { close(): void } {
  let store: SqliteStore | null = null;
  const open = () => (store ??= openSqliteStore(path));
  return {
    upsert: (article, order) => open().upsert(article, order),
    unpublish: (id, updatedAt, order) => open().unpublish(id, updatedAt, order),
    close() {
      store?.close();
      store = null;
    },
  };
}
