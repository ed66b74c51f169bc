import postgres from 'postgres';
import type { Article, Headline, Teaser } from '../../src/content';
import { articleIdPattern } from '../../src/sections';
import { log, describeError } from '../log';
import { ChangeHub, everythingChanged, stateOf, type ArticleChange, type ChangeFeed, type ContentChange } from './changes';
import { listenForChanges, withDeadline } from './postgres-listener';
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
import { postgresSignups, postgresViews } from './postgres-views';
import type { ArticleWriter, SignupStore, ViewsStore, WriteOrder, WriteResult } from './source';
import type { ArticleStore } from './store';
import { rankedOrNone } from './views-window';

// The fleet's content store: one PostgreSQL for every worker of every instance. The same
// queries, orderings and cursors as the SQLite store (the schema is migrations/…_articles.sql).
// Data only: the content cache (server/content/cache.ts) keeps the answers, and drops what a
// change touches when the change feed says so; the feed is fed by NOTIFY from the articles
// triggers (any writer) and, at once, by this store's own writes.

export interface PostgresStoreOptions {
  url: string;
  /** Connections in this worker's pool (the LISTEN connection is one more). */
  poolSize: number;
  /** One query, waiting for a connection included. */
  timeoutMs: number;
  /** While the LISTEN connection is lost, "everything changed" this often: kept answers are read again. */
  unlistenedFreshMs: number;
  /** Off for one-shot tools (seed, tests of queries) that need no change notifications. */
  listen?: boolean;
  /** How often the LISTEN connection is pinged (5 s); tests shorten it. */
  listenerHeartbeatMs?: number;
  /** The LISTEN connection's application_name ('kiosk-listener'); tests give each store its own. */
  listenerName?: string;
}

export interface PostgresStats {
  /** Statements sent to the database since the store opened: what a page view costs. */
  queries: number;
  listening: boolean;
}

export interface PostgresStore extends ArticleStore, ArticleWriter {
  upsert(article: Article, order: WriteOrder): Promise<WriteResult>;
  unpublish(id: string, updatedAt: string, order: WriteOrder): Promise<WriteResult>;
  /** Writes all of them in one transaction (the seed); returns how many rows went in. */
  insertMany(articles: readonly Article[]): Promise<number>;
  countAll(): Promise<number>;
  deleteAll(): Promise<number>;
  stats(): PostgresStats;
  /** Article views (server/content/postgres-views.ts). */
  readonly views: ViewsStore;
  /** Newsletter sign-ups (server/content/postgres-views.ts). */
  readonly signups: SignupStore;
  /** Every published article's id, for refusing views of anything else. */
  publishedIds(): Promise<string[]>;
  /** Resolves once every connection is closed. */
  end(): Promise<void>;
  /** Every commit to articles anywhere (NOTIFY), this store's own writes at once. */
  readonly changes: ChangeFeed;
}

const teaserColumns = 'id, section, title, lead, image, published_at';
const articleColumns = `${teaserColumns}, author, updated_at, tags, body, status`;
const joinedTeaserColumns = 'a.id, a.section, a.title, a.lead, a.image, a.published_at';

