import { workerCounters, workerDistributions } from '@kiosk/surface';
import type { NativeGenerator, PoolStats, StepCounts } from './native-generator';
import { coreTimes, corePercents, CpuMeter, netCounters, netdevMaxBacklog, rssBytes, ThreadMeter, type NetCounters } from './proc';
import { serverCore, type ServerUnderTest } from './processes';

export interface StepTiming {
  warmupS: number;
  durationS: number;
  timeoutMs: number;
  maxConnections: number;
}

export interface StepRecord extends StepCounts {
  label: string;
  server: string;
  pool: PoolStats;
  /** Failures among the warm-up's requests; they may have held connections into the window. */
  warmup: { timeouts: number; errors: number; non2xx: number; p99Ms: number };
  serverCpuPct: number;
  generatorCpuPct: number;
  peakRssMb: number;
  /** Busy share of the server's core spent neither by the server nor in interrupts: other processes. */
  serverCoreOtherPct: number;
  /** Interrupt and softirq share of the server's core (network processing outside any process). */
  serverCoreKernelPct: number;
  stealPct: number;
  flags: StepFlag[];
  /** What the worker's content cache did over the measured window; absent where the server serves no /metrics. */
  content?: ContentWork | null;
  /** The worker's garbage collections and event-loop stalls over the window; absent where the server serves no /metrics. */
  pauses?: Pauses | null;
  /**
   * Over the window, in percent of one core: the CPU of the workers' V8 helper threads (concurrent
   * marking and sweeping, compiling) and the time their main threads were ready to run but waited
   * for a core. On one core the helpers take it from the main thread, and a stall with little
   * work done in it is that wait. Absent in results recorded before it was read; null where
   * there is no worker (the references).
   */
  threads?: { helperCpuPct: number; mainWaitPct: number } | null;
  /**
   * Time the workers spent writing last good copies over the window, in ms (LastGoodWriteTime,
   * server/last-good/budget.ts); absent where the server serves no /metrics or counts no such time.
   */
  lastGoodWriteMs?: number | null;
  /**
   * The worker's own response times over the window (kiosk_response_seconds: from its handler
   * taking the request, the guard's queue included, to the response finishing), as upper bounds
   * of the histogram's buckets (each twice the one before): the generator's figure less this is
   * what a request waited before the worker read it from its socket. Absent in results recorded
   * before it was read; null where not read.
   */
  serverResponseMs?: { p99: number; max: number } | null;
  /**
   * What the kernel dropped and TCP sent again over the window, the whole machine's (proc.ts's
   * NetCounters): a dropped packet is sent again 200 ms or more later, so a window with drops can
   * miss a p99 the worker's own response times met. Absent in results recorded before it was read.
   */
  net?: NetCounters;
}

/** Memory and pauses over a window, as the worker's /metrics says (server/metrics/catalog.ts). */
export interface Pauses {
  majorGcs: number;
  /** Their durations added up. */
  majorGcMs: number;
  /** The longest, to within the histogram's bucket (about 19%, upwards). */
  longestMajorGcMs: number;
  /** The longest event-loop stall: the highest 500 ms window's delay, to within a bucket (about 19%, upwards). */
  longestStallMs: number;
  /** The V8 heap right after the last major collection as the window closed: what the worker keeps. */
  heapAfterGcMb: number;
}

/** A histogram's cumulative buckets (upper bound in ms → count), its count and its sum in ms. */
export interface Buckets {
  le: [number, number][];
  count: number;
  sumMs: number;
}

/** What the bench reads from the cluster's /metrics at each window's opening and closing. */
export interface Readings {
  content: ContentWork;
  majorGc: Buckets;
  stall: Buckets;
  /** Absent in a reading from a build that serves no response-time histogram. */
  response?: Buckets;
  heapAfterGcBytes: number;
  /** NaN (or absent) where the build counts no such time. */
  lastGoodWriteMs?: number;
}

function bucketsOf(text: string, series: string): Buckets {
  const le: [number, number][] = [];
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${series}_bucket\\{le="([^"]+)"\\} (\\S+)$`).exec(line);
    if (match && match[1] !== '+Inf') le.push([Number(match[1]) * 1_000, Number(match[2])]);
  }
  return { le, count: valueOf(text, `${series}_count`), sumMs: valueOf(text, `${series}_sum`) * 1_000 };
}

