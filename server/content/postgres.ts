import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import type { Article, FrontPage, Headline, SectionPage, TagPage } from '../../src/content';
import { clampPageSize, latestListSize, mostReadSize, sectionPageSize, trendingTagsSize } from '../../src/content';
import { articleIdPattern, isSectionSlug, sections, type SectionSlug } from '../../src/sections';
import { isTagSlug } from '../../src/tags';
import { readArticleWithTeasers, relatedCandidatesPerTag, trendingWindowArticles } from './article-teasers';
import type { Config } from '../config';
import { KioskError } from '../errors';
import { describeError, log } from '../log';
import { ChangeHub, everythingChanged, stateOf, type ArticleChange, type ChangeFeed, type ContentChange } from './changes';
import { deepFreeze } from './freeze';
import { listenForChanges, withDeadline } from './postgres-listener';
import { toArticle, toHeadline, toRow, toTeaser, type ArticleRow, type HeadlineRow, type TeaserRow } from './rows';
import type { ArticleWriter, ContentSource } from './source';
import { StaleCache } from './stale-cache';
import { KeptRanking, minuteOf, pruneBefore, rankedOverRead, windowStart } from './views-window';

// The fleet's content store: one PostgreSQL for every worker of every instance. The same
// queries, orderings and cursors as the SQLite store (the schema is migrations/…_articles.sql).
// Every answer a page reads is kept per worker, tagged with the content generation it was read
// in; a NOTIFY from any commit (a trigger sends it) moves the generation, so the next reader
// reads again. When the database is slow or down, a kept answer stands in (bounded by
// CONTENT_STALE_S), else the short 503, as the newsroom-API adapter does: never a hang, never a 500.

export interface PostgresStoreOptions {
  url: string;
  /** Connections in this worker's pool (the LISTEN connection is one more). */
  poolSize: number;
  /** One query, waiting for a connection included. */
  timeoutMs: number;
  /** While the LISTEN connection is lost, kept answers are read again after this long. */
  unlistenedFreshMs: number;
  /** Kept answers younger than this stand in when the database fails. */
  staleMs: number;
  maxEntries: number;
  maxBytes: number;
  /** After a failure, how long to answer from what is kept without asking the database. */
  backoffMs?: number;
  /** Off for one-shot tools (seed, tests of queries) that need no change notifications. */
  listen?: boolean;
  /** How often the LISTEN connection is pinged (5 s); tests shorten it. */
  listenerHeartbeatMs?: number;
  /** The LISTEN connection's application_name ('kiosk-listener'); tests give each store its own. */
  listenerName?: string;
}

export function postgresStoreOptions(
  config: Pick<Config, 'contentDbPoolSize' | 'contentTimeoutMs' | 'contentFreshS' | 'contentStaleS' | 'contentCacheEntries' | 'contentCacheMb'> & {
    contentDatabaseUrl: string;
  },
): PostgresStoreOptions {
  return {
    url: config.contentDatabaseUrl,
    poolSize: config.contentDbPoolSize,
    timeoutMs: config.contentTimeoutMs,
    unlistenedFreshMs: Math.max(1, config.contentFreshS) * 1000,
    staleMs: config.contentStaleS * 1000,
    maxEntries: config.contentCacheEntries,
    maxBytes: config.contentCacheMb * 1024 * 1024,
  };
}

export interface PostgresStats {
  /** Statements sent to the database since the store opened: what a page view costs. */
  queries: number;
  /** Moves with every change this worker learns of. */
  generation: number;
  listening: boolean;
  entries: number;
  bytes: number;
}

export interface PostgresStore extends ContentSource, ArticleWriter {
  upsert(article: Article): Promise<'created' | 'updated'>;
  unpublish(id: string, updatedAt: string): Promise<boolean>;
  /** Writes all of them in one transaction (the seed); returns how many rows went in. */
  insertMany(articles: readonly Article[]): Promise<number>;
  countAll(): Promise<number>;
  deleteAll(): Promise<number>;
  stats(): PostgresStats;
  recordViews(minute: number, counts: ReadonlyMap<string, number>): Promise<void>;
  recordSignup(address: string, newsletters: readonly string[], at: string): Promise<void>;
  /** Resolves once every connection is closed. */
  end(): Promise<void>;
  /** Every commit to articles anywhere (NOTIFY), this store's own writes at once. */
  readonly changes: ChangeFeed;
}

