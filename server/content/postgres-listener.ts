import postgres from 'postgres';
import { articleIdPattern, isSectionSlug } from '../../src/sections';
import { describeError, log } from '../log';
import { everythingChanged, type ArticleState, type ContentChange } from './changes';

/** The channel the articles trigger notifies (migrations/…_articles.sql). */
export const contentChannel = 'kiosk_content';

const firstRetryMs = 100;
const maxRetryMs = 5_000;
/** A LISTEN connection that died without a FIN (a lost route) is found by this ping. */
const defaultHeartbeatMs = 5_000;

export interface ContentListener {
  /** True while LISTEN is in force: a change made anywhere reaches onChange within moments. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export interface ListenerOptions {
  url: string;
  /** Connect, LISTEN and each heartbeat; past it the connection counts as lost. */
  timeoutMs: number;
  /**
   * A commit changed content (what changed, from the trigger's payload); "everything" when LISTEN
   * is (re)established, since notifications may have been missed meanwhile.
   */
  onChange(change: ContentChange): void;
  /** How often the connection is pinged; 5 s unless a test wants it sooner. */
  heartbeatMs?: number;
  /** The connection's application_name in pg_stat_activity ('kiosk-listener'): a test names its own to find it. */
  applicationName?: string;
  /** The listener was lost (false) or is back (true). */
  onListening?(listening: boolean): void;
}

/**
 * One connection per worker, outside the pool, that LISTENs for content changes. When it is
 * lost it reconnects with exponential backoff (100 ms doubling to 5 s, jittered), and a
 * heartbeat finds connections that died silently.
 */
export function listenForChanges(options: ListenerOptions): ContentListener {
  const timeoutS = Math.max(1, Math.ceil(options.timeoutMs / 1000));
  let listening = false;
  let closed = false;
  let attempt = 0;
  let connecting = false;
  let retryTimer: NodeJS.Timeout | undefined;

  // A postgres.js instance of one connection per attempt: one that was ended cannot be used
  // again, and a connection that stopped answering must be let go of for a fresh one.
  let sql: postgres.Sql | null = null;

  function open(): postgres.Sql {
    // onnotify is postgres.js's hook for every NOTIFY on this connection; its types leave it out.
    const instance: postgres.Sql = postgres(options.url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      connect_timeout: timeoutS,
      fetch_types: false,
      onnotice: () => undefined,
      connection: { application_name: options.applicationName ?? 'kiosk-listener' },
      onnotify(channel: string, payload: string) {
        if (channel === contentChannel) options.onChange(parseNotification(payload));
      },
      onclose() {
        if (sql === instance) lost(null);
      },
    } as postgres.Options<Record<string, never>>);
    return instance;
  }

  function drop() {
    const instance = sql;
    sql = null;
    void instance?.end({ timeout: 0 }).catch(() => undefined);
  }

  function lost(error: unknown) {
    if (closed) return;
    drop();
    if (listening) {
      listening = false;
      log.warn('content listener lost; reconnecting', error ? describeError(error) : {});
      options.onListening?.(false);
    }
    if (!connecting) schedule();
  }

  function schedule() {
    if (closed || retryTimer !== undefined) return;
    const delay = Math.min(maxRetryMs, firstRetryMs * 2 ** attempt) * (0.5 + Math.random() / 2);
    attempt += 1;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, delay);
    retryTimer.unref();
  }

  async function connect() {
    if (closed || listening || connecting) return;
    connecting = true;
    const instance = open();
    sql = instance;
    try {
      await withDeadline(instance.unsafe(`LISTEN ${contentChannel}`), options.timeoutMs);
      connecting = false;
      if (closed || sql !== instance) return;
      attempt = 0;
      listening = true;
      options.onListening?.(true);
      options.onChange(everythingChanged);
    } catch (error) {
      connecting = false;
      lost(error);
    }
  }

  const heartbeat = setInterval(() => {
    const instance = sql;
    if (!listening || connecting || instance === null) return;
    // The ping asks whether the connection is alive, not whether this worker is busy: a worker
    // at full load must not take its own delay for a lost connection (and, while it listens
    // again, treat everything as changed).
    withDeadline(instance.unsafe('SELECT 1'), options.timeoutMs, { readFirst: true }).catch((error: unknown) => {
      if (sql === instance) lost(error);
    });
  }, options.heartbeatMs ?? defaultHeartbeatMs);
  heartbeat.unref();

  void connect();

  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      listening = false;
      clearInterval(heartbeat);
      clearTimeout(retryTimer);
      const instance = sql;
      sql = null;
      await instance?.end({ timeout: 1 });
    },
  };
}

function stateIn(value: unknown): ArticleState | null | undefined {
  if (value === null) return null;
  const { section, tags, status } = (value ?? {}) as Record<string, unknown>;
  if (typeof section !== 'string' || !isSectionSlug(section) || (status !== 'published' && status !== 'draft')) return undefined;
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) return undefined;
  return { section, tags: tags as string[], status };
}

/**
 * The trigger's payload (migrations/…_article-changes.sql): one article's change as JSON, or
 * '*'. Anything else (an older trigger's empty payload, a row a person wrote by hand that no
 * section knows) cannot be placed precisely, so it means everything.
 */
export function parseNotification(payload: string): ContentChange {
  if (payload === '*' || payload === '') return everythingChanged;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return everythingChanged;
  }
  const { id, now, was } = (parsed ?? {}) as Record<string, unknown>;
  const before = stateIn(was);
  const after = stateIn(now);
  if (typeof id !== 'string' || !articleIdPattern.test(id) || before === undefined || after === undefined) return everythingChanged;
  return { kind: 'article', id, now: after, was: before };
}

export class DatabaseTimeout extends Error {
  override name = 'DatabaseTimeout';
}

/**
 * A query that answers within `ms` or is rejected: a slow database never hangs a request. One
 * still waiting for a connection is taken out of the queue. One already sent is left to the
 * server's statement_timeout (the same deadline, set on every connection): postgres.js cancels
 * a running statement over a new connection and drops the promise of that attempt, whose
 * failure (the database unreachable) would be an unhandled rejection, which ends the worker.
 */
export function withDeadline<T>(
  query: Promise<T> & { cancel?: () => unknown; state?: unknown },
  ms: number,
  options: { readFirst?: boolean } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const expire = () => {
      if (settled) return;
      if (!query.state) query.cancel?.();
      reject(new DatabaseTimeout(`no answer from the database within ${ms} ms`));
    };
    // readFirst: the deadline counts the database's time, not this worker's. Timers run before
    // the loop reads its sockets, so after the loop was held (a long render, a backlog of
    // requests) an answer that came in time would be found late; setImmediate runs after that
    // read, once the answer, if it is there, has been taken.
    const timer = setTimeout(() => (options.readFirst ? setImmediate(expire) : expire()), ms);
    query.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
