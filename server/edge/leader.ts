import postgres from 'postgres';
import { dedicatedSession, withDeadline } from '../content/postgres-listener';
import { describeError, log } from '../log';

// Which primary of the fleet sends the purges: the one holding a PostgreSQL advisory lock on a
// connection of its own. The others ask for it every `pollMs`; the lock goes with the session,
// so when the sender's process stops (or its connection drops) another takes it at its next ask.
// The holder checks every `pollMs` that its session still holds the lock, and stops sending the
// moment it cannot say so (a lost connection): two senders for a moment are worse than none for
// a moment, since the one taking over sends the changes it heard just before (start.ts).

/** The lock's two keys (pg_locks.classid, objid): "KIOS" and "PURG" in ASCII. */
export const purgeLockKeys = [0x4b494f53, 0x50555247] as const;

export interface LeaderOptions {
  url: string;
  timeoutMs: number;
  /** How often a stand-by asks for the lock and the holder checks it still has it. */
  pollMs: number;
  /** Became the sender (true) or stopped being it (false). */
  onLeading(leading: boolean): void;
  /** The connection's application_name ('kiosk-edge-purge'): tests name each instance's. */
  applicationName?: string;
}

export interface Leader {
  readonly leading: boolean;
  close(): Promise<void>;
}

export function electPurgeSender(options: LeaderOptions): Leader {
  let leading = false;
  let closed = false;
  let asking = false;
  const set = (now: boolean) => {
    if (now === leading) return;
    leading = now;
    options.onLeading(now);
  };
  // One connection, kept: the lock lives in its session. A session lost (the server restarted,
  // the network) is a lost lock; postgres.js opens a new session at the next query.
  const sql = postgres(options.url, {
    ...dedicatedSession(options.timeoutMs),
    // The server notices a holder that vanished without closing its connection (a machine gone)
    // within about 5 + 2 × 3 s, and lets the lock go, instead of after the system's two hours.
    connection: {
      application_name: options.applicationName ?? 'kiosk-edge-purge',
      tcp_keepalives_idle: 5,
      tcp_keepalives_interval: 2,
      tcp_keepalives_count: 3,
    },
    onclose: () => set(false),
  } as postgres.Options<Record<string, never>>);

  async function ask(): Promise<void> {
    if (closed || asking) return;
    asking = true;
    try {
      const [k1, k2] = purgeLockKeys;
      const query = leading
        ? sql<
            { held: boolean }[]
          >`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ${k1} AND objid = ${k2} AND objsubid = 2 AND pid = pg_backend_pid() AND granted) AS held`
        : sql<{ held: boolean }[]>`SELECT pg_try_advisory_lock(${k1}, ${k2}) AS held`;
      const [row] = await withDeadline(query, options.timeoutMs);
      if (!closed) set(row?.held === true);
    } catch (error) {
      if (leading) log.warn('edge purge: lost the sender lock', describeError(error));
      set(false);
    } finally {
      asking = false;
    }
  }

  const timer = setInterval(() => void ask(), options.pollMs);
  timer.unref();
  void ask();
  return {
    get leading() {
      return leading;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      set(false);
      // Ending the session lets the lock go: a stand-by takes it at its next ask.
      await sql.end({ timeout: 1 }).catch(() => undefined);
    },
  };
}