function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

/** The largest observation between two readings: the first bucket that holds all of them. */
function longestBetween(opened: Buckets, closed: Buckets): number {
  const observed = closed.count - opened.count;
  if (!(observed > 0)) return 0;
  for (const [i, [le, count]] of closed.le.entries()) if (count - (opened.le[i]?.[1] ?? 0) >= observed) return le;
  return Number.POSITIVE_INFINITY;
}

/**
 * The upper bound of the bucket that holds the `q` quantile (0–1) of the observations between two
 * readings: NaN with none, Infinity past the last bucket. Buckets are matched by their bound, not
 * their place: a histogram that prints only the buckets it has filled may print more later.
 */
export function quantileBetween(opened: Buckets, closed: Buckets, q: number): number {
  const observed = closed.count - opened.count;
  if (!(observed > 0)) return Number.NaN;
  const before = new Map(opened.le);
  let below = 0;
  for (const [le, count] of closed.le) {
    // A bucket not printed at the opening held what the largest bucket under its bound held.
    if (before.has(le)) below = before.get(le)!;
    else for (const [l, c] of opened.le) if (l < le) below = c;
    if (count - below >= q * observed) return le;
  }
  return Number.POSITIVE_INFINITY;
}

/** The worker's own p99 and longest response between two readings; null where either reading has none. */
export function serverResponseBetween(opened: Readings, closed: Readings): { p99: number; max: number } | null {
  if (!opened.response || !closed.response) return null;
  return { p99: quantileBetween(opened.response, closed.response, 0.99), max: quantileBetween(opened.response, closed.response, 1) };
}

/** Memory and pauses between two readings. */
export function pausesBetween(opened: Readings, closed: Readings): Pauses {
  return {
    majorGcs: closed.majorGc.count - opened.majorGc.count,
    majorGcMs: closed.majorGc.sumMs - opened.majorGc.sumMs,
    longestMajorGcMs: longestBetween(opened.majorGc, closed.majorGc),
    longestStallMs: longestBetween(opened.stall, closed.stall),
    heapAfterGcMb: closed.heapAfterGcBytes / 1_048_576,
  };
}

/** The content cache's counters over a window (server/metrics/catalog.ts's contentStoreReads, contentRebuilt, contentPreviousServed). */
export interface ContentWork {
  /** Reads sent to the store: what a change dropped, a first read, an eviction. */
  storeReads: number;
  /** Kept answers read again because a change made them stale. */
  rebuilt: number;
  /** Lists handed out as they were to readers who came while a change's read was in flight; absent in records before 2026-11-27 19:00. */
  previous?: number;
}

/** The worker's counters as the cluster's /metrics gives them now; null when it does not answer. */
export async function workerReadings(metricsPort: number): Promise<Readings | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) return null;
    const text = await response.text();
    const content = {
      storeReads: valueOf(text, workerCounters.contentStoreReads.prometheus),
      rebuilt: valueOf(text, workerCounters.contentRebuilt.prometheus),
      previous: valueOf(text, workerCounters.contentPreviousServed.prometheus),
    };
    if (!Number.isFinite(content.storeReads) || !Number.isFinite(content.rebuilt)) return null;
    return {
      content,
      majorGc: bucketsOf(text, workerDistributions.majorGcMs.prometheus),
      stall: bucketsOf(text, workerDistributions.eventLoopDelayMs.prometheus),
      response: bucketsOf(text, workerDistributions.responseMs.prometheus),
      heapAfterGcBytes: valueOf(text, 'kiosk_heap_after_gc_bytes'),
      lastGoodWriteMs: valueOf(text, workerCounters.lastGoodWriteMs.prometheus) * 1_000,
    };
  } catch {
    return null;
  }
}

const rssEveryMs = 200;
export const saturatedCpuPct = 90;
export const sentShortfall = 0.95;