const teaserColumns = 'id, section, title, lead, image, published_at';
const articleColumns = `${teaserColumns}, author, updated_at, tags, body, status`;
const joinedTeaserColumns = 'a.id, a.section, a.title, a.lead, a.image, a.published_at';
const frontPageTeasersPerSection = 3;

/** The store's SQL, exported so tests can check every query's plan uses an index. */
export const queries = {
  headlines: `SELECT id, section, title, published_at FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT $1`,
  latest: `SELECT ${teaserColumns} FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT $1`,
  // The whole front page below the lead in one statement: each section's newest, in section order.
  frontPageSections: `SELECT t.* FROM unnest(string_to_array($1, ',')) WITH ORDINALITY AS s(section, n)
    CROSS JOIN LATERAL (SELECT ${teaserColumns} FROM articles
      WHERE status = 'published' AND section = s.section AND id <> $2 ORDER BY id DESC LIMIT $3) AS t
    ORDER BY s.n, t.id DESC`,
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
  // The related stories by tags in one statement: each tag's newest published candidates,
  // counted, most tags in common first and newer first among equals (rankByTags's order).
  relatedByTags: `SELECT a.id, a.section, a.title, a.lead, a.image, a.published_at
    FROM (SELECT c.id, count(*) AS shared FROM unnest(string_to_array($1, ',')) AS s(tag)
      CROSS JOIN LATERAL (SELECT t.article_id AS id FROM article_tags t JOIN articles p ON p.id = t.article_id
        WHERE t.tag = s.tag AND t.article_id <> $2 AND p.status = 'published' ORDER BY t.article_id DESC LIMIT $3) AS c
      GROUP BY c.id ORDER BY shared DESC, c.id DESC LIMIT $4) AS r
    JOIN articles a ON a.id = r.id ORDER BY r.shared DESC, r.id DESC`,
  publishedHeadlines: `SELECT id, section, title, published_at FROM articles WHERE status = 'published' AND id = ANY(string_to_array($1, ','))`,
  trendingTags: `SELECT t.tag FROM (SELECT id FROM articles WHERE status = 'published' ORDER BY id DESC LIMIT $1) AS r
    JOIN article_tags t ON t.article_id = r.id GROUP BY t.tag ORDER BY count(*) DESC, t.tag LIMIT $2`,
  mostReadRanked: `SELECT article_id FROM article_views WHERE minute >= $1
    GROUP BY article_id ORDER BY sum(views) DESC, article_id DESC LIMIT $2`,
} as const;

const upsertSql = `INSERT INTO articles (${articleColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  ON CONFLICT (id) DO UPDATE SET section = excluded.section, title = excluded.title, lead = excluded.lead,
    image = excluded.image, published_at = excluded.published_at, author = excluded.author,
    updated_at = excluded.updated_at, tags = excluded.tags, body = excluded.body, status = excluded.status
  RETURNING (xmax = 0) AS created`;
const unpublishSql = "UPDATE articles SET status = 'draft', updated_at = $1 WHERE id = $2";
// Read in the writer's transaction, locked, so the change it reports says what the article was.
const stateBeforeSql = 'SELECT section, tags::text AS tags, status FROM articles WHERE id = $1 FOR UPDATE';
const rowColumns = ['id', 'section', 'title', 'lead', 'image', 'published_at', 'author', 'updated_at', 'tags', 'body', 'status'] as const;
const dropTagsSql = 'DELETE FROM article_tags WHERE article_id = $1';
const addTagsSql = `INSERT INTO article_tags (tag, article_id) SELECT tag, $2 FROM unnest(string_to_array($1, ',')) AS tag WHERE $1 <> ''`;
const addViewsSql = `INSERT INTO article_views (article_id, minute, views)
  SELECT id, $3::int, views::bigint FROM unnest(string_to_array($1, ','), string_to_array($2, ',')) AS v(id, views)
  ON CONFLICT (article_id, minute) DO UPDATE SET views = article_views.views + excluded.views`;
const pruneViewsSql = 'DELETE FROM article_views WHERE minute < $1';
// A second sign-up adds letters to the first; its time stays the first's.
const signupSql = `INSERT INTO newsletter_signups (address, newsletters, signed_up_at) VALUES ($1, $2, $3)
  ON CONFLICT (address) DO UPDATE SET newsletters = (
    SELECT string_agg(DISTINCT n, ',' ORDER BY n) FROM unnest(string_to_array(newsletter_signups.newsletters || ',' || excluded.newsletters, ',')) AS n)`;

