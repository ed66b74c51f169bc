import postgres from 'postgres';
import { describeError, log } from '../log';

/** The channel the articles trigger notifies (migrations/…_articles.sql). */
export const contentChannel = 'kiosk_content';

const firstRetryMs = 100;
const maxRetryMs = 5_000;
/** A LISTEN connection that died without a FIN (a lost route) is found by this ping. */
const heartbeatMs = 5_000;

export interface ContentListener {
  /** True while LISTEN is in force: a change made anywhere reaches onChange within moments. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export interface ListenerOptions {
  url: string;
  /** Connect, LISTEN and each heartbeat; past it the connection counts as lost. */
  timeoutMs: number;
  /** A commit changed content; also called when LISTEN is (re)established, since notifications may have been missed. */
  onChange(): void;
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

  // onnotify is postgres.js's hook for every NOTIFY on this connection; its types leave it out.
  const sql = postgres(options.url, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    connect_timeout: timeoutS,
    fetch_types: false,
    onnotice: () => undefined,
    connection: { application_name: 'kiosk-listener' },
    onnotify(channel: string) {
      if (channel === contentChannel) options.onChange();
    },
    onclose() {
      lost(null);
    },
  } as postgres.Options<Record<string, never>>);

  function lost(error: unknown) {
    if (closed) return;
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
    try {
      await withDeadline(sql.unsafe(`LISTEN ${contentChannel}`), options.timeoutMs);
      connecting = false;
      if (closed) return;
      attempt = 0;
      if (!listening) {
        listening = true;
        options.onListening?.(true);
      }
      options.onChange();
    } catch (error) {
      connecting = false;
      lost(error);
    }
  }

  const heartbeat = setInterval(() => {
    if (!listening || connecting) return;
    withDeadline(sql.unsafe('SELECT 1'), options.timeoutMs).catch((error: unknown) => {
      // The connection may still look open: end it, so the next LISTEN gets a new one.
      void sql.end({ timeout: 0 }).catch(() => undefined);
      lost(error);
    });
  }, heartbeatMs);
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
      await sql.end({ timeout: 1 });
    },
  };
}

export class DatabaseTimeout extends Error {
  override name = 'DatabaseTimeout';
}

/** A query that answers within `ms` or is cancelled and rejected: a slow database never hangs a request. */
export function withDeadline<T>(query: Promise<T> & { cancel?: () => unknown }, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        query.cancel?.();
      } catch {
        // Cancelling is a courtesy to the server; the caller is answered either way.
      }
      reject(new DatabaseTimeout(`no answer from the database within ${ms} ms`));
    }, ms);
    query.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