/** One step against one server, with the server's and the generator's CPU over the window. */
export async function measureStep(
  generator: NativeGenerator,
  server: ServerUnderTest,
  label: string,
  ratePerS: number,
  timing: StepTiming,
  /** Called too as the measured window opens and closes (after the warm-up; at its end). */
  onWindowToo?: (phase: 'measuring' | 'measured') => void,
): Promise<StepRecord> {
  let peakRss = 0;
  const sampleRss = () =>
    (peakRss = Math.max(
      peakRss,
      server.pids().reduce((sum, pid) => sum + rssBytes(pid), 0),
    ));
  sampleRss();
  const rssTimer = setInterval(sampleRss, rssEveryMs);

  let meters: { server: CpuMeter; generator: CpuMeter; threads: ThreadMeter; cores: ReturnType<typeof coreTimes>; net: NetCounters } | null = null;
  let net: NetCounters | undefined;
  let threads: StepRecord['threads'] = null;
  let usage = {
    serverCpuPct: Number.NaN,
    generatorCpuPct: Number.NaN,
    serverCoreOtherPct: Number.NaN,
    serverCoreKernelPct: Number.NaN,
    stealPct: Number.NaN,
  };
  // Read as the window opens and closes (the primary answers; the worker's share is a few fields).
  const counted: Partial<Record<'measuring' | 'measured', Promise<Readings | null>>> = {};
  const onWindow = (phase: 'measuring' | 'measured') => {
    onWindowToo?.(phase);
    if (server.metricsPort !== undefined) counted[phase] = workerReadings(server.metricsPort);
    if (phase === 'measuring') {
      meters = {
        server: new CpuMeter(server.pids),
        generator: new CpuMeter(() => [generator.pid]),
        threads: new ThreadMeter(server.workerPids),
        cores: coreTimes(),
        net: netCounters(),
      };
    } else if (meters) {
      const serverCpuPct = meters.server.percent();
      const now = netCounters();
      net = { backlogDrops: now.backlogDrops - meters.net.backlogDrops, retransSegs: now.retransSegs - meters.net.retransSegs };
      threads = meters.threads.percents();
      const cores = corePercents(meters.cores, coreTimes());
      const core = cores[serverCore] ?? { busy: Number.NaN, kernel: Number.NaN, steal: Number.NaN };
      usage = {
        serverCpuPct,
        generatorCpuPct: meters.generator.percent(),
        serverCoreOtherPct: Math.max(0, core.busy - core.kernel - serverCpuPct),
        serverCoreKernelPct: core.kernel,
        stealPct: Math.max(...cores.map((c) => c.steal)),
      };
    }
  };

  try {
    const result = await generator.run({ host: '127.0.0.1', port: server.port, ratePerS, ...timing }, onWindow);
    sampleRss();
    const record: StepRecord = {
      label,
      server: server.name,
      ...result.counts,
      pool: result.pool,
      warmup: {
        timeouts: result.warmup.timeouts,
        errors: result.warmup.errors,
        non2xx: result.warmup.non2xx,
        p99Ms: result.warmup.latencyMs.p99,
      },
      ...usage,
      peakRssMb: peakRss / 1_048_576,
      threads,
      flags: [],
    };
    if (net) record.net = net;
    if (server.metricsPort !== undefined) {
      const [opened, closed] = await Promise.all([counted.measuring ?? null, counted.measured ?? null]);
      record.content =
        opened && closed
          ? {
              storeReads: closed.content.storeReads - opened.content.storeReads,
              rebuilt: closed.content.rebuilt - opened.content.rebuilt,
              previous: (closed.content.previous ?? Number.NaN) - (opened.content.previous ?? Number.NaN),
            }
          : null;
      record.pauses = opened && closed ? pausesBetween(opened, closed) : null;
      record.serverResponseMs = opened && closed ? serverResponseBetween(opened, closed) : null;
      const writeMs = opened && closed ? (closed.lastGoodWriteMs ?? Number.NaN) - (opened.lastGoodWriteMs ?? Number.NaN) : Number.NaN;
      record.lastGoodWriteMs = Number.isFinite(writeMs) ? writeMs : null;
    }
    record.flags = stepFlags(record, timing.maxConnections);
    return record;
  } finally {
    clearInterval(rssTimer);
  }
}

/** The capacity definition: p99 under 100 ms, nothing failed, and the rate was really sent. */
export function passes(step: StepRecord): boolean {
  return step.latencyMs.p99 < 100 && step.errors === 0 && step.timeouts === 0 && step.non2xx === 0 && step.sentPerS >= 0.95 * step.offeredPerS;
}

export type FlagKind =
  'sent-short' | 'generator-saturated' | 'waited-for-connection' | 'slow-connects' | 'warmup-failures' | 'other-processes' | 'steal' | 'dropped-packets';

