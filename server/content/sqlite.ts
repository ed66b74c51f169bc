import Database from 'better-sqlite3';
import type { Article, Headline, Teaser } from '../../src/content';
import {
  byList,
  decideUnpublish,
  decideUpsert,
  storedRow,
  toArticle,
  toHeadline,
  toTeaser,
  type ArticleRow,
  type HeadlineRow,
  type StoredRow,
  type TeaserRow,
} from './rows';
import { describeError, log } from '../log';
import { ChangeHub, everythingChanged, stateOf, type ChangeFeed, type ContentChange } from './changes';
import type { ArticleWriter, SignupStore, ViewsStore, WriteOrder, WriteResult } from './source';
import { openSqliteSignups, signupsPathFor } from './sqlite-signups';
import { openSqliteViews, viewsPathFor } from './sqlite-views';
import { rankedOrNone } from './views-window';
import type { ArticleList, ArticleStore } from './store';

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

interface ChangeRow {
  seq: number;
  article_id: string;
  section: string | null;
  tags: string | null;
  status: string | null;
  was_section: string | null;
  was_tags: string | null;
  was_status: string | null;
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

/** Changes kept in the log; a reader that misses more than this between two looks starts afresh. */
export const changeLogRows = 1_000;
/** How often a reader with subscribers looks at the log when no read asks it to (visibility within 1 s). */
const changeLogPollMs = 250;

// Teaser lists never read the body: it is most of the row and no list shows it.
const teaserColumns = 'id, section, title, lead, image, published_at';
const articleColumns = `${teaserColumns}, author, updated_at, tags, body, status`;
const joinedTeaserColumns = 'a.id, a.section, a.title, a.lead, a.image, a.published_at';

/** The store's SQL, exported so tests can check every query's plan uses an index. */
export const queries = {
  latest: `SELECT ${teaserColumns} FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT ?`,
  latestNextPage: `SELECT ${teaserColumns} FROM articles WHERE status = 'published' AND id < ? ORDER BY id DESC LIMIT ?`,
  sectionFirstPage: `SELECT ${teaserColumns} FROM articles
    WHERE status = 'published' AND section = ? ORDER BY id DESC LIMIT ?`,
  sectionNextPage: `SELECT ${teaserColumns} FROM articles
    WHERE status = 'published' AND section = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  publishedArticle: `SELECT ${articleColumns} FROM articles WHERE id = ? AND status = 'published'`,
  anyArticle: `SELECT ${articleColumns} FROM articles WHERE id = ?`,
  countPublished: `SELECT count(*) AS n FROM articles WHERE status = 'published'`,
  countAll: 'SELECT count(*) AS n FROM articles',
  tagFirstPage: `SELECT ${joinedTeaserColumns} FROM article_tags t CROSS JOIN articles a ON a.id = t.article_id
    WHERE t.tag = ? AND a.status = 'published' ORDER BY t.article_id DESC LIMIT ?`,
  tagNextPage: `SELECT ${joinedTeaserColumns} FROM article_tags t CROSS JOIN articles a ON a.id = t.article_id
    WHERE t.tag = ? AND t.article_id < ? AND a.status = 'published' ORDER BY t.article_id DESC LIMIT ?`,
  publishedHeadline: `SELECT id, section, title, published_at FROM articles WHERE id = ? AND status = 'published'`,
  publishedIds: `SELECT id FROM articles WHERE status = 'published'`,
  trendingTags: `SELECT t.tag AS tag, count(*) AS n
    FROM (SELECT id FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT ?) AS r
    JOIN article_tags t ON t.article_id = r.id GROUP BY t.tag ORDER BY n DESC, t.tag LIMIT ?`,
  /** The oldest of the newest `window` (OFFSET window - 1): a change older than it cannot move the trending tags. */
  trendingOldest: `SELECT id FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT 1 OFFSET ?`,
} as const;

/**
 * Several lists' newest in one statement: one part per list, each an index walk as the single
 * list's query is, told apart by `n` (from 1). Exported for the plan test.
 */
export function newestOfListsSql(kinds: readonly ('all' | 'section' | 'tag')[]): string {
  const part = (kind: 'all' | 'section' | 'tag', n: number) => {
    if (kind === 'all') return `SELECT ${n} AS n, * FROM (${queries.latest})`;
    return `SELECT ${n} AS n, * FROM (${kind === 'section' ? queries.sectionFirstPage : queries.tagFirstPage})`;
  };
  return kinds.map((kind, i) => part(kind, i + 1)).join('\n  UNION ALL ');
}

const insertSql = `INSERT INTO articles (${articleColumns}, modified_at, previews_revoked_before)
  VALUES (@id, @section, @title, @lead, @image, @published_at, @author, @updated_at, @tags, @body, @status, @modified_at, @previews_revoked_before)`;

// Rows written before ordered pushes have no modified_at: their updated_at stands in.
const storedRowSql = `SELECT ${articleColumns}, coalesce(modified_at, updated_at) AS modified_at, previews_revoked_before FROM articles WHERE id = ?`;

const replaceSql = `UPDATE articles SET section = @section, title = @title, lead = @lead, image = @image, published_at = @published_at,
    author = @author, updated_at = @updated_at, tags = @tags, body = @body, status = @status,
    modified_at = @modified_at, previews_revoked_before = @previews_revoked_before
  WHERE id = @id`;

interface CountRow {
  n: number;
}

export function openSqliteStore(path: string, options: { readonly?: boolean; viewsPath?: string; signupsPath?: string } = {}): SqliteStore {
  const readonly = options.readonly ?? false;
  const db = readonly ? new Database(path, { readonly, fileMustExist: true }) : new Database(path);
  try {
    if (readonly) {
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
  const latest = db.prepare<[number], TeaserRow>(queries.latest);
  const latestNextPage = db.prepare<[string, number], TeaserRow>(queries.latestNextPage);
  const sectionFirstPage = db.prepare<[string, number], TeaserRow>(queries.sectionFirstPage);
  const sectionNextPage = db.prepare<[string, string, number], TeaserRow>(queries.sectionNextPage);
  const publishedArticle = db.prepare<[string], ArticleRow>(queries.publishedArticle);
  const anyArticle = db.prepare<[string], ArticleRow>(queries.anyArticle);
  const countPublished = db.prepare<[], CountRow>(queries.countPublished);
  const countAll = db.prepare<[], CountRow>(queries.countAll);
  const tagFirstPage = db.prepare<[string, number], TeaserRow>(queries.tagFirstPage);
  const tagNextPage = db.prepare<[string, string, number], TeaserRow>(queries.tagNextPage);
  const publishedHeadline = db.prepare<[string], HeadlineRow>(queries.publishedHeadline);
  const trendingTags = db.prepare<[number, number], string>(queries.trendingTags).pluck();
  const trendingOldest = db.prepare<[number], string>(queries.trendingOldest).pluck();
  const publishedIdList = db.prepare<[], string>(queries.publishedIds).pluck();
  const revokedBefore = db.prepare<[string], string | null>('SELECT previews_revoked_before FROM articles WHERE id = ?').pluck();
  const views = openSqliteViews(viewsPath);
  const signups = openSqliteSignups(signupsPath);
  const feed = changeFeed(db);

  /** The ranking as published headlines; articles unpublished since they were read are left out. */
  async function readMostRead(): Promise<Headline[]> {
    const ids = await rankedOrNone(views);
    return ids.flatMap((viewedId) => publishedHeadline.all(viewedId).map(toHeadline));
  }
  // The rest needs a connection that may write: prepared on first use, never on a read-only one.
  let writes: ReturnType<typeof prepareWrites> | null = null;
  const writing = () => (writes ??= prepareWrites(db));

  // One prepared statement per shape of lists (an article page's: its tags, then its section).
  const newestOfLists = new Map<string, Database.Statement<(string | number)[], TeaserRow & { n: number }>>();
  function newestStatement(lists: readonly ArticleList[]) {
    const kinds = lists.map((list) => (list === 'all' ? 'all' : 'section' in list ? 'section' : 'tag'));
    const shape = kinds.join(',');
    let statement = newestOfLists.get(shape);
    if (statement === undefined) newestOfLists.set(shape, (statement = db.prepare(newestOfListsSql(kinds))));
    return statement;
  }

  function teaserRows(list: Parameters<SqliteStore['teasers']>[0], limit: number, before: string | undefined): TeaserRow[] {
    if (list === 'all') return before === undefined ? latest.all(limit) : latestNextPage.all(before, limit);
    if ('section' in list) return before === undefined ? sectionFirstPage.all(list.section, limit) : sectionNextPage.all(list.section, before, limit);
    return before === undefined ? tagFirstPage.all(list.tag, limit) : tagNextPage.all(list.tag, before, limit);
  }

  return {
    kind: 'rows',
    name: 'content store',
    path,
    isOutage,

    async teasers(list, limit, before): Promise<Teaser[]> {
      return teaserRows(list, limit, before).map(toTeaser);
    },

    async newest(lists, limit): Promise<Teaser[][]> {
      if (lists.length === 0) return [];
      const params = lists.flatMap((list) => (list === 'all' ? [limit] : ['section' in list ? list.section : list.tag, limit]));
      return byList(newestStatement(lists).all(...params), lists.length);
    },

    async article(id): Promise<Article | null> {
      const row = publishedArticle.get(id);
      return row ? toArticle(row) : null;
    },

    async articleAnyStatus(id): Promise<Article | null> {
      const row = anyArticle.get(id);
      return row ? toArticle(row) : null;
    },

    async previewsRevokedBefore(id): Promise<string | null> {
      return revokedBefore.get(id) ?? null;
    },

    async trendingTags(window, size) {
      return { tags: trendingTags.all(window, size), oldestId: trendingOldest.get(window - 1) ?? null };
    },

    async mostRead(limit): Promise<Headline[]> {
      return (await readMostRead()).slice(0, limit);
    },

    views,
    signups,
    publishedIds: async () => publishedIdList.all(),

    async count(): Promise<number> {
      return countPublished.get()?.n ?? 0;
    },

    insertMany: (articles) => feed.afterOwnWrite(writing().insertMany(articles)),
    countAll: () => countAll.get()?.n ?? 0,
    countPublished: () => countPublished.get()?.n ?? 0,
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
  const insert = db.prepare<[StoredRow]>(insertSql);
  const replace = db.prepare<[StoredRow]>(replaceSql);
  const stored = db.prepare<[string], StoredRow>(storedRowSql);
  const dropTags = db.prepare<[string]>('DELETE FROM article_tags WHERE article_id = ?');
  const addTag = db.prepare<[string, string]>('INSERT INTO article_tags (tag, article_id) VALUES (?, ?)');
  const unpublish = db.prepare<[string, string, string, string]>(
    "UPDATE articles SET status = 'draft', updated_at = ?, modified_at = ?, previews_revoked_before = ? WHERE id = ?",
  );
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

/**
 * The change feed of one connection. Another connection's commit moves data_version, which is
 * read at most once per turn of the event loop (every read asks, so the first read after a
 * commit sees it) and, while anyone subscribes, every changeLogPollMs; this connection's own
 * commits do not move it, so its writes read the log themselves.
 */
function changeFeed(db: Database.Database) {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const lastSeq = db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'article_changes'").pluck();
  const since = db.prepare<[number, number], ChangeRow>(
    'SELECT seq, article_id, section, tags, status, was_section, was_tags, was_status FROM article_changes WHERE seq > ? ORDER BY seq LIMIT ?',
  );
  let seenVersion = dataVersion.get();
  let seenSeq = lastSeq.get() ?? 0;
  let lookedThisTurn = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  const hub = new ChangeHub(() => {
    if (lookedThisTurn) return;
    lookedThisTurn = true;
    setImmediate(() => (lookedThisTurn = false));
    safely(look);
  });

  /** A log the reader cannot read must not fail the read that asked: it is read again next time. */
  function safely(work: () => void): void {
    try {
      work();
      failing = false;
    } catch (error) {
      if (!failing) log.warn('the content change log could not be read', describeError(error));
      failing = true;
    }
  }

  /** A row whose columns cannot be read (an operator's hand-made one) cannot be placed: everything. */
  function changeOf(row: ChangeRow): ContentChange {
    try {
      return {
        kind: 'article',
        id: row.article_id,
        now: stateOf(row.section, row.tags, row.status),
        was: stateOf(row.was_section, row.was_tags, row.was_status),
      };
    } catch {
      return everythingChanged;
    }
  }

  function readLog(): void {
    const rows = since.all(seenSeq, changeLogRows + 1);
    if (rows.length === 0) return;
    // A gap means the writers pruned changes this reader never saw.
    const missed = rows[0]!.seq !== seenSeq + 1 || rows.length > changeLogRows;
    seenSeq = missed ? (lastSeq.get() ?? rows.at(-1)!.seq) : rows.at(-1)!.seq;
    if (missed) {
      hub.emit(everythingChanged);
      return;
    }
    for (const row of rows) hub.emit(changeOf(row));
  }

  function look(): void {
    const version = dataVersion.get();
    if (version === seenVersion) return;
    readLog();
    // Only once read: a log that failed to read is read again at the next look.
    seenVersion = version;
  }

  return {
    subscribe(listener: Parameters<ChangeFeed['subscribe']>[0]): () => void {
      if (timer === undefined) {
        timer = setInterval(() => safely(look), changeLogPollMs);
        timer.unref();
      }
      return hub.subscribe(listener);
    },
    poll: () => hub.poll(),
    /** Passes a write's result through, after telling subscribers what it changed. */
    afterOwnWrite<T>(result: T): T {
      safely(readLog);
      return result;
    },
    close(): void {
      clearInterval(timer);
    },
  };
}

/** A writer that opens its own read-write connection on first use: most workers never write. */
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