/** The store's SQL, exported so tests can check every query's plan uses an index. */
export const queries = {
  latest: `SELECT ${teaserColumns} FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT $1`,
  latestNextPage: `SELECT ${teaserColumns} FROM articles WHERE status = 'published' AND id < $1 ORDER BY id DESC LIMIT $2`,
  sectionFirstPage: `SELECT ${teaserColumns} FROM articles
    WHERE status = 'published' AND section = $1 ORDER BY id DESC LIMIT $2`,
  sectionNextPage: `SELECT ${teaserColumns} FROM articles
    WHERE status = 'published' AND section = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
  publishedArticle: `SELECT ${articleColumns} FROM articles WHERE id = $1 AND status = 'published'`,
  anyArticle: `SELECT ${articleColumns} FROM articles WHERE id = $1`,
  countPublished: `SELECT count(*)::int AS n FROM articles WHERE status = 'published'`,
  countAll: 'SELECT count(*)::int AS n FROM articles',
  tagFirstPage: `SELECT ${joinedTeaserColumns} FROM article_tags t JOIN articles a ON a.id = t.article_id
    WHERE t.tag = $1 AND a.status = 'published' ORDER BY t.article_id DESC LIMIT $2`,
  tagNextPage: `SELECT ${joinedTeaserColumns} FROM article_tags t JOIN articles a ON a.id = t.article_id
    WHERE t.tag = $1 AND t.article_id < $2 AND a.status = 'published' ORDER BY t.article_id DESC LIMIT $3`,
  // Several lists' newest in one statement: per list, one of three index walks (the others
  // are cut off by their kind), told apart by n.
  newestOfLists: `SELECT l.n::int AS n, t.* FROM unnest(string_to_array($1, ','), string_to_array($2, ',')) WITH ORDINALITY AS l(kind, name, n)
    CROSS JOIN LATERAL (
      (SELECT ${teaserColumns} FROM articles WHERE l.kind = 'all' AND status = 'published' ORDER BY id DESC LIMIT $3)
      UNION ALL
      (SELECT ${teaserColumns} FROM articles WHERE l.kind = 'section' AND status = 'published' AND section = l.name ORDER BY id DESC LIMIT $3)
      UNION ALL
      (SELECT ${joinedTeaserColumns} FROM article_tags tg JOIN articles a ON a.id = tg.article_id
        WHERE l.kind = 'tag' AND tg.tag = l.name AND a.status = 'published' ORDER BY tg.article_id DESC LIMIT $3)
    ) AS t`,
  publishedHeadlines: `SELECT id, section, title, published_at FROM articles WHERE status = 'published' AND id = ANY(string_to_array($1, ','))`,
  trendingTags: `SELECT t.tag FROM (SELECT id FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT $1) AS r
    JOIN article_tags t ON t.article_id = r.id GROUP BY t.tag ORDER BY count(*) DESC, t.tag LIMIT $2`,
  /** The oldest of the newest `window` (OFFSET window - 1): a change older than it cannot move the trending tags. */
  trendingOldest: `SELECT id FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT 1 OFFSET $1`,
  publishedIds: `SELECT id FROM articles WHERE status = 'published'`,
} as const;

const insertSql = `INSERT INTO articles (${articleColumns}, modified_at, previews_revoked_before)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING`;
const replaceSql = `UPDATE articles SET section = $2, title = $3, lead = $4, image = $5, published_at = $6, author = $7,
    updated_at = $8, tags = $9, body = $10, status = $11, modified_at = $12, previews_revoked_before = $13
  WHERE id = $1`;
const unpublishSql = "UPDATE articles SET status = 'draft', updated_at = $1, modified_at = $2, previews_revoked_before = $3 WHERE id = $4";
// Read in the writer's transaction, locked (FOR UPDATE), so the write is decided on what is
// stored and a second writer of the same article waits for the first to commit, then decides on
// what it wrote; the change it reports says what the article was. Rows written before ordered
// pushes have no modified_at: their updated_at stands in. An insert racing another of a new id
// finds the other's row instead (ON CONFLICT DO NOTHING) and decides again on it.
const storedRowSql = `SELECT ${teaserColumns}, author, updated_at, tags::text AS tags, body, status,
    coalesce(modified_at, updated_at) AS modified_at, previews_revoked_before
  FROM articles WHERE id = $1 FOR UPDATE`;
const revokedBeforeSql = 'SELECT previews_revoked_before FROM articles WHERE id = $1';
const rowColumns = ['id', 'section', 'title', 'lead', 'image', 'published_at', 'author', 'updated_at', 'tags', 'body', 'status'] as const;
const storedColumns = [...rowColumns, 'modified_at', 'previews_revoked_before'] as const;
const dropTagsSql = 'DELETE FROM article_tags WHERE article_id = $1';
const addTagsSql = `INSERT INTO article_tags (tag, article_id) SELECT tag, $2 FROM unnest(string_to_array($1, ',')) AS tag WHERE $1 <> ''`;
/** A sign-up waits at most this long for the database (a lock held, the pool busy): then the reader is asked to try again. */
const signupDeadlineMs = 800;

/** Rows for these ids, in the order of the ids; ids without a row are left out. */
function inOrder<R extends { id: string }>(ids: readonly string[], rows: readonly R[]): R[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The database itself is in trouble (unreachable, timed out, shutting down, out of connections),
 * as opposed to one statement failing: stop asking it for a moment.
 */
function isOutage(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return /^(08|53|57|58)/.test(code);
}

export function openPostgresStore(options: PostgresStoreOptions): PostgresStore {
  const timeoutS = Math.max(1, Math.ceil(options.timeoutMs / 1000));
  const sql = postgres(options.url, {
    max: options.poolSize,
    idle_timeout: 60,
    connect_timeout: timeoutS,
    // postgres.js waits up to 20 s between reconnects after repeated failures; a worker must
    // be back within moments of the database's return.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    prepare: true,
    fetch_types: false,
    onnotice: () => undefined,
    // JSON columns stay the text that was written: the shared row mapping parses it, as for SQLite.
    types: { json: { to: 114, from: [114], serialize: (value: string) => value, parse: (value: string) => value } },
    connection: { application_name: 'kiosk', statement_timeout: options.timeoutMs },
  });
  let queryCount = 0;
  const hub = new ChangeHub();
  const changed = (change: ContentChange) => hub.emit(change);
  const listener =
    options.listen === false
      ? null
      : listenForChanges({
          url: options.url,
          timeoutMs: options.timeoutMs,
          heartbeatMs: options.listenerHeartbeatMs,
          applicationName: options.listenerName,
          onChange: changed,
        });
  // Without notifications nothing says when content changes: while LISTEN is not in force
  // (starting, or reconnecting after a loss) everything changes every unlistenedFreshMs, so
  // kept answers and the page cache are at most that much older than a change made meanwhile.
  const unlistenedTimer =
    listener === null ? undefined : setInterval(() => (listener.listening ? undefined : changed(everythingChanged)), options.unlistenedFreshMs);
  unlistenedTimer?.unref();

  function run<T extends object[]>(text: string, params: (string | number)[]): Promise<T> {
    queryCount += 1;
    return withDeadline(sql.unsafe<T>(text, params as never[], { prepare: true }) as unknown as Promise<T> & { cancel(): void }, options.timeoutMs);
  }

  async function end(): Promise<void> {
    clearInterval(unlistenedTimer);
    await Promise.all([listener?.close(), sql.end({ timeout: 1 })]);
  }

  async function teaserRows(list: Parameters<PostgresStore['teasers']>[0], limit: number, before: string | undefined): Promise<TeaserRow[]> {
    if (list === 'all') return before === undefined ? run(queries.latest, [limit]) : run(queries.latestNextPage, [before, limit]);
    if ('section' in list)
      return before === undefined ? run(queries.sectionFirstPage, [list.section, limit]) : run(queries.sectionNextPage, [list.section, before, limit]);
    return before === undefined ? run(queries.tagFirstPage, [list.tag, limit]) : run(queries.tagNextPage, [list.tag, before, limit]);
  }

  const views = postgresViews(sql, { timeoutMs: options.timeoutMs, onQuery: () => (queryCount += 1) });
  const signups = postgresSignups(sql, { deadlineMs: signupDeadlineMs, onQuery: () => (queryCount += 1) });

  /** The ranking as published headlines; articles unpublished since they were read are left out. */
  async function readMostRead(): Promise<Headline[]> {
    const ids = await rankedOrNone(views);
    if (ids.length === 0) return [];
    return inOrder(ids, await run<HeadlineRow[]>(queries.publishedHeadlines, [ids.join(',')])).map(toHeadline);
  }

  async function storedBefore(tx: postgres.TransactionSql, id: string): Promise<StoredRow | null> {
    queryCount += 1;
    const [row] = await tx.unsafe<StoredRow[]>(storedRowSql, [id]);
    return row ?? null;
  }

  async function replace(tx: postgres.TransactionSql, row: StoredRow) {
    queryCount += 1;
    await tx.unsafe(
      replaceSql,
      storedColumns.map((c) => row[c]),
    );
  }

  async function writeTags(tx: postgres.TransactionSql, article: Article) {
    queryCount += 2;
    await tx.unsafe(dropTagsSql, [article.id]);
    await tx.unsafe(addTagsSql, [article.tags.join(','), article.id]);
  }

  const store: PostgresStore = {
    kind: 'rows',
    name: 'content database',
    isOutage,

    async teasers(list, limit, before): Promise<Teaser[]> {
      return (await teaserRows(list, limit, before)).map(toTeaser);
    },

    async newest(lists, limit): Promise<Teaser[][]> {
      if (lists.length === 0) return [];
      const kinds = lists.map((list) => (list === 'all' ? 'all' : 'section' in list ? 'section' : 'tag'));
      const names = lists.map((list) => (list === 'all' ? '' : 'section' in list ? list.section : list.tag));
      return byList(await run<(TeaserRow & { n: number })[]>(queries.newestOfLists, [kinds.join(','), names.join(','), limit]), lists.length);
    },

    async article(id): Promise<Article | null> {
      if (!articleIdPattern.test(id)) return null;
      const [row] = await run<ArticleRow[]>(queries.publishedArticle, [id]);
      return row ? toArticle(row) : null;
    },

    async articleAnyStatus(id): Promise<Article | null> {
      if (!articleIdPattern.test(id)) return null;
      const [row] = await run<ArticleRow[]>(queries.anyArticle, [id]);
      return row ? toArticle(row) : null;
    },

    async previewsRevokedBefore(id): Promise<string | null> {
      if (!articleIdPattern.test(id)) return null;
      const [row] = await run<{ previews_revoked_before: string | null }[]>(revokedBeforeSql, [id]);
      return row?.previews_revoked_before ?? null;
    },

    async trendingTags(window, size) {
      const [tags, oldest] = await Promise.all([
        run<{ tag: string }[]>(queries.trendingTags, [window, size]),
        run<{ id: string }[]>(queries.trendingOldest, [window - 1]),
      ]);
      return { tags: tags.map((r) => r.tag), oldestId: oldest[0]?.id ?? null };
    },

    async mostRead(limit): Promise<Headline[]> {
      return (await readMostRead()).slice(0, limit);
    },

    views,
    signups,

    async publishedIds(): Promise<string[]> {
      return (await run<{ id: string }[]>(queries.publishedIds, [])).map((r) => r.id);
    },

    async count(): Promise<number> {
      const [row] = await run<{ n: number }[]>(queries.countPublished, []);
      return row?.n ?? 0;
    },

    async countAll(): Promise<number> {
      const [row] = await run<{ n: number }[]>(queries.countAll, []);
      return row?.n ?? 0;
    },

    async upsert(article, order) {
      const { before, decision } = await sql.begin(async (tx) => {
        let stored = await storedBefore(tx, article.id);
        let decided = decideUpsert(stored, article, order);
        if (decided.write !== null && stored === null) {
          queryCount += 1;
          const row = decided.write;
          const inserted = await tx.unsafe(
            insertSql,
            storedColumns.map((c) => row[c]),
          );
          // Another writer inserted the same new id first (nothing was there to lock): decide
          // again on what it committed, as if this push had come second.
          if (inserted.count === 0) {
            stored = await storedBefore(tx, article.id);
            decided = decideUpsert(stored, article, order);
            if (decided.write !== null) await replace(tx, decided.write);
          }
        } else if (decided.write !== null) await replace(tx, decided.write);
        if (decided.write !== null) await writeTags(tx, article);
        return { before: stored, decision: decided };
      });
      // This worker sees its own write at once; the others on the NOTIFY the trigger sends.
      if (decision.write !== null) {
        const was = before === null ? null : stateOf(before.section, before.tags, before.status);
        changed({ kind: 'article', id: article.id, now: { section: article.section, tags: article.tags, status: article.status }, was });
      }
      return decision.result;
    },

    async unpublish(id, updatedAt, order) {
      const { before, decision } = await sql.begin(async (tx) => {
        const stored = await storedBefore(tx, id);
        const decided = decideUnpublish(stored, updatedAt, order);
        if (decided.write !== null) {
          queryCount += 1;
          await tx.unsafe(unpublishSql, [updatedAt, order.modifiedAt, decided.write.previewsRevokedBefore, id]);
        }
        return { before: stored, decision: decided };
      });
      if (decision.write !== null && before !== null) {
        const was = stateOf(before.section, before.tags, before.status);
        const change: ArticleChange = { kind: 'article', id, now: was === null ? null : { ...was, status: 'draft' }, was };
        changed(change);
      }
      return decision.result;
    },

    async insertMany(articles) {
      if (articles.length === 0) return 0;
      // Seeded rows are ordered by their updated time, as if the CMS had pushed them then.
      const rows = articles.map((a) => storedRow(a, a.updatedAt, null));
      const tagRows = articles.flatMap((a) => a.tags.map((tag) => ({ tag, article_id: a.id })));
      await sql.begin(async (tx) => {
        queryCount += 2;
        await tx`INSERT INTO articles ${tx(rows, ...storedColumns)}`;
        if (tagRows.length > 0) await tx`INSERT INTO article_tags ${tx(tagRows, 'tag', 'article_id')}`;
      });
      changed(everythingChanged);
      return rows.length;
    },

    async deleteAll() {
      const result = await sql.begin((tx) => {
        queryCount += 1;
        return tx.unsafe('DELETE FROM articles');
      });
      changed(everythingChanged);
      return result.count;
    },

    changes: hub,

    stats: () => ({ queries: queryCount, listening: listener?.listening ?? false }),

    close: () => end().catch((error: unknown) => log.error('closing the content database failed', describeError(error))),

    end,
  };
  return store;
}