export interface StepFlag {
  kind: FlagKind;
  text: string;
}

function flagged(step: StepRecord, kind: FlagKind): boolean {
  return step.flags.some((f) => f.kind === kind);
}

/** The generator itself could not keep up: the step's figures describe it, not the server. */
export function generatorFellShort(step: StepRecord): boolean {
  return flagged(step, 'generator-saturated') || (flagged(step, 'sent-short') && !flagged(step, 'waited-for-connection'));
}

/**
 * Every connection was held by an unanswered request, so arrivals waited in the generator:
 * the rate was not offered on the wire. That is the server holding connections, not the
 * generator running out of CPU.
 */
export function connectionsExhausted(step: StepRecord): boolean {
  return flagged(step, 'waited-for-connection');
}

/** Something besides our server and generator took CPU the step needed. */
export function disturbed(step: StepRecord): boolean {
  return step.flags.some((f) => f.kind === 'other-processes' || f.kind === 'steal');
}

const busyServerCpuPct = 80;

/**
 * A failure worth a second look: the machine was disturbed, or the server was not even busy,
 * so a collection pause or a neighbour's burst is likelier than the server's limit.
 */
export function doubtfulFailure(step: StepRecord): boolean {
  return !passes(step) && (disturbed(step) || step.serverCpuPct < busyServerCpuPct);
}

export function stepFlags(step: StepRecord, maxConnections: number): StepFlag[] {
  const flags: StepFlag[] = [];
  const flag = (kind: FlagKind, text: string) => flags.push({ kind, text });
  if (step.sentPerS < step.offeredPerS * sentShortfall) flag('sent-short', `sent ${Math.round((100 * step.sentPerS) / step.offeredPerS)}% of offered`);
  if (step.generatorCpuPct > saturatedCpuPct) flag('generator-saturated', `generator saturated (${Math.round(step.generatorCpuPct)}% CPU)`);
  if (step.pool.waitedForConnection > 0) {
    flag('waited-for-connection', `${step.pool.waitedForConnection} requests waited for one of the ${maxConnections} connections`);
  }
  if (step.pool.connectMs.max >= 1000) flag('slow-connects', `connects up to ${Math.round(step.pool.connectMs.max)} ms (SYN retries)`);
  const w = step.warmup;
  if (w.timeouts + w.errors > 0) flag('warmup-failures', `warm-up: ${w.timeouts} timeouts, ${w.errors} errors`);
  const other = otherProcessesFlag(step.serverCoreOtherPct);
  if (other) flags.push(other);
  if (step.stealPct > 10) flag('steal', `${Math.round(step.stealPct)}% steal`);
  if ((step.net?.backlogDrops ?? 0) > 0) {
    const limit = netdevMaxBacklog();
    flag(
      'dropped-packets',
      `the kernel dropped ${step.net!.backlogDrops} packets at a full input queue${limit ? ` (netdev_max_backlog ${limit})` : ''} and TCP sent ${step.net!.retransSegs} segments again, each 200 ms or more late`,
    );
  }
  return flags;
}

/** More than this share of the server's core taken by processes not the server's flags a step. */
const otherProcessesPct = 10;

function otherProcessesFlag(otherPct: number): StepFlag | null {
  return otherPct > otherProcessesPct ? { kind: 'other-processes', text: `other processes took ${Math.round(otherPct)}% of core ${serverCore}` } : null;
}

/**
 * A step run at once with `partner`, another server on the same core by design: its "other
 * processes" less the partner's own CPU (the two windows open and close within milliseconds of
 * each other), and its flag for them again from that.
 */
export function sharedCore(step: StepRecord, partner: StepRecord): StepRecord {
  const serverCoreOtherPct = Math.max(0, step.serverCoreOtherPct - partner.serverCpuPct);
  const other = otherProcessesFlag(serverCoreOtherPct);
  const flags = step.flags.filter((f) => f.kind !== 'other-processes');
  return { ...step, serverCoreOtherPct, flags: other ? [...flags, other] : flags };
}

/** Waits until the server is idle again, so one step's backlog is not charged to the next. */
export async function settle(server: ServerUnderTest, maxMs = 30_000): Promise<number> {
  const start = performance.now();
  for (;;) {
    const meter = new CpuMeter(server.pids);
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (meter.percent() < 5 || performance.now() - start > maxMs) break;
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  return performance.now() - start;
}
