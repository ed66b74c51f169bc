import postgres from 'postgres';
import { log, describeError } from '../log';
import type { ChangeFeed } from './changes';
import { postgresFeed } from './postgres-feed';
import { withDeadline } from './postgres-listener';
import { postgresSignups, postgresViews } from './postgres-views';
import { postgresWrites, type PostgresWrites } from './postgres-writes';
import type { SignupStore, ViewsStore } from './source';
import { postgresQueries, type Query } from './sql-queries';
import { sqlReads } from './sql-reads';
import type { ArticleStore } from './store';

// The fleet's content store: one PostgreSQL for every worker of every instance. The same
// queries, orderings and cursors as the SQLite store (the schema is migrations/…_articles.sql).
// Data only: the content cache (server/content/cache.ts) keeps the answers; the store's change
// feed (postgres-feed.ts) tells it what each commit changed, once.

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

export interface PostgresStore extends ArticleStore, PostgresWrites {
  countAll(): Promise<number>;
  stats(): PostgresStats;
  /** Article views (server/content/postgres-views.ts). */
  readonly views: ViewsStore;
  /** Newsletter sign-ups (server/content/postgres-views.ts). */
  readonly signups: SignupStore;
  /** Every published article's id, for refusing views of anything else. */
  publishedIds(): Promise<string[]>;
  /** Resolves once every connection is closed. */
  end(): Promise<void>;
  /** Every commit to articles anywhere, each told once (postgres-feed.ts). */
  readonly changes: ChangeFeed;
}

/** The store's reads (server/content/sql-queries.ts, shared with SQLite), exported so tests can check every query's plan uses an index. */
export const queries = postgresQueries;
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

/** The worker's pool. */
function connect(options: PostgresStoreOptions): postgres.Sql {
  return postgres(options.url, {
    max: options.poolSize,
    idle_timeout: 60,
    connect_timeout: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
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
}

export function openPostgresStore(options: PostgresStoreOptions): PostgresStore {
  const sql = connect(options);
  const feed = postgresFeed(options);
  let queryCount = 0;
  const counted = (statements: number) => (queryCount += statements);

  function run<R extends object>({ text, params }: Query): Promise<R[]> {
    counted(1);
    return withDeadline(sql.unsafe<R[]>(text, params as never[], { prepare: true }) as unknown as Promise<R[]> & { cancel(): void }, options.timeoutMs);
  }

  async function end(): Promise<void> {
    await Promise.all([feed.close(), sql.end({ timeout: 1 })]);
  }

  const views = postgresViews(sql, { timeoutMs: options.timeoutMs, onQuery: () => counted(1) });
  const signups = postgresSignups(sql, { deadlineMs: signupDeadlineMs, onQuery: () => counted(1) });
  return {
    name: 'content database',
    isOutage,
    ...sqlReads('postgres', run, views),
    ...postgresWrites(sql, counted, feed),
    views,
    signups,
    async countAll(): Promise<number> {
      const [row] = await run<{ n: number }>({ text: queries.countAll, params: [] });
      return row?.n ?? 0;
    },
    changes: feed.hub,
    stats: () => ({ queries: queryCount, listening: feed.listening() }),
    close: () => end().catch((error: unknown) => log.error('closing the content database failed', describeError(error))),
    end,
  };
}
