import postgres from 'postgres';
import { articleIdPattern, isSectionSlug } from '../../src/sections';
import { describeError, log } from '../log';
import { everythingChanged, type ArticleState, type ContentChange } from './changes';

/**
 * The options of a connection kept for one session of its own (a LISTEN, an advisory lock):
 * never pooled, never idled out or recycled, connected within `timeoutMs`, no type lookups.
 */
export function dedicatedSession(timeoutMs: number) {
  return {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
    fetch_types: false,
    onnotice: () => undefined,
  };
}

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
  return new Listener(options);
}

class Listener implements ContentListener {
  #listening = false;
  #closed = false;
  #attempt = 0;
  #connecting = false;
  #retryTimer: NodeJS.Timeout | undefined;
  // A postgres.js instance of one connection per attempt: one that was ended cannot be used
  // again, and a connection that stopped answering must be let go of for a fresh one.
  #sql: postgres.Sql | null = null;
  readonly #heartbeat: NodeJS.Timeout;

  constructor(private readonly options: ListenerOptions) {
    this.#heartbeat = setInterval(() => this.#ping(), options.heartbeatMs ?? defaultHeartbeatMs);
    this.#heartbeat.unref();
    void this.#connect();
  }

  get listening(): boolean {
    return this.#listening;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#retryTimer);
    const instance = this.#sql;
    this.#sql = null;
    await instance?.end({ timeout: 1 });
  }

  #open(): postgres.Sql {
    const { options } = this;
    // onnotify is postgres.js's hook for every NOTIFY on this connection; its types leave it out.
    const instance: postgres.Sql = postgres(options.url, {
      ...dedicatedSession(options.timeoutMs),
      connection: { application_name: options.applicationName ?? 'kiosk-listener' },
      onnotify(channel: string, payload: string) {
        if (channel === contentChannel) options.onChange(parseNotification(payload));
      },
      onclose: () => {
        if (this.#sql === instance) this.#lost(null);
      },
    } as postgres.Options<Record<string, never>>);
    return instance;
  }

  #drop(): void {
    const instance = this.#sql;
    this.#sql = null;
    void instance?.end({ timeout: 0 }).catch(() => undefined);
  }

  #lost(error: unknown): void {
    if (this.#closed) return;
    this.#drop();
    if (this.#listening) {
      this.#listening = false;
      log.warn('content listener lost; reconnecting', error ? describeError(error) : {});
      this.options.onListening?.(false);
    }
    if (!this.#connecting) this.#schedule();
  }

  #schedule(): void {
    if (this.#closed || this.#retryTimer !== undefined) return;
    const delay = Math.min(maxRetryMs, firstRetryMs * 2 ** this.#attempt) * (0.5 + Math.random() / 2);
    this.#attempt += 1;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      void this.#connect();
    }, delay);
    this.#retryTimer.unref();
  }

  async #connect(): Promise<void> {
    if (this.#closed || this.#listening || this.#connecting) return;
    this.#connecting = true;
    const instance = this.#open();
    this.#sql = instance;
    try {
      await withDeadline(instance.unsafe(`LISTEN ${contentChannel}`), this.options.timeoutMs);
      this.#connecting = false;
      if (this.#closed || this.#sql !== instance) return;
      this.#attempt = 0;
      this.#listening = true;
      this.options.onListening?.(true);
      this.options.onChange(everythingChanged);
    } catch (error) {
      this.#connecting = false;
      this.#lost(error);
    }
  }

  #ping(): void {
    const instance = this.#sql;
    if (!this.#listening || this.#connecting || instance === null) return;
    // The ping asks whether the connection is alive, not whether this worker is busy: a worker
    // at full load must not take its own delay for a lost connection (and, while it listens
    // again, treat everything as changed).
    withDeadline(instance.unsafe('SELECT 1'), this.options.timeoutMs, { readFirst: true }).catch((error: unknown) => {
      if (this.#sql === instance) this.#lost(error);
    });
  }
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
