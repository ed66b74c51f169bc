import type { Config, ContentSetting } from '../config';
import { PageCache } from '../page-cache';
import { ContentCache } from './cache';
import { StoreFailures } from './failure';
import { openNewsroomApi } from './newsroom-api';
import type { PublishedIds } from './published-ids';
import type { PostgresStoreOptions } from './postgres';
import { readArticles } from './reader';
import { StoreBusy, type ArticleWriter, type ContentReader, type SignupStore, type ViewsStore } from './source';
import { openSqliteForWorker } from './sqlite';
import type { ArticleStore } from './store';

// The one place a content setting becomes the parts the server uses. server/worker.ts calls
// openContent and nothing else, and the configuration goes one way, each file entered once:
// this file → the store (sqlite.ts, postgres.ts or newsroom-api.ts) → failure.ts (the store's
// one StoreFailures) → cache.ts (the content cache, the feed's one subscriber, which makes the
// published ids, published-ids.ts) → reader.ts (the reader pages use) → server/page-cache.ts
// (the breaking-news pages, kept in that cache) → back to the worker, which hands the finished
// parts to server/site.ts.

export type CacheSettings = Pick<Config, 'contentTimeoutMs' | 'contentFreshS' | 'contentStaleS' | 'contentCacheEntries' | 'contentCacheMb'> &
  Partial<Pick<Config, 'pageCacheTtlMs' | 'pageCacheMaxBytes'>>;

/** What tests change besides the settings: the clock, the outage back-off, PostgreSQL's listener. */
export interface ContentOverrides {
  now?: () => number;
  backoffMs?: number;
  postgres?: Pick<PostgresStoreOptions, 'listen' | 'listenerHeartbeatMs' | 'listenerName'>;
}

export interface Content {
  reader: ContentReader;
  /** The CMS's pushes; null where the store takes none (the newsroom API). */
  writer: ArticleWriter | null;
  /** Where article views are flushed; null where the store counts none (the newsroom API counts its own). */
  views: ViewsStore | null;
  /** Where newsletter sign-ups go; null where the store keeps none. */
  signups: SignupStore | null;
  /**
   * Which ids are published articles, kept by the content cache (the views' check); null where no
   * views are counted. Its first read starts when firstRead is first asked for.
   */
  published: PublishedIds | null;
  /** The breaking-news pages (PAGE_CACHE_TTL_MS), kept in the content cache; null when off. */
  pages: PageCache | null;
  cache: ContentCache;
  store: ArticleStore;
  /** Lets go of the cache and the store's connections. */
  close(): Promise<void>;
}

/** What a store brings besides its reads. */
interface StoreParts {
  writer?: ArticleWriter;
  views?: ViewsStore;
  signups?: SignupStore;
  publishedIds?: () => Promise<string[]>;
  close?: () => void | Promise<void>;
}

const defaultBackoffMs = 1_000;

export async function openContent(setting: ContentSetting, settings: CacheSettings, overrides: ContentOverrides = {}): Promise<Content> {
  const { store, parts } = await openStore(setting, settings, overrides);
  return contentOver(store, settings, overrides, parts);
}

async function openStore(setting: ContentSetting, settings: CacheSettings, overrides: ContentOverrides): Promise<{ store: ArticleStore; parts: StoreParts }> {
  switch (setting.store) {
    case 'sqlite': {
      // Workers read through a read-only connection; the rare write opens one of its own.
      const { store, writer } = openSqliteForWorker(setting.path);
      const parts = { writer, views: store.views, signups: store.signups, publishedIds: () => store.publishedIds(), close: () => writer.close() };
      return { store, parts };
    }
    case 'postgresql': {
      // Loaded only here: a worker on another store never holds the driver in its heap.
      const { openPostgresStore } = await import('./postgres');
      const store = openPostgresStore({
        url: setting.url,
        poolSize: setting.poolSize,
        timeoutMs: settings.contentTimeoutMs,
        unlistenedFreshMs: Math.max(1, settings.contentFreshS) * 1000,
        ...overrides.postgres,
      });
      return { store, parts: { writer: store, views: store.views, signups: store.signups, publishedIds: () => store.publishedIds() } };
    }
    case 'newsroom-api':
      return { store: openNewsroomApi({ baseUrl: setting.url, timeoutMs: settings.contentTimeoutMs }), parts: {} };
  }
}

/**
 * The content cache and the parts over a store already open: what openContent does once it has
 * opened one (and what tests use over a store they hold). Store failures in a write or a
 * sign-up become ContentUnavailable here, logged by the store's one StoreFailures as the cache's
 * reads are: writes and sign-ups never pass through the cache.
 */
export function contentOver(store: ArticleStore, settings: CacheSettings, overrides: ContentOverrides, parts: StoreParts): Content {
  // One per store: the cache's reads and the writes beside it log their failures as one.
  const failures = new StoreFailures(store.name, overrides.now);
  const pageTtlMs = settings.pageCacheTtlMs ?? 0;
  const cache = new ContentCache({
    name: store.name,
    failures,
    isOutage: (error) => store.isOutage(error),
    changes: store.changes ?? undefined,
    // Only where views are counted, and a feed keeps the ids current.
    publishedIds: store.changes === null ? undefined : parts.publishedIds,
    maxEntries: settings.contentCacheEntries,
    // The breaking-news pages, when kept, share the one bound: theirs is added to it.
    maxBytes: settings.contentCacheMb * 1024 * 1024 + (pageTtlMs > 0 ? (settings.pageCacheMaxBytes ?? 0) : 0),
    staleMs: settings.contentStaleS * 1000,
    // A store whose feed says what changed keeps answers until then; the newsroom API's for a while.
    freshMs: store.changes === null ? settings.contentFreshS * 1000 : Infinity,
    backoffMs: overrides.backoffMs ?? defaultBackoffMs,
    now: overrides.now,
  });
  const reader = readArticles(store, cache, failures);
  return {
    reader,
    writer: parts.writer ? storeWrites(parts.writer, failures) : null,
    views: parts.views ?? null,
    signups: parts.signups ? storeSignups(parts.signups, failures) : null,
    published: cache.published,
    pages: pageTtlMs > 0 ? new PageCache(pageTtlMs, cache, reader) : null,
    cache,
    store,
    async close() {
      cache.close();
      await parts.close?.();
      await store.close();
    },
  };
}

/** The CMS's writes, straight to the store (never through the cache): a failure is the short 503, logged. */
function storeWrites(writer: ArticleWriter, failures: StoreFailures): ArticleWriter {
  return {
    upsert: (article, order) => failures.answer('upsert', () => writer.upsert(article, order)),
    unpublish: (id, updatedAt, order) => failures.answer('unpublish', () => writer.unpublish(id, updatedAt, order)),
  };
}

/** Sign-ups, straight to the store: a busy store is the reader's "try again in a moment" (StoreBusy); any other failure the short 503. */
function storeSignups(signups: SignupStore, failures: StoreFailures): SignupStore {
  return {
    signup: (address, newsletters, at) =>
      signups.signup(address, newsletters, at).catch((error: unknown) => {
        if (error instanceof StoreBusy) throw error;
        throw failures.unavailable('signup', error);
      }),
    expireUnconfirmed: (before) => failures.answer('expiring sign-ups', () => signups.expireUnconfirmed(before)),
    close: () => signups.close(),
  };
}
