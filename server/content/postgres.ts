import postgres from 'postgres';
import type { Article } from '../../src/content';
import { log, describeError } from '../log';
import { ChangeHub, everythingChanged, stateOf, type ArticleChange, type ChangeFeed, type ContentChange } from './changes';
import { listenForChanges, withDeadline } from './postgres-listener';
import { decideUnpublish, decideUpsert, storedRow, type StoredRow } from './rows';
import { postgresSignups, postgresViews } from './postgres-views';
import type { ArticleWriter, SignupStore, ViewsStore, WriteOrder, WriteResult } from './source';
import { postgresQueries, replaceParams, storedColumns, writeStatements, type Query } from './sql-queries';
import { sqlReads } from './sql-reads';
import type { ArticleStore } from './store';

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

/** The store's reads (server/content/sql-queries.ts, shared with SQLite), exported so tests can check every query's plan uses an index. */
export const queries = postgresQueries;
const writeSql = writeStatements('postgres');
/** A sign-up waits at most this long for the database (a lock held, the pool busy): then the reader is asked to try again. */
const signupDeadlineMs = 800;

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

  function run<R extends object>({ text, params }: Query): Promise<R[]> {
    queryCount += 1;
    return withDeadline(sql.unsafe<R[]>(text, params as never[], { prepare: true }) as unknown as Promise<R[]> & { cancel(): void }, options.timeoutMs);
  }

  async function end(): Promise<void> {
    clearInterval(unlistenedTimer);
    await Promise.all([listener?.close(), sql.end({ timeout: 1 })]);
  }

  const views = postgresViews(sql, { timeoutMs: options.timeoutMs, onQuery: () => (queryCount += 1) });
  const signups = postgresSignups(sql, { deadlineMs: signupDeadlineMs, onQuery: () => (queryCount += 1) });

  async function storedBefore(tx: postgres.TransactionSql, id: string): Promise<StoredRow | null> {
    queryCount += 1;
    const [row] = await tx.unsafe<StoredRow[]>(writeSql.storedRow, [id]);
    return row ?? null;
  }

  async function replace(tx: postgres.TransactionSql, row: StoredRow) {
    queryCount += 1;
    await tx.unsafe(writeSql.replace, replaceParams(row));
  }

  async function writeTags(tx: postgres.TransactionSql, article: Article) {
    queryCount += 2;
    await tx.unsafe(writeSql.dropTags, [article.id]);
    await tx.unsafe(writeSql.addTags, [article.tags.join(','), article.id]);
  }

  const store: PostgresStore = {
    name: 'content database',
    isOutage,

    ...sqlReads('postgres', run, views),

    views,
    signups,

    async countAll(): Promise<number> {
      const [row] = await run<{ n: number }>({ text: queries.countAll, params: [] });
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
            writeSql.insert,
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
          await tx.unsafe(writeSql.unpublish, [updatedAt, order.modifiedAt, decided.write.previewsRevokedBefore, id]);
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
