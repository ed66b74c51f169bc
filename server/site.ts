import type { RequestListener } from 'node:http';
import { createApp, type AppConfig } from './app';
import type { Assets } from './assets';
import { edgePurgeActive, type Config } from './config';
import { pageLifetimes, shellCacheControl } from './cache-policy';
import type { ContentCache } from './content/cache';
import type { Content } from './content/open';
import { EventLoopDelaySampler, MajorCollections } from './metrics/event-loop';
import { WorkerMetrics } from './metrics/worker-metrics';
import { OverloadGuard, overloadGuardStage } from './overload';
import { TurnBudget } from './turns';
import { WriteBudget, type WriteBudgetSettings } from './last-good/budget';
import { LastGoodWriter, primaryChannel } from './last-good/writer';
import { createPageHandler } from './pages';
import { buildChrome, type RenderDeps } from './render';
import { shellForServing } from './shell-file';
import { ViewCounter } from './views';

/** Clients, and (client, article) pairs, a worker remembers per minute for views (about 100 bytes each). */
const maxViewClientsPerMinute = 200_000;

/** What the Express app reads (AppConfig), and what the site around it adds: rendering, views, the guard. */
export type SiteConfig = AppConfig &
  Pick<
    Config,
    | 'edgePurge'
    | 'content'
    | 'ssrLatestItems'
    | 'domBudget'
    | 'viewsFlushS'
    | 'viewsPerClientPerMinute'
    | 'ssrQueueLimit'
    | 'crawlerQueueLimit'
    | 'shedQueueLimit'
    | 'shedRetryAfterS'
    | 'shellSMaxAgeS'
    | 'lastGoodDir'
    | 'lastGoodSeconds'
  >;

export interface Site {
  /** The request listener for an http.Server. */
  listener: RequestListener;
  metrics: WorkerMetrics;
  /** Article views counted by this worker; null where the store keeps no counts. */
  views: ViewCounter | null;
  /**
   * Settles once the site can tell a published article from anything else (the first read of
   * the published ids, done or failed within the store's deadline): listen after it, or the
   * first beacons are dropped unread.
   */
  ready: Promise<void>;
  /** Stops the timers; resolves once the last counted views are in the store. */
  close(): Promise<void>;
}

/** Everything one worker answers with, put together: one Express app, the guard its first stage. */
export function createSite({
  config,
  content,
  assets,
}: {
  config: SiteConfig;
  content: Pick<Content, 'reader' | 'writer' | 'views' | 'signups' | 'published' | 'pages' | 'cache' | 'store'>;
  assets: Assets;
}): Site {
  const { reader, writer } = content;
  const eventLoop = new EventLoopDelaySampler();
  const metrics = new WorkerMetrics(eventLoop);
  const gc = new MajorCollections(metrics, eventLoop);
  content.cache.countInto(metrics.count);
  // One clock for the turn of the event loop, shared by the guard's turns and the renders.
  const turns = new TurnBudget();
  const render: RenderDeps = {
    turns,
    content: reader,
    assets,
    siteUrl: config.siteUrl,
    latestItems: config.domBudget ? config.ssrLatestItems : undefined,
    domBudget: config.domBudget,
    chrome: buildChrome(),
    // Long edge lifetimes only while the edge is purged on every change (server/edge/).
    lifetimes: pageLifetimes(edgePurgeActive(config)),
  };
  const published = content.views !== null ? content.published : null;
  const views =
    content.views !== null && published !== null
      ? new ViewCounter(content.views, published, {
          flushIntervalMs: config.viewsFlushS * 1000,
          perClientPerMinute: config.viewsPerClientPerMinute,
          maxClientsPerMinute: maxViewClientsPerMinute,
        })
      : null;
  // The copies follow the changes through the content cache, the feed's one subscriber.
  const lastGood = lastGoodWriter(config, content.store.changes === null ? null : content.cache, metrics);
  const listener: RequestListener = createApp({
    config,
    content: reader,
    signups: content.signups,
    assets,
    writer: () => {
      if (writer === null) throw new Error('this content store takes no writes');
      return writer;
    },
    render,
    views,
    pages: createPageHandler({
      render,
      metrics,
      cache: content.pages,
      lastGood: lastGood?.writer,
      vouching: { mark: () => content.cache.mark, cacheControl: shellCacheControl(config.shellSMaxAgeS) },
    }),
    guard: overloadGuardStage({
      shell: shellForServing(config.distDir, assets, config.siteUrl, config.shellSMaxAgeS),
      guard: new OverloadGuard(config, metrics),
      metrics,
      shedRetryAfterS: config.shedRetryAfterS,
      turns,
    }),
  });
  return {
    listener,
    metrics,
    views,
    ready: published?.firstRead ?? Promise.resolve(),
    async close() {
      lastGood?.stop();
      eventLoop.close();
      gc.close();
      await views?.close();
    },
  };
}

/** Paths a worker remembers with its last write (about 100 bytes each). */
const lastGoodRemembered = 50_000;
/**
 * The time a worker's copies may take (the rule at the top of server/last-good/budget.ts). A
 * write measured 80–450 µs of CPU on ext4 (35 KB, a rename over the old copy; docs/overload.md):
 * - busy (serving keeps the event loop half busy or more, the writes' own time left out): 1% of
 *   its CPU time, 10 ms a second on a core of its own, 20–100 copies a second, a third of the 3%
 *   the tier may cost capacity. Half, not 0.8: workers kept full through Nginx on two shared
 *   cores read about 0.7 (waiting for requests their neighbours' CPU delays), and with the mark
 *   at 0.8 spent 2–3.7% of their time writing (tools/bench/last-good-budget.services.test.ts);
 *   at 0.5, 0.8–1.2%;
 * - idle: up to half of its time, falling linearly to 1% at half busy, so a worker serving
 *   well below capacity copies every page it renders (a path once per half age bound) and the
 *   copies a flood needs are on disk before it starts.
 */
const lastGoodBudget: WriteBudgetSettings = { busyShare: 0.01, idleShare: 0.5, busyUtilization: 0.5 };

/**
 * The last good copies (server/last-good/): on when a directory is set, the tier is on, and the
 * store has a change feed to remove them by (the newsroom API has none: no copies, the shell).
 */
export function lastGoodWriter(
  config: Pick<SiteConfig, 'lastGoodDir' | 'lastGoodSeconds'>,
  changes: Pick<ContentCache, 'follow' | 'mark'> | null,
  metrics: WorkerMetrics,
): { writer: LastGoodWriter; stop: () => void } | null {
  if (config.lastGoodDir === null || config.lastGoodSeconds === 0 || changes === null) return null;
  // A page read all along is written again when its copy is half the age bound: it never ages out,
  // and writes stay one per path per half bound (docs/overload.md, the cost of a write).
  const refreshMs = (config.lastGoodSeconds * 1000) / 2;
  const writer = new LastGoodWriter(
    {
      dir: config.lastGoodDir,
      refreshMs,
      maxRemembered: lastGoodRemembered,
      budget: new WriteBudget(lastGoodBudget, { onSpent: (ms) => (metrics.count.lastGoodWriteMs += ms) }),
    },
    primaryChannel,
    () => changes.mark,
  );
  return { writer, stop: changes.follow((change) => writer.changed(change)) };
}
