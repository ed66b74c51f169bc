import cluster from 'node:cluster';
import os from 'node:os';
import client from 'prom-client';
import type { Config } from '../config';
import type { EdgePurge } from '../edge/start';
import type { LastGoodCounts } from '../last-good/primary';
import { describeError, log } from '../log';
import { metricNames, startCloudWatch, type Sample } from './cloudwatch';
import { NginxFallbackLog } from './nginx-fallback';
import { serveClusterMetrics, type MetricsEndpoint } from './prometheus';

// What only the primary process knows: how often throng had to replace a worker, how many
// are alive, and the instance's CPU and memory (the chart the newsroom watched during stress
// tests; EC2 itself reports no memory). It also serves the cluster's /metrics.

export interface PrimaryMetrics {
  /** The /metrics port actually bound (METRICS_PORT), or null when off or it could not be bound. */
  port: number | null;
  /** Stops serving /metrics and sends what is left to CloudWatch within `withinMs`. */
  close(withinMs: number): Promise<void>;
}

/** CPU busy share of the whole host since the previous reading, from the kernel's per-CPU times. */
export class HostCpu {
  private last = HostCpu.times();

  private static times() {
    let idle = 0;
    let total = 0;
    for (const { times } of os.cpus()) {
      idle += times.idle;
      total += times.user + times.nice + times.sys + times.idle + times.irq;
    }
    return { idle, total };
  }

  /** Percent, 0–100; 0 when no time has passed. */
  utilizationPercent(): number {
    const now = HostCpu.times();
    const total = now.total - this.last.total;
    const idle = now.idle - this.last.idle;
    this.last = now;
    return total > 0 ? Math.min(100, Math.max(0, (100 * (total - idle)) / total)) : 0;
  }
}

/** Memory in use on the host, percent. Node's freemem() is the kernel's MemAvailable: page cache counts as free. */
export function hostMemoryPercent(): number {
  return (100 * (os.totalmem() - os.freemem())) / os.totalmem();
}

/** Call from throng's master function, before the first fork. */
/** What a primary knows of the edge purge: its counts, and whether it is the fleet's sender now. */
export type EdgeReadings = Pick<EdgePurge, 'tagsSent' | 'failures' | 'lagS' | 'sending'> & Partial<Pick<EdgePurge, 'budgetLeft'>>;

/**
 * The edge purge's samples for one publication: tags sent and failed calls since the last, from
 * every primary (zero where nothing purges), and the lag from the sender alone. A stand-by that
 * said "0" would hide a fleet where no one sends; silence is what the lag alarm pages on.
 */
export function edgeSamplesOf(edge: EdgeReadings | null, now: { tags: number; failures: number }, sent: { tags: number; failures: number }): Sample[] {
  const samples: Sample[] = [
    { name: metricNames.edgePurgeTags, unit: 'Count', value: now.tags - sent.tags },
    { name: metricNames.edgePurgeFailures, unit: 'Count', value: now.failures - sent.failures },
  ];
  if (edge?.sending) samples.push({ name: metricNames.edgePurgeLag, unit: 'Seconds', value: edge.lagS() });
  // The paths the purge budget lets the sender spend now (none without a budget): at 0, changes wait.
  const budgetLeft = edge?.sending ? (edge.budgetLeft?.() ?? null) : null;
  if (budgetLeft !== null) samples.push({ name: metricNames.edgePurgeBudgetLeft, unit: 'Count', value: Math.floor(budgetLeft) });
  return samples;
}

/** The last good copies' samples for one publication: written, purged and swept since the last, and on disk now (zeros when off). */
export function lastGoodSamplesOf(
  now: { written: number; purged: number; swept: number },
  sent: { written: number; purged: number; swept: number },
  onDisk: number,
): Sample[] {
  return [
    { name: metricNames.lastGoodWritten, unit: 'Count', value: now.written - sent.written },
    { name: metricNames.lastGoodPurged, unit: 'Count', value: now.purged - sent.purged },
    { name: metricNames.lastGoodSwept, unit: 'Count', value: now.swept - sent.swept },
    { name: metricNames.lastGoodCopies, unit: 'Count', value: onDisk },
  ];
}

