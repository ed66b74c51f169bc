import Database from 'better-sqlite3';
import type { Article, FrontPage, Headline, SectionPage } from '../../src/content';
import { clampPageSize, latestListSize, sectionPageSize } from '../../src/content';
import { assertCursor } from '../../src/api-paths';
import { isSectionSlug, sections, type SectionSlug } from '../../src/sections';
import { deepFreeze } from './freeze';
import { toArticle, toHeadline, toRow, toTeaser, type ArticleRow, type HeadlineRow, type TeaserRow } from './rows';
import type { ArticleWriter, ContentSource } from './source';

export interface SqliteStore extends ContentSource {
  readonly path: string;
  /** Writes all of them in one transaction; returns how many rows went in. */
  insertMany(articles: Iterable<Article>): number;
  /** Every row, drafts included: the seed must not write over anybody's work. */
  countAll(): number;
  /** Published rows only, synchronously: the start-up check runs before anything is async. */
  countPublished(): number;
  /** Removes every article, drafts included; returns how many went. */
  deleteAll(): number;
  /** Creates or replaces one article (the CMS's push). */
  upsert(article: Article): 'created' | 'updated';
  /** Takes a published article off the site (it stays as a draft, for preview); false if unknown. */
  unpublish(id: string, updatedAt: string): boolean;
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
    body         TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS articles_by_section ON articles (status, section, id DESC);
  CREATE INDEX IF NOT EXISTS articles_by_time ON articles (status, id DESC);
`;

// Teaser lists never read the body: it is most of the row and no list shows it.
const teaserColumns = 'id, section, title, lead, image, published_at';
const articleColumns = `${teaserColumns}, author, updated_at, body, status`;

/** The store's SQL, exported so tests can check every query's plan uses an index. */
export const queries = {
  latest: `SELECT ${teaserColumns} FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT ?`,
  headlines: `SELECT id, section, title, published_at FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT ?`,
  frontPageSection: `SELECT ${teaserColumns} FROM articles
    WHERE status = 'published' AND section = ? AND id <> ? ORDER BY id DESC LIMIT ?`,
  sectionFirstPage: `SELECT ${teaserColumns} FROM articles
    WHERE status = 'published' AND section = ? ORDER BY id DESC LIMIT ?`,
  sectionNextPage: `SELECT ${teaserColumns} FROM articles
    WHERE status = 'published' AND section = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  publishedArticle: `SELECT ${articleColumns} FROM articles WHERE id = ? AND status = 'published'`,
  anyArticle: `SELECT ${articleColumns} FROM articles WHERE id = ?`,
  countPublished: `SELECT count(*) AS n FROM articles WHERE status = 'published'`,
  countAll: 'SELECT count(*) AS n FROM articles',
} as const;

const insertSql = `INSERT INTO articles (${articleColumns})
  VALUES (@id, @section, @title, @lead, @image, @published_at, @author, @updated_at, @body, @status)`;

const upsertSql = `${insertSql}
  ON CONFLICT (id) DO UPDATE SET section = excluded.section, title = excluded.title, lead = excluded.lead,
    image = excluded.image, published_at = excluded.published_at, author = excluded.author,
    updated_at = excluded.updated_at, body = excluded.body, status = excluded.status`;

const frontPageTeasersPerSection = 3;

interface CountRow {
  n: number;
}

export function openSqliteStore(path: string, options: { readonly?: boolean } = {}): SqliteStore {
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
    }
    return createStore(db, path);
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
}

