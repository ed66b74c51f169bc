import type postgres from 'postgres';
import { describeError, log } from '../log';
import { withDeadline } from './postgres-listener';
import { StoreBusy, type SignupStore, type ViewsStore } from './source';
import { windowStart } from './views-window';

// Views and sign-ups in the fleet's PostgreSQL (migrations/…_view-totals.sql): the same shape as
// the SQLite files (server/content/sqlite-views.ts, sqlite-signups.ts). Every worker of every
// instance flushes its views here; each flush adds to the minute's rows and to the running
// totals in one transaction, both in article id order, so two flushes lock the same rows in the
// same order. Taking old minutes out of the totals is done by one worker at a time (an advisory
// lock), at most once a minute per worker.

export const viewSql = {
  addMinutes: `INSERT INTO article_views (article_id, minute, views)
    SELECT id, $3::int, n::bigint FROM unnest(string_to_array($1, ','), string_to_array($2, ',')) AS v(id, n) ORDER BY id
    ON CONFLICT (article_id, minute) DO UPDATE SET views = article_views.views + excluded.views`,
  addTotals: `INSERT INTO article_view_totals (article_id, views)
    SELECT id, n::bigint FROM unnest(string_to_array($1, ','), string_to_array($2, ',')) AS v(id, n) ORDER BY id
    ON CONFLICT (article_id) DO UPDATE SET views = article_view_totals.views + excluded.views`,
  // 4262 is an arbitrary key: the one lock every worker takes to expire, so only one does at a time.
  expireLock: 'SELECT pg_try_advisory_xact_lock(4262) AS mine',
  expire: `WITH gone AS (DELETE FROM article_views WHERE minute < $1 RETURNING article_id, views),
      summed AS (SELECT article_id, sum(views) AS views FROM gone GROUP BY article_id ORDER BY article_id)
    UPDATE article_view_totals t SET views = t.views - s.views FROM summed s WHERE t.article_id = s.article_id`,
  dropEmpty: 'DELETE FROM article_view_totals WHERE views <= 0',
  ranked: 'SELECT article_id FROM article_view_totals ORDER BY views DESC, article_id DESC LIMIT $1',
} as const;

export const signupSql = {
  // A second sign-up adds letters to the first; its time stays the first's.
  signup: `INSERT INTO newsletter_signups (address, newsletters, signed_up_at) VALUES ($1, $2, $3)
    ON CONFLICT (address) DO UPDATE SET newsletters = (
      SELECT string_agg(DISTINCT n, ',' ORDER BY n) FROM unnest(string_to_array(newsletter_signups.newsletters || ',' || excluded.newsletters, ',')) AS n)`,
  expire: `DELETE FROM newsletter_signups WHERE NOT confirmed AND signed_up_at < $1`,
} as const;

/** PostgreSQL's lock_not_available (lock_timeout) and query_canceled (statement_timeout). */
function isLockWait(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '55P03' || code === '57014';
}

export function postgresViews(sql: postgres.Sql, options: { timeoutMs: number; onQuery?: () => void }): ViewsStore {
  const counted = (n: number) => {
    for (let i = 0; i < n; i += 1) options.onQuery?.();
  };
  return {
    async record(minute, counts) {
      const entries = [...counts].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (entries.length === 0) return new Map();
      const ids = entries.map(([id]) => id).join(',');
      const views = entries.map(([, n]) => String(n)).join(',');
      // No deadline of our own: one that fired while the transaction went on to commit would
      // count these views again at the next flush. Each statement has the pool's statement_timeout.
      try {
        await sql.begin(async (tx) => {
          counted(2);
          await tx.unsafe(viewSql.addMinutes, [ids, views, minute]);
          await tx.unsafe(viewSql.addTotals, [ids, views]);
        });
        return new Map();
      } catch (error) {
        log.warn('writing article views failed; kept for the next flush', describeError(error));
        return new Map(entries);
      }
    },

    async expire(nowMinute) {
      await withDeadline(
        sql.begin(async (tx) => {
          counted(1);
          const [lock] = await tx.unsafe<{ mine: boolean }[]>(viewSql.expireLock);
          if (!lock?.mine) return;
          counted(2);
          await tx.unsafe(viewSql.expire, [windowStart(nowMinute)]);
          await tx.unsafe(viewSql.dropEmpty);
        }),
        options.timeoutMs,
      );
    },

    async ranked(limit) {
      counted(1);
      const rows = await withDeadline(sql.unsafe<{ article_id: string }[]>(viewSql.ranked, [limit], { prepare: true }), options.timeoutMs);
      return rows.map((r) => r.article_id);
    },

    close: () => undefined,
  };
}

/**
 * `deadlineMs` bounds a sign-up, lock waits included (lock_timeout a little under it): past it
 * the sign-up is refused with StoreBusy and nothing was written.
 */
export function postgresSignups(sql: postgres.Sql, options: { deadlineMs: number; onQuery?: () => void }): SignupStore {
  const lockTimeoutMs = Math.max(50, options.deadlineMs - 100);
  return {
    async signup(address, newsletters, at) {
      try {
        await withDeadline(
          sql.begin(async (tx) => {
            options.onQuery?.();
            await tx.unsafe(`SET LOCAL lock_timeout = ${lockTimeoutMs}`);
            await tx.unsafe(signupSql.signup, [address, [...newsletters].sort().join(','), at]);
          }),
          options.deadlineMs,
        );
      } catch (error) {
        if (isLockWait(error) || (error as Error).name === 'DatabaseTimeout') throw new StoreBusy((error as Error).message);
        throw error;
      }
    },
    async expireUnconfirmed(before) {
      options.onQuery?.();
      const result = await sql.unsafe(signupSql.expire, [before]);
      return result.count;
    },
    close: () => undefined,
  };
}
