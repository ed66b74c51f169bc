import type { RequestListener } from 'node:http';
import { createApp } from './app';
import type { Assets } from './assets';
import type { Config } from './config';
import type { ArticleWriter, ContentSource } from './content/source';
import { EventLoopDelaySampler } from './metrics/event-loop';
import { WorkerMetrics } from './metrics/worker-metrics';
import { OverloadGuard, overloadAwareListener } from './overload';
import { PageCache } from './page-cache';
import { createPageHandler } from './pages';
import { buildChrome, type RenderDeps } from './render';
import { shellForServing } from './shell-file';

export type SiteConfig = Pick<
  Config,
  | 'siteUrl'
  | 'distDir'
  | 'trustProxy'
  | 'ingestToken'
  | 'previewSecret'
  | 'previewConcurrencyLimit'
  | 'ssrLatestItems'
  | 'ssrSharedChrome'
  | 'pageCacheTtlMs'
  | 'pageCacheMaxBytes'
  | 'ssrQueueLimit'
  | 'crawlerQueueLimit'
  | 'shedQueueLimit'
  | 'shedRetryAfterS'
  | 'ssrMaxEventLoopDelayMs'
  | 'shellSMaxAgeS'
>;

export interface Site {
  /** The request listener for an http.Server. */
  listener: RequestListener;
  metrics: WorkerMetrics;
  /** Stops the event-loop sampler's timer. */
  close(): void;
}

/** Everything one worker answers with, put together: guard in front, then pages or the Express app. */
export function createSite({
  config,
  content,
  assets,
  writer,
}: {
  config: SiteConfig;
  content: ContentSource;
  assets: Assets;
  writer: () => ArticleWriter;
}): Site {
  const eventLoop = new EventLoopDelaySampler();
  const metrics = new WorkerMetrics(eventLoop);
  const render: RenderDeps = {
    content,
    assets,
    siteUrl: config.siteUrl,
    latestItems: config.ssrLatestItems,
    chrome: config.ssrSharedChrome ? buildChrome() : null,
  };
  const listener = overloadAwareListener({
    app: createApp({ config, content, assets, writer, render }),
    pages: createPageHandler({
      render,
      metrics,
      cache: config.pageCacheTtlMs > 0 ? new PageCache(config.pageCacheTtlMs, config.pageCacheMaxBytes, () => content.version?.() ?? null) : null,
    }),
    shell: shellForServing(config.distDir, assets, config.siteUrl, config.shellSMaxAgeS),
    guard: new OverloadGuard(config, metrics, eventLoop),
    metrics,
    shedRetryAfterS: config.shedRetryAfterS,
  });
  return { listener, metrics, close: () => eventLoop.close() };
}
