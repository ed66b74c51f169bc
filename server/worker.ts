import http from 'node:http';
import net from 'node:net';
import { openContent, type Content } from './content/open';
import { loadAssets, type Assets } from './assets';
import type { Config } from './config';
import { describeError, log } from './log';
import { startCloudWatch, workerSamples, type CloudWatchPublisher } from './metrics/cloudwatch';
import { answerClusterScrapes, workerScrape } from './metrics/scrape';
import { MetricsLedger } from './metrics/totals';
import type { WorkerMetrics } from './metrics/worker-metrics';
import { ResponsesInFlight } from './responses-in-flight';
import { createSite } from './site';

/** How long an idle keep-alive socket may linger once draining starts. */
const idleLingerMs = 250;
/**
 * server/index.ts gives throng SHUTDOWN_GRACE_MS + 2 s before it kills a worker; the last
 * metrics flush must finish inside that, with a margin.
 */
const flushMarginMs = 1_500;

export interface RunningWorker {
  server: http.Server;
  content: Content;
  metrics: WorkerMetrics;
  /** Null unless METRICS_CLOUDWATCH=1. */
  cloudwatch: CloudWatchPublisher | null;
  /** Stops accepting, lets in-flight requests finish within the grace period, closes the store. */
  drain(): Promise<void>;
}

/**
 * Where a worker listens. `exclusive` keeps the socket in this process instead of the
 * cluster's shared handle; `reusePort` lets every worker bind the same port (SO_REUSEPORT),
 * each with its own accept queue that the kernel fills in turn.
 */
export interface ListenTarget {
  port: number;
  host: string;
  exclusive: boolean;
  reusePort?: boolean;
}

/** How long a per-worker port may stay taken by the worker being replaced before start-up fails. */
const addressInUseRetryMs = 5_000;

/** One worker: the store, the app, and an HTTP server that listens with the configured backlog. */
export async function startWorker(config: Readonly<Config>, deps: { content?: Content; assets?: Assets; listen?: ListenTarget } = {}): Promise<RunningWorker> {
  const content = deps.content ?? (await openContent(config.content, config));
  const assets = deps.assets ?? loadAssets(config.distDir);
  const site = createSite({ config, content, assets });

  const server = http.createServer();
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.headersTimeout = config.headersTimeoutMs;

  // Responses not yet written, so a drain can tell their keep-alive clients the socket closes.
  const inFlight = new ResponsesInFlight();
  let draining = false;
  // Arrival: the one listener. The drain's bookkeeping first (some answers are written
  // synchronously inside the site's listener), then the site's pipeline (server/site.ts).
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.setHeader('Connection', 'close');
    inFlight.add(res);
    site.listener(req, res);
  });

  // Views are told apart from made-up ids by the published ids, read once at start: a worker
  // that listened before that read would drop the first beacons (and answer them 204).
  await site.ready;
  const target = deps.listen ?? { port: config.port, host: config.host, exclusive: false };
  await listen(server, target, config.listenBacklog);

  // Metrics readers, all off the request path: the CloudWatch flush timer and /metrics scrapes.
  const ledger = new MetricsLedger(site.metrics);
  const forCloudWatch = ledger.reader();
  const cloudwatch = startCloudWatch(
    config.metrics,
    () => {
      ledger.roll();
      const samples = workerSamples(forCloudWatch, process.memoryUsage());
      forCloudWatch.clear();
      return samples;
    },
    'worker',
  );
  if (config.metrics.port > 0) answerClusterScrapes(workerScrape(ledger, ledger.reader(), cloudwatch));

  async function drain() {
    if (draining) return;
    draining = true;
    const flushBy = Date.now() + config.shutdownGraceMs + flushMarginMs;
    // Every response from now on says "Connection: close", so a keep-alive client learns the
    // connection is ending from the answer itself instead of by sending into a closed socket.
    inFlight.forEachUnwritten((res) => res.setHeader('Connection', 'close'));
    // http.Server#close would also drop idle keep-alive sockets at once, racing any client that
    // is sending on one right now; stop listening only, and close idle sockets after a moment.
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    const idleSweep = setInterval(() => server.closeIdleConnections(), idleLingerMs);
    const grace = setTimeout(() => {
      log.warn('grace period over, closing remaining connections', { inFlight: inFlight.size });
      server.closeAllConnections();
    }, config.shutdownGraceMs);
    await closed;
    clearInterval(idleSweep);
    clearTimeout(grace);
    // After the last response and before the store closes: every view counted reaches it.
    try {
      await site.close();
    } catch (error) {
      log.error('flushing article views failed at shutdown', describeError(error));
    }
    try {
      await content.close();
    } catch (error) {
      log.error('closing the content store failed', describeError(error));
    }
    // After the last response, so the final flush counts every request.
    await cloudwatch?.close(flushBy - Date.now());
  }

  return { server, content, metrics: site.metrics, cloudwatch, drain };
}

function listenOnce(server: http.Server, target: ListenTarget, backlog: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const options: net.ListenOptions = { port: target.port, backlog, exclusive: target.exclusive, reusePort: target.reusePort ?? false };
    if (target.host) options.host = target.host;
    server.listen(options, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** A replacement worker can start before the kernel has released its predecessor's port: retry briefly. */
async function listen(server: http.Server, target: ListenTarget, backlog: number): Promise<void> {
  const deadline = Date.now() + (target.exclusive && !target.reusePort ? addressInUseRetryMs : 0);
  for (;;) {
    try {
      await listenOnce(server, target, backlog);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
