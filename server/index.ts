import cluster from 'node:cluster';
import fs from 'node:fs';
import { loadAssets } from './assets';
import { loadConfig, type Config } from './config';
import { contentStoreProblem } from './content/store-check';
import { describeError, log } from './log';
import { claimPorts, findPortOwner, isAddressInUse, listenPorts, portTakenExitCode, portTakenSentence } from './port-owner';
import { requestSlot, serveSlots } from './worker-slots';
import { startWorker, type ListenTarget } from './worker';

// Process policy lives here and nowhere else: one worker per core under throng, a worker
// that hits an unhandled error exits and is replaced, SIGTERM drains before exiting.
// What only the primary runs (throng, edge purge, last good index, metrics) is loaded with
// import(): a worker never evaluates it, nor the packages it needs (lodash, prom-client,
// postgres), so none of it sits in a worker's heap for every major collection to mark.

const config = loadConfig();

async function worker(id: number) {
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled rejection, exiting so the worker is replaced', { worker: id, ...describeError(reason) });
    process.exit(1);
  });
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception, exiting so the worker is replaced', { worker: id, ...describeError(error) });
    process.exit(1);
  });

  const listen: ListenTarget =
    config.listenMode === 'per-worker'
      ? { port: config.port + (await requestSlot()), host: config.host, exclusive: true, reusePort: false }
      : { port: config.port, host: config.host, exclusive: true, reusePort: true };
  let running;
  try {
    running = await startWorker(config, { listen });
  } catch (error) {
    // Something took the port after the primary's claim: say who, in the primary's words.
    if (!isAddressInUse(error)) throw error;
    log.error(portTakenSentence(listen.port, findPortOwner(listen.port)), { worker: id, port: listen.port });
    process.exit(portTakenExitCode);
  }
  log.info('worker listening', { worker: id, port: listen.port, host: listen.host || '*', listenMode: config.listenMode });

  // A deploy signals every process of the group at once (systemd's control-group kill) and
  // throng then forwards the same signal to each worker: a second signal must not cut the drain
  // short, as the default action of a once-handled SIGTERM would.
  let draining = false;
  const stop = (signal: string) => {
    if (draining) {
      log.info('already draining, signal ignored', { worker: id, signal });
      return;
    }
    draining = true;
    log.info('draining', { worker: id, signal });
    running.drain().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('drain failed', { worker: id, ...describeError(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function primary() {
  // Before any worker binds: a second Kiosk's reuse-port workers would join the first's port.
  const claim = await claimPorts(listenPorts(config), config.host);
  if (!claim.ok) {
    log.error(claim.sentence, { port: claim.port, ownerPid: claim.owner?.pid ?? null, ownerCommand: claim.owner?.command ?? null });
    process.exit(1);
  }
  // Fail here, once, rather than in every worker that throng would then revive in a loop.
  loadAssets(config.distDir);
  const storeProblem = contentStoreProblem(config);
  if (storeProblem !== null) throw new Error(storeProblem);
  // Before throng forks the workers: each gets its heap's bounds on its command line.
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, config) });
  if (config.listenMode === 'per-worker') {
    serveSlots(config.webConcurrency, (w) => {
      log.error('no free port slot for a new worker, stopping it', { pid: w.process.pid });
      w.kill();
    });
  }
  log.info('starting Kiosk', {
    workers: config.webConcurrency,
    listenMode: config.listenMode,
    ports: config.listenMode === 'per-worker' ? `${config.port}-${config.port + config.webConcurrency - 1}` : String(config.port),
    listenBacklog: config.listenBacklog,
    somaxconn: readSomaxconn(),
    host: config.host || '*',
    nodeEnv: config.nodeEnv,
    content: config.content.store === 'sqlite' ? config.content.path : config.content.store === 'newsroom-api' ? config.content.url : 'postgresql',
  });
  cluster.on('exit', (w, code, signal) => {
    if (code !== 0 || signal) log.warn('worker exited', { pid: w.process.pid, code, signal });
    // A first worker that cannot bind means the port went to someone else as this Kiosk started;
    // a replacement that cannot (one per-worker port taken) is revived as before, the rest serving.
    if (code === portTakenExitCode && w.id <= config.webConcurrency) process.exit(1);
  });
  const [{ startEdgePurge }, { startLastGoodPrimary }, { startPrimaryMetrics }] = await Promise.all([
    import('./edge/start'),
    import('./last-good/primary'),
    import('./metrics/primary'),
  ]);
  // The content change feed purges CloudFront from here, never from a request's path (server/edge/).
  const edge = startEdgePurge(config);
  // The one index of the workers' last good copies, before any worker can write one (server/last-good/).
  const lastGood = startLastGoodPrimary(config);
  // Worker restarts, host CPU and memory, edge purge, last good copies to CloudWatch; the cluster's /metrics on 127.0.0.1.
  const metrics = await startPrimaryMetrics(config, edge, lastGood);
  // throng passes these signals on to the workers; the primary sends its last numbers meanwhile.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // The workers stop listening as they start draining: a successor may claim the port now.
      claim.claim.release();
      // The sender's last call first (its numbers then go out with the last metrics).
      void (edge?.close(Math.min(5_000, config.shutdownGraceMs)) ?? Promise.resolve()).finally(() => metrics.close(config.shutdownGraceMs));
    });
  }
}