function createStore(db: Database.Database, path: string): SqliteStore {
  const latest = db.prepare<[number], TeaserRow>(queries.latest);
  const headlines = db.prepare<[number], HeadlineRow>(queries.headlines);
  const frontPageSection = db.prepare<[string, string, number], TeaserRow>(queries.frontPageSection);
  const sectionFirstPage = db.prepare<[string, number], TeaserRow>(queries.sectionFirstPage);
  const sectionNextPage = db.prepare<[string, string, number], TeaserRow>(queries.sectionNextPage);
  const publishedArticle = db.prepare<[string], ArticleRow>(queries.publishedArticle);
  const anyArticle = db.prepare<[string], ArticleRow>(queries.anyArticle);
  const countPublished = db.prepare<[], CountRow>(queries.countPublished);
  const countAll = db.prepare<[], CountRow>(queries.countAll);
  const insert = db.prepare<[ArticleRow]>(insertSql);
  const deleteAll = db.prepare('DELETE FROM articles');
  const upsertRow = db.prepare<[ArticleRow]>(upsertSql);
  const exists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM articles WHERE id = ?');
  const unpublishRow = db.prepare<[string, string]>("UPDATE articles SET status = 'draft', updated_at = ? WHERE id = ?");
  const upsert = db.transaction((article: Article): 'created' | 'updated' => {
    const existed = exists.get(article.id) !== undefined;
    upsertRow.run(toRow(article));
    return existed ? 'updated' : 'created';
  });

  // Lists every page shows (the front page, the latest list, a section's first page) are the
  // same for every reader until the content changes, so they are read once per change.
  // SQLite's data_version moves whenever another connection commits; this connection's own
  // writes clear the memo directly.
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const memo = new Map<string, unknown>();
  let ownWrites = 0;
  let memoVersion = -1;
  function remembered<T>(key: string, read: () => T): T {
    const version = dataVersion.get() ?? 0;
    if (version !== memoVersion) {
      memo.clear();
      memoVersion = version;
    }
    let value = memo.get(key) as T | undefined;
    if (value === undefined) {
      // Shared by every request from now on: frozen so no caller can change it for the others.
      value = deepFreeze(read());
      memo.set(key, value);
    }
    return value;
  }

  const insertMany = db.transaction((articles: Iterable<Article>) => {
    let inserted = 0;
    for (const article of articles) {
      insert.run(toRow(article));
      inserted += 1;
    }
    return inserted;
  });

  return {
    path,

    async frontPage(): Promise<FrontPage> {
      return remembered('front', readFrontPage);
    },

    async section(slug, options = {}): Promise<SectionPage | null> {
      const { cursor } = options;
      // The API validates shapes first; this guards against callers that forgot.
      assertCursor(cursor);
      if (!isSectionSlug(slug)) return null;
      const limit = clampPageSize(options.limit, sectionPageSize);
      if (cursor === undefined) return remembered(`section:${slug}:${limit}`, () => readSection(slug, undefined, limit));
      return readSection(slug, cursor, limit);
    },

    async article(id): Promise<Article | null> {
      const row = publishedArticle.get(id);
      return row ? toArticle(row) : null;
    },

    async articleAnyStatus(id): Promise<Article | null> {
      const row = anyArticle.get(id);
      return row ? toArticle(row) : null;
    },

    async latest(limit = latestListSize): Promise<Headline[]> {
      const n = clampPageSize(limit, latestListSize);
      return remembered(`latest:${n}`, () => headlines.all(n).map(toHeadline));
    },

    async count(): Promise<number> {
      return countPublished.get()?.n ?? 0;
    },

    insertMany(articles) {
      memo.clear();
      return insertMany(articles);
    },
    countAll: () => countAll.get()?.n ?? 0,
    countPublished: () => countPublished.get()?.n ?? 0,
    // Another connection's commit moves data_version; this connection's own writes move ownWrites.
    version: () => (dataVersion.get() ?? 0) * 1_000_000 + ownWrites,
    deleteAll() {
      memo.clear();
      return deleteAll.run().changes;
    },
    upsert(article) {
      memo.clear();
      ownWrites += 1;
      return upsert(article);
    },
    unpublish(id, updatedAt) {
      memo.clear();
      ownWrites += 1;
      return unpublishRow.run(updatedAt, id).changes > 0;
    },
    close: () => db.close(),
  };

  function readFrontPage(): FrontPage {
    const [leadRow] = latest.all(1);
    if (leadRow === undefined) {
      throw new Error(`content store ${path} has no published articles; run \`npm run seed\``);
    }
    return {
      lead: toTeaser(leadRow),
      sections: sections.map(({ slug }) => ({
        section: slug,
        teasers: frontPageSection.all(slug, leadRow.id, frontPageTeasersPerSection).map(toTeaser),
      })),
    };
  }

  function readSection(slug: SectionSlug, cursor: string | undefined, limit: number): SectionPage {
    // One row more than the page tells whether there is a next page without a count.
    const rows = cursor === undefined ? sectionFirstPage.all(slug, limit + 1) : sectionNextPage.all(slug, cursor, limit + 1);
    const items = rows.slice(0, limit).map(toTeaser);
    const last = items[items.length - 1];
    return { section: slug, items, nextCursor: rows.length > limit && last ? last.id : null };
  }
}

/** A writer that opens its own read-write connection on first use: most workers never write. */
export function lazyWriter(path: string): { get(): ArticleWriter; close(): void } {
  let store: SqliteStore | null = null;
  return {
    get: () => (store ??= openSqliteStore(path)),
    close() {
      store?.close();
      store = null;
    },
  };
}