export async function startPrimaryMetrics(
  config: Readonly<Config>,
  edge: EdgeReadings | null = null,
  lastGood: LastGoodCounts | null = null,
): Promise<PrimaryMetrics> {
  let forks = 0;
  let restarts = 0;
  let restartsUnsent = 0;
  cluster.on('fork', () => {
    forks += 1;
    // throng forks WEB_CONCURRENCY workers at start; every fork after those replaces one that died.
    if (forks > config.webConcurrency) {
      restarts += 1;
      restartsUnsent += 1;
    }
  });
  const liveWorkers = () => Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead()).length;

  const registry = new client.Registry();
  new client.Counter({
    name: 'kiosk_worker_restarts_total',
    help: 'Workers throng started again after one exited',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(restarts);
    },
  });
  new client.Gauge({
    name: 'kiosk_workers',
    help: 'Worker processes alive',
    registers: [registry],
    collect() {
      this.set(liveWorkers());
    },
  });

  // Nginx's own fallback answers, read every few seconds so the file stays small during a flood.
  const fallback = config.nginxFallbackLog ? new NginxFallbackLog(config.nginxFallbackLog) : null;
  const fallbackTimer = fallback ? setInterval(() => fallback.read(), 5_000).unref() : null;
  let fallbackSent = { lastGood: 0, shell: 0, busy503: 0, limited: 0 };
  new client.Counter({
    name: 'kiosk_nginx_fallback_answers_total',
    help: 'Answers Nginx gave itself because every worker was at its limit (or none was up): a page from its last good copy, the shell, the API 503; or a client was over its share of a write path (429), by answer',
    labelNames: ['answer'],
    registers: [registry],
    collect() {
      this.reset();
      if (!fallback) return;
      const totals = fallback.read();
      this.inc({ answer: 'last-good' }, totals.lastGood);
      this.inc({ answer: 'shell' }, totals.shell);
      this.inc({ answer: '503' }, totals.busy503);
      this.inc({ answer: '429' }, totals.limited);
    },
  });

  // Edge purge (server/edge/): every primary counts tags and failures (zero where it does not
  // purge); only the sender reports a lag, so a fleet with no sender goes silent (edgeSamples).
  new client.Counter({
    name: 'kiosk_edge_purge_tags_total',
    help: 'Cache tags (and paths) sent in accepted CloudFront CreateInvalidation calls',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(edge?.tagsSent ?? 0);
    },
  });
  new client.Counter({
    name: 'kiosk_edge_purge_failures_total',
    help: 'CloudFront CreateInvalidation calls that failed (each is retried with the changes since)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(edge?.failures ?? 0);
    },
  });
  new client.Gauge({
    name: 'kiosk_edge_purge_lag_seconds',
    help: 'Age of the oldest content change no accepted CreateInvalidation covers yet; 0 when none',
    registers: [registry],
    collect() {
      this.set(edge?.lagS() ?? 0);
    },
  });
  new client.Gauge({
    name: 'kiosk_edge_purge_budget_paths',
    help: 'Invalidation paths the purge budget (EDGE_PURGE_MONTHLY_PATHS) lets the sender spend now; absent without a budget or on a stand-by',
    registers: [registry],
    collect() {
      this.reset();
      const left = edge?.sending ? (edge.budgetLeft?.() ?? null) : null;
      if (left !== null) this.set(Math.floor(left));
    },
  });
  let edgeSent = { tags: 0, failures: 0 };

  // Last good copies (server/last-good/): what the workers wrote and the primary removed, and what is on disk.
  new client.Counter({
    name: 'kiosk_last_good_copies_total',
    help: 'Last good copies of pages: written by the workers, purged by a content change, swept (older than LAST_GOOD_SECONDS, or past LAST_GOOD_MAX_COPIES)',
    labelNames: ['event'],
    registers: [registry],
    collect() {
      this.reset();
      if (!lastGood) return;
      this.inc({ event: 'written' }, lastGood.written);
      this.inc({ event: 'purged' }, lastGood.purged);
      this.inc({ event: 'swept' }, lastGood.swept);
    },
  });
  new client.Gauge({
    name: 'kiosk_last_good_copies',
    help: 'Last good copies of pages on disk, as the primary indexes them',
    registers: [registry],
    collect() {
      this.set(lastGood?.onDisk ?? 0);
    },
  });
  let lastGoodSent = { written: 0, purged: 0, swept: 0 };

  const cpu = new HostCpu();
  const publisher = startCloudWatch(
    config.metrics,
    (): Sample[] => {
      const sent = restartsUnsent;
      restartsUnsent = 0;
      // Zero without Nginx in front: the series is always there, so its alarm has data.
      const fallbackNow = fallback ? { ...fallback.read() } : fallbackSent;
      const fallbackSamples: Sample[] = [
        { name: metricNames.nginxLastGood, unit: 'Count', value: fallbackNow.lastGood - fallbackSent.lastGood },
        { name: metricNames.nginxShell, unit: 'Count', value: fallbackNow.shell - fallbackSent.shell },
        { name: metricNames.nginxBusy503, unit: 'Count', value: fallbackNow.busy503 - fallbackSent.busy503 },
        { name: metricNames.nginxRateLimited, unit: 'Count', value: fallbackNow.limited - fallbackSent.limited },
      ];
      fallbackSent = fallbackNow;
      const edgeNow = { tags: edge?.tagsSent ?? 0, failures: edge?.failures ?? 0 };
      const edgeSamples = edgeSamplesOf(edge, edgeNow, edgeSent);
      edgeSent = edgeNow;
      const lastGoodNow = { written: lastGood?.written ?? 0, purged: lastGood?.purged ?? 0, swept: lastGood?.swept ?? 0 };
      const lastGoodSamples = lastGoodSamplesOf(lastGoodNow, lastGoodSent, lastGood?.onDisk ?? 0);
      lastGoodSent = lastGoodNow;
      return [
        ...edgeSamples,
        ...lastGoodSamples,
        ...fallbackSamples,
        { name: metricNames.workerRestarts, unit: 'Count', value: sent },
        { name: metricNames.workers, unit: 'Count', value: liveWorkers() },
        { name: metricNames.heartbeat, unit: 'Count', value: 1 },
        { name: metricNames.hostCpu, unit: 'Percent', value: cpu.utilizationPercent() },
        { name: metricNames.hostMemory, unit: 'Percent', value: hostMemoryPercent() },
      ];
    },
    'primary',
  );

  let endpoint: MetricsEndpoint | null = null;
  if (config.metrics.port > 0) {
    try {
      endpoint = await serveClusterMetrics(config.metrics.port, registry);
      log.info('serving /metrics', { url: `http://127.0.0.1:${endpoint.port}/metrics` });
    } catch (error) {
      // The site matters more than its metrics: say so and carry on without /metrics.
      log.error('could not serve /metrics', { port: config.metrics.port, ...describeError(error) });
    }
  }

  return {
    port: endpoint?.port ?? null,
    async close(withinMs) {
      if (fallbackTimer) clearInterval(fallbackTimer);
      await Promise.all([endpoint?.close(), publisher?.close(withinMs)]);
    },
  };
}