/**
 * A worker's Node flags: the primary's, with the young generation bounded, the old one's growth
 * between major collections, and V8's allocation-site pretenuring off. Render garbage dies young
 * either way; V8's default semi-space (64 MB on a large host) keeps up to three times that resident
 * per worker, which an 8 MB semi-space does not. What a request promotes waits in the old
 * generation for the next major collection; V8 lets it grow by up to several times what survived
 * the last one, a fixed 50% bounds that wait. Both with CPU per request within the host's noise
 * (docs/performance.md, "Memory"; docs/operations.md). Pretenuring, once a slow spell has made a
 * request's allocation sites look long-lived, sends every later request's objects to the old
 * generation: six times the growth, a major collection every few seconds (docs/performance.md,
 * "Where the stalls come from"). V8's memory reducer, which collects a worker that has gone 100 s
 * without a major collection, collects as the others do instead of compacting every page in its
 * final pause (61-75 ms against 7-27; docs/benchmarks/2026-11-29-memory-reducer.md).
 */
function workerExecArgv(
  primary: readonly string[],
  {
    workerSemiSpaceMb,
    workerHeapGrowingPercent,
    workerPretenuring,
    workerMemoryReducerFavorsMemory,
  }: Pick<Config, 'workerSemiSpaceMb' | 'workerHeapGrowingPercent' | 'workerPretenuring' | 'workerMemoryReducerFavorsMemory'>,
): string[] {
  const ours = [
    '--max-semi-space-size',
    '--heap-growing-percent',
    '--allocation-site-pretenuring',
    '--no-allocation-site-pretenuring',
    '--memory-reducer-favors-memory',
    '--no-memory-reducer-favors-memory',
  ];
  const kept = primary.filter((flag) => !ours.some((name) => flag === name || flag.startsWith(`${name}=`)));
  return [
    ...kept,
    ...(workerSemiSpaceMb > 0 ? [`--max-semi-space-size=${workerSemiSpaceMb}`] : []),
    ...(workerHeapGrowingPercent > 0 ? [`--heap-growing-percent=${workerHeapGrowingPercent}`] : []),
    ...(workerPretenuring ? [] : ['--no-allocation-site-pretenuring']),
    ...(workerMemoryReducerFavorsMemory ? [] : ['--no-memory-reducer-favors-memory']),
  ];
}

/** The kernel's cap on any listen backlog; logged so an operator sees when it undercuts LISTEN_BACKLOG. */
function readSomaxconn(): number | null {
  try {
    return Number(fs.readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());
  } catch {
    return null;
  }
}

/** Start-up failed in this process: say so and exit (a worker is then replaced by throng). */
function failedToStart(error: unknown): never {
  log.error('failed to start', describeError(error));
  process.exit(1);
}

// A worker runs its start function, as throng's own worker path does and nothing more; only the
// primary loads throng, and with it the whole of lodash, which throng requires for one
// defaultsDeep (about 6,000 objects and 3 MB of a warm worker's heap).
if (cluster.isWorker) {
  worker(cluster.worker!.id).catch(failedToStart);
} else {
  import('throng')
    .then(({ default: throng }) =>
      // throng awaits both functions (lib/throng.js), though its types declare them void.
      /* eslint-disable @typescript-eslint/no-misused-promises */
      throng({
        count: config.webConcurrency,
        worker,
        master: primary,
        signals: ['SIGTERM', 'SIGINT'],
        // throng kills workers still alive after this; give ours their grace period first.
        grace: config.shutdownGraceMs + 2_000,
      }),
    )
    /* eslint-enable @typescript-eslint/no-misused-promises */
    .catch(failedToStart);
}