/** Rows for these ids, in the order of the ids; ids without a row are left out. */
function inOrder<R extends { id: string }>(ids: readonly string[], rows: readonly R[]): R[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

const defaultBackoffMs = 1_000;
const logEveryMs = 1_000;
const sectionSlugs = sections.map((s) => s.slug).join(',');

/**
 * The database itself is in trouble (unreachable, timed out, shutting down, out of connections),
 * as opposed to one statement failing: stop asking it for a moment.
 */
function isOutage(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return /^(08|53|57|58)/.test(code);
}

interface Kept {
  value: unknown;
  generation: number;
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
  const kept = new StaleCache<Kept>({ maxEntries: options.maxEntries, maxBytes: options.maxBytes });
  const pending = new Map<string, Promise<unknown>>();
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  let generation = 1;
  let queryCount = 0;
  let outageUntil = 0;
  let failuresUnlogged = 0;
  let loggedAt = -Infinity;

  const hub = new ChangeHub();
  const changed = (change: ContentChange) => {
    generation += 1;
    hub.emit(change);
  };
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
  // (starting, or reconnecting after a loss) the generation moves every unlistenedFreshMs, so
  // kept answers and the page cache are at most that much older than a change made meanwhile.
  const unlistenedTimer =
    listener === null ? undefined : setInterval(() => (listener.listening ? undefined : changed(everythingChanged)), options.unlistenedFreshMs);
  unlistenedTimer?.unref();

  function run<T extends object[]>(text: string, params: (string | number)[]): Promise<T> {
    queryCount += 1;
    return withDeadline(sql.unsafe<T>(text, params as never[], { prepare: true }) as unknown as Promise<T> & { cancel(): void }, options.timeoutMs);
  }

  function reportFailure(key: string, error: unknown, served: 'stale' | 'unavailable', ageMs?: number) {
    failuresUnlogged += 1;
    const now = performance.now();
    // At most one line a second however many requests fail: an outage must not flood the logs.
    if (now - loggedAt < logEveryMs) return;
    log.warn('content database failed', {
      key,
      ...describeError(error),
      served,
      staleAgeS: ageMs === undefined ? undefined : Math.round(ageMs / 1000),
      failures: failuresUnlogged,
    });
    loggedAt = now;
    failuresUnlogged = 0;
  }

  /** The kept answer, however old within staleMs, or the 503. */
  function standIn<T>(key: string, error: unknown): T {
    const entry = kept.get(key);
    const ageMs = entry === undefined ? undefined : performance.now() - entry.storedAtMs;
    if (entry !== undefined && ageMs! <= options.staleMs) {
      if (error !== null) reportFailure(key, error, 'stale', ageMs);
      return entry.value.value as T;
    }
    if (error !== null) reportFailure(key, error, 'unavailable');
    throw new KioskError('contentUnavailable');
  }

  async function ask<T>(key: string, read: () => Promise<T | null>): Promise<T | null> {
    const readIn = generation;
    let value: T | null;
    try {
      value = await read();
    } catch (error) {
      if (isOutage(error)) outageUntil = performance.now() + backoffMs;
      return standIn<T>(key, error);
    }
    outageUntil = 0;
    // Shared by every request from now on: frozen so no caller can change it for the others.
    // Not-found answers are not kept: a crawl of unknown ids cannot push real answers out.
    if (value !== null) kept.set(key, { value: deepFreeze(value), generation: readIn }, Buffer.byteLength(JSON.stringify(value)), performance.now());
    return value;
  }

  /** A kept answer of this generation, or one read for every waiting reader at once. */
  function load<T>(key: string, read: () => Promise<T | null>): Promise<T | null> {
    const entry = kept.get(key);
    if (entry !== undefined && entry.value.generation === generation) return Promise.resolve(entry.value.value as T);
    if (performance.now() < outageUntil) {
      try {
        return Promise.resolve(standIn<T>(key, null));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    const pendingKey = `${generation}:${key}`;
    let inFlight = pending.get(pendingKey) as Promise<T | null> | undefined;
    if (inFlight === undefined) {
      inFlight = ask(key, read).finally(() => pending.delete(pendingKey));
      pending.set(pendingKey, inFlight);
    }
    return inFlight;
  }

  async function required<T>(key: string, read: () => Promise<T>): Promise<T> {
    return (await load(key, read)) as T;
  }

  /** Writes and drafts are never answered from what is kept: the database answers, or a 503. */
  async function direct<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      reportFailure(what, error, 'unavailable');
      throw new KioskError('contentUnavailable', 'The content database did not answer just now. Please try again in a few seconds.');
    }
  }

  async function end(): Promise<void> {
    clearInterval(unlistenedTimer);
    kept.clear();
    await Promise.all([listener?.close(), sql.end({ timeout: 1 })]);
  }

  async function readFrontPage(): Promise<FrontPage> {
    const [leadRow] = await run<TeaserRow[]>(queries.latest, [1]);
    if (leadRow === undefined) throw new Error('the content database has no published articles; run `npm run seed -- --database-url ...`');
    const rows = await run<TeaserRow[]>(queries.frontPageSections, [sectionSlugs, leadRow.id, frontPageTeasersPerSection]);
    const trending = await run<{ tag: string }[]>(queries.trendingTags, [trendingWindowArticles, trendingTagsSize]);
    return {
      lead: toTeaser(leadRow),
      sections: sections.map(({ slug }) => ({ section: slug, teasers: rows.filter((r) => r.section === slug).map(toTeaser) })),
      trendingTags: trending.map((r) => r.tag),
    };
  }

  async function readTag(slug: string, cursor: string | undefined, limit: number): Promise<TagPage> {
    const rows =
      cursor === undefined
        ? await run<TeaserRow[]>(queries.tagFirstPage, [slug, limit + 1])
        : await run<TeaserRow[]>(queries.tagNextPage, [slug, cursor, limit + 1]);
    const items = rows.slice(0, limit).map(toTeaser);
    const last = items[items.length - 1];
    return { tag: slug, items, nextCursor: rows.length > limit && last ? last.id : null };
  }

  async function readMostRead(limit: number): Promise<Headline[]> {
    const ranked = await run<{ article_id: string }[]>(queries.mostReadRanked, [windowStart(minuteOf(Date.now())), limit * rankedOverRead]);
    if (ranked.length === 0) return [];
    const ids = ranked.map((r) => r.article_id);
    return inOrder(ids, await run<HeadlineRow[]>(queries.publishedHeadlines, [ids.join(',')]))
      .slice(0, limit)
      .map(toHeadline);
  }

  const ranking = new KeptRanking<Headline[]>();

  async function stateBefore(tx: postgres.TransactionSql, id: string) {
    queryCount += 1;
    const [row] = await tx.unsafe<{ section: string; tags: string; status: string }[]>(stateBeforeSql, [id]);
    return row ? stateOf(row.section, row.tags, row.status) : null;
  }

  async function writeTags(tx: postgres.TransactionSql, article: Article) {
    queryCount += 2;
    await tx.unsafe(dropTagsSql, [article.id]);
    await tx.unsafe(addTagsSql, [article.tags.join(','), article.id]);
  }

  async function readSection(slug: SectionSlug, cursor: string | undefined, limit: number): Promise<SectionPage> {
    // One row more than the page tells whether there is a next page without a count.
    const rows =
      cursor === undefined
        ? await run<TeaserRow[]>(queries.sectionFirstPage, [slug, limit + 1])
        : await run<TeaserRow[]>(queries.sectionNextPage, [slug, cursor, limit + 1]);
    const items = rows.slice(0, limit).map(toTeaser);
    const last = items[items.length - 1];
    return { section: slug, items, nextCursor: rows.length > limit && last ? last.id : null };
  }

  const store: PostgresStore = {
    frontPage: () => required('front', readFrontPage),

    async tag(slug, options = {}): Promise<TagPage | null> {
      const { cursor } = options;
      if (cursor !== undefined && !articleIdPattern.test(cursor)) {
        throw new RangeError(`tag cursor must be an article id, got ${JSON.stringify(cursor)}`);
      }
      if (!isTagSlug(slug)) return null;
      const limit = clampPageSize(options.limit, sectionPageSize);
      // A tag no published article carries is null, which is not kept: made-up tags cannot fill the cache.
      return load(`tag:${slug}:${limit}:${cursor ?? ''}`, async () => {
        const page = await readTag(slug, cursor, limit);
        return cursor === undefined && page.items.length === 0 ? null : page;
      });
    },

    articleWithTeasers(id) {
      return readArticleWithTeasers(
        {
          article: (articleId) => store.article(articleId),
          section: (slug, { limit }) => store.section(slug, { limit }),
          relatedByTags: (tags, excludeId, limit) =>
            required(`related:${excludeId}:${tags.join(',')}:${limit}`, async () =>
              (await run<TeaserRow[]>(queries.relatedByTags, [tags.join(','), excludeId, relatedCandidatesPerTag, limit])).map(toTeaser),
            ),
        },
        id,
      );
    },

    mostRead(limit = mostReadSize): Promise<Headline[]> {
      const n = clampPageSize(limit, mostReadSize);
      return ranking.get(n, () => readMostRead(n));
    },

    async recordViews(minute, counts) {
      const entries = [...counts].filter(([id, views]) => articleIdPattern.test(id) && views > 0);
      if (entries.length === 0) return;
      await sql.begin(async (tx) => {
        queryCount += 2;
        await tx.unsafe(addViewsSql, [entries.map(([id]) => id).join(','), entries.map(([, views]) => String(views)).join(','), minute]);
        await tx.unsafe(pruneViewsSql, [pruneBefore(minute)]);
      });
      ranking.clear();
    },

    async recordSignup(address, newsletters, at) {
      await direct('signup', () => run(signupSql, [address, newsletters.join(','), at]));
    },

    async section(slug, options = {}): Promise<SectionPage | null> {
      const { cursor } = options;
      if (cursor !== undefined && !articleIdPattern.test(cursor)) {
        throw new RangeError(`section cursor must be an article id, got ${JSON.stringify(cursor)}`);
      }
      if (!isSectionSlug(slug)) return null;
      const limit = clampPageSize(options.limit, sectionPageSize);
      return load(`section:${slug}:${limit}:${cursor ?? ''}`, () => readSection(slug, cursor, limit));
    },

    async article(id): Promise<Article | null> {
      if (!articleIdPattern.test(id)) return null;
      return load(`article:${id}`, async () => {
        const [row] = await run<ArticleRow[]>(queries.publishedArticle, [id]);
        return row ? toArticle(row) : null;
      });
    },

    async articleAnyStatus(id): Promise<Article | null> {
      if (!articleIdPattern.test(id)) return null;
      const [row] = await direct('draft', () => run<ArticleRow[]>(queries.anyArticle, [id]));
      return row ? toArticle(row) : null;
    },

    async latest(limit = latestListSize): Promise<Headline[]> {
      const n = clampPageSize(limit, latestListSize);
      return required(`latest:${n}`, async () => (await run<HeadlineRow[]>(queries.headlines, [n])).map(toHeadline));
    },

    async count(): Promise<number> {
      const [row] = await direct('count', () => run<{ n: number }[]>(queries.countPublished, []));
      return row?.n ?? 0;
    },

    async countAll(): Promise<number> {
      const [row] = await direct('count', () => run<{ n: number }[]>(queries.countAll, []));
      return row?.n ?? 0;
    },

    version: () => generation,

    async upsert(article) {
      const row = toRow(article);
      const { was, created } = await direct('upsert', () =>
        sql.begin(async (tx) => {
          const before = await stateBefore(tx, article.id);
          queryCount += 1;
          const [answer] = await tx.unsafe<{ created: boolean }[]>(
            upsertSql,
            rowColumns.map((c) => row[c]),
          );
          await writeTags(tx, article);
          return { was: before, created: answer?.created === true };
        }),
      );
      // This worker sees its own write at once; the others on the NOTIFY the trigger sends.
      changed({ kind: 'article', id: article.id, now: { section: article.section, tags: article.tags, status: article.status }, was });
      return created ? 'created' : 'updated';
    },

    async unpublish(id, updatedAt) {
      const was = await direct('unpublish', () =>
        sql.begin(async (tx) => {
          const before = await stateBefore(tx, id);
          queryCount += 1;
          if (before !== null) await tx.unsafe(unpublishSql, [updatedAt, id]);
          return before;
        }),
      );
      if (was === null) return false;
      const change: ArticleChange = { kind: 'article', id, now: { ...was, status: 'draft' }, was };
      changed(change);
      return true;
    },

    async insertMany(articles) {
      if (articles.length === 0) return 0;
      const rows = articles.map(toRow);
      const tagRows = articles.flatMap((a) => a.tags.map((tag) => ({ tag, article_id: a.id })));
      await sql.begin(async (tx) => {
        queryCount += 2;
        await tx`INSERT INTO articles ${tx(rows, ...rowColumns)}`;
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

    stats: () => ({ queries: queryCount, generation, listening: listener?.listening ?? false, entries: kept.size, bytes: kept.bytes }),

    close() {
      end().catch((error: unknown) => log.error('closing the content database failed', describeError(error)));
    },

    end,
  };
  return store;
}
