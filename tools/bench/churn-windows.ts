// The bench's churn rounds alone (churn.ts), on SQLite or PostgreSQL, at a rate given: windows
// without and with one CMS push a second, the order alternating round by round, each with the
// generator's p50/p90/p99/max beside the worker's own response times, busy share, longest stall,
// major collections and what the content cache read. The whole bench takes 20–25 minutes to
// reach these rounds, and on this host one run's windows at 90% of capacity cannot tell a push's
// cost from the host's moods (docs/benchmarks/2026-11-27-churn-windows.md); this runs as many
// rounds as asked in a few minutes. Not part of `npm run bench`: it answers one question, where a
// window's slow answers come from.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { postgresBinDir, readCommandLine, runCommand, seedPostgres, startCluster, UsageError, wholeNumberFlag, type Cluster } from '@kiosk/surface';
import { articlePaths, seedBenchStore } from './articles';
import { churnToken, passSeconds, startPushing, type Push } from './churn';
import { measureStep, settle, type StepRecord, type StepTiming } from './measure';
import { NativeGenerator, nativeGeneratorBinary } from './native-generator';
import { killChildren, pinToGeneratorCore, startKiosk } from './processes';
import { ms, perS, serverResponse, serverResponseHeading } from './report';

const usage = `Usage: npx tsx tools/bench/churn-windows.ts --rate R [options]

Runs the bench's churn rounds alone: Kiosk's built server (one worker, core 0, the fallback
off) over the bench's 10,000 seeded articles, the load generator on core 1, a warm-up pass at
the rate, then rounds of two windows, without pushes and with one CMS push a second (the order
alternating), each after a pass over every article at the rate. Prints one markdown row per
window: the generator's p50 / p90 / p99 / max, the worker's own p99 / max (its response-time
histogram: from its handler taking a request, its queue included, to the answer finishing),
the server's busy share, the host's steal, the packets the kernel dropped at a full input queue
and the TCP segments it sent again (each 200 ms or more late), the longest event-loop stall,
major collections,
and the content cache's store reads / answers read again / lists handed out as they were. Needs a build (npm run
build) and the machine to itself.

Options:
  --rate R            requests a second offered (required: the bench's rounds run at 90% of
                      the capacity it found, e.g. --rate 830 where it found 920)
  --store NAME        sqlite or postgres (a throwaway cluster on core 1; default sqlite)
  --rounds N          rounds of two windows (default 3)
  --window-seconds N  measured seconds per window (default 8, the bench's)
  --trace-gc          start the server with V8's --trace-gc-nvp and add a column: what the
                      worker's scavenges promoted to the old generation during the window, in
                      KB/s (what brings the next major collection; a mark-compact's own figure,
                      the young generation it moves, is left out). The trace costs the worker a
                      line of output per collection.
  --out DIR           where the rows (windows.md), each window's record (windows.json), the
                      server's output (kiosk.log) and, with PostgreSQL, the cluster's log
                      (postgres.log: statements over 250 ms, lock waits, autovacuum runs,
                      checkpoints) go (default bench-results/churn-windows-<time>)
  -h, --help          show this help`;

const command = { name: 'churn-windows', usage };

interface Options {
  rate: number;
  store: 'sqlite' | 'postgres';
  rounds: number;
  windowS: number;
  /** null: bench-results/churn-windows-<time> under the repository. */
  out: string | null;
  /** The worker traced (--trace-gc-nvp) and each window's promotion reported. */
  traceGc: boolean;
}

/** The options, or the exit code where the command line was --help (0) or refused (2). */
export function readOptions(args: string[]): Options | number {
  const line = readCommandLine({
    ...command,
    args,
    options: {
      rate: { type: 'string' },
      store: { type: 'string' },
      rounds: { type: 'string' },
      'window-seconds': { type: 'string' },
      out: { type: 'string' },
      'trace-gc': { type: 'boolean' },
    },
  });
  if (!line.ok) return line.exitCode;
  const rate = wholeNumberFlag('--rate', line.values.rate, 10, 100_000);
  if (rate === null) throw new UsageError('--rate is required: the rate the windows are offered, in requests a second');
  const store = line.values.store ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres') throw new UsageError(`--store must be sqlite or postgres, got "${store}"`);
  return {
    rate,
    store,
    rounds: wholeNumberFlag('--rounds', line.values.rounds, 1, 50) ?? 3,
    windowS: wholeNumberFlag('--window-seconds', line.values['window-seconds'], 2, 120) ?? 8,
    out: line.values.out ?? null,
    traceGc: line.values['trace-gc'] === true,
  };
}

/**
 * What one process's scavenges promoted, from V8's --trace-gc-nvp lines as they come ("[pid:…]
 * … gc=s … promoted=N …"): a running total of bytes and scavenges. Lines of other processes (the
 * primary's), and mark-compacts, whose figure is the young generation they move, are left out.
 */
export class ScavengeTrace {
  bytes = 0;
  scavenges = 0;

  constructor(private readonly pid: () => number | undefined) {}

  read(line: string): void {
    const pid = this.pid();
    if (pid === undefined || !line.startsWith(`[${pid}:`) || !line.includes(' gc=s ')) return;
    const promoted = /\bpromoted=(\d+)/.exec(line);
    if (promoted === null) return;
    this.bytes += Number(promoted[1]);
    this.scavenges += 1;
  }
}

/** A window's promotion: what the scavenges promoted between its opening and closing, a second. */
export interface WindowPromotion {
  kbPerS: number;
  scavenges: number;
}

/** Reads `trace` as a window opens and closes (measureStep's window hook); `result()` is null before it closed. */
export function windowPromotion(trace: ScavengeTrace, now: () => number = () => performance.now()) {
  let opened: { bytes: number; scavenges: number; at: number } | null = null;
  let result: WindowPromotion | null = null;
  return {
    onWindow(phase: 'measuring' | 'measured'): void {
      if (phase === 'measuring') opened = { bytes: trace.bytes, scavenges: trace.scavenges, at: now() };
      else if (opened !== null) {
        const seconds = (now() - opened.at) / 1000;
        result = { kbPerS: seconds > 0 ? (trace.bytes - opened.bytes) / 1024 / seconds : Number.NaN, scavenges: trace.scavenges - opened.scavenges };
      }
    },
    result: (): WindowPromotion | null => result,
  };
}

/** The rows' heading; with --trace-gc, one more column. */
export function heading(traceGc: boolean): string {
  return (
    `| round | window | offered | p50 / p90 / p99 / max ms | ${serverResponseHeading} | failed (errors / timeouts / non-2xx) | server busy | steal | packets dropped / TCP segments sent again | longest stall ms | major GCs (longest ms) | store reads / read again / lists as they were | pushes taken, seen after at most ms |${traceGc ? ' promoted by scavenges, KB/s (scavenges) |' : ''}\n` +
    `| ---: | --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |${traceGc ? ' ---: |' : ''}`
  );
}

/** One window's row; `promotion` given (null when the trace said nothing) adds --trace-gc's column. */
export function windowRow(round: number, pushing: boolean, step: StepRecord, pushes: readonly Push[], promotion?: WindowPromotion | null): string {
  const l = step.latencyMs;
  const p = step.pauses;
  const c = step.content;
  const taken = pushes.filter((push) => push.status === 200 || push.status === 201);
  const seen = taken.map((push) => push.visibleMs ?? Number.POSITIVE_INFINITY);
  return (
    `| ${round} | ${pushing ? 'one push a second' : 'no pushes'} | ${perS(step.offeredPerS)} | ${ms(l.p50)} / ${ms(l.p90)} / ${ms(l.p99)} / ${ms(l.max)} | ${serverResponse(step)} | ` +
    `${step.errors} / ${step.timeouts} / ${step.non2xx} | ` +
    `${Math.round(step.serverCpuPct)}% | ${step.stealPct.toFixed(1)}% | ${step.net ? `${step.net.backlogDrops} / ${step.net.retransSegs}` : '–'} | ${p ? ms(p.longestStallMs) : '–'} | ${p ? `${p.majorGcs} (${ms(p.longestMajorGcMs)})` : '–'} | ` +
    `${c ? `${c.storeReads} / ${c.rebuilt} / ${c.previous ?? '–'}` : '–'} | ${pushing ? `${taken.length} of ${pushes.length}, ${seen.length ? ms(Math.max(...seen)) : '–'}` : '–'} |` +
    (promotion === undefined ? '' : promotion === null ? ' – |' : ` ${Math.round(promotion.kbPerS).toLocaleString('en-US')} (${promotion.scavenges}) |`)
  );
}

/**
 * What the throwaway cluster logs besides errors, for a window whose answers waited on the store:
 * every statement over 250 ms, lock waits, autovacuum runs and checkpoints (copied to postgres.log).
 */
const clusterLogging = ['log_min_duration_statement = 250', 'log_lock_waits = on', 'log_autovacuum_min_duration = 0', 'log_checkpoints = on'];

function logMore(cluster: Cluster): void {
  const psql = path.join(postgresBinDir(), 'psql');
  for (const setting of clusterLogging) {
    const [name, value] = setting.split(' = ');
    spawnSync(psql, [cluster.url, '-v', 'ON_ERROR_STOP=1', '-c', `ALTER SYSTEM SET ${name} = '${value}'`], { stdio: 'ignore' });
  }
  spawnSync(psql, [cluster.url, '-c', 'SELECT pg_reload_conf()'], { stdio: 'ignore' });
}

async function withStore<T>(store: Options['store'], out: string, work: (dbPath: string, env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-churn-windows-'));
  let cluster: Cluster | null = null;
  try {
    const dbPath = path.join(dir, 'kiosk.sqlite');
    console.error('churn-windows: seeding the bench’s articles');
    await seedBenchStore(dbPath);
    if (store === 'postgres') {
      cluster = await startCluster({ migrate: true });
      pinToGeneratorCore(cluster.processes());
      await seedPostgres(cluster.url, {});
      logMore(cluster);
    }
    return await work(dbPath, cluster ? { CONTENT_DATABASE_URL: cluster.url } : {});
  } finally {
    if (cluster) fs.copyFileSync(path.join(cluster.dataDir, 'server.log'), path.join(out, 'postgres.log'));
    cluster?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const options = readOptions(process.argv.slice(2));
  if (typeof options === 'number') return options;
  const root = path.resolve(import.meta.dirname, '../..');
  if (!fs.existsSync(path.join(root, 'dist/server/index.cjs'))) throw new UsageError('no build: run `npm run build` first');
  // As the bench does: this process pushes and samples, off the server's core.
  pinToGeneratorCore([process.pid]);
  process.on('SIGINT', () => {
    killChildren();
    process.exit(130);
  });
  const out = options.out ?? path.join(root, 'bench-results', `churn-windows-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  fs.mkdirSync(out, { recursive: true });
  const rows: string[] = [];
  const records: { round: number; pushing: boolean; step: StepRecord; pushes: Push[]; promotion?: WindowPromotion | null }[] = [];
  const write = (line: string) => {
    console.log(line);
    rows.push(line);
    fs.writeFileSync(path.join(out, 'windows.md'), `${rows.join('\n')}\n`);
  };
  await withStore(options.store, out, async (dbPath, storeEnv) => {
    const paths = articlePaths(dbPath);
    const pathsFile = path.join(path.dirname(dbPath), 'article-paths.json');
    fs.writeFileSync(pathsFile, JSON.stringify(paths));
    const env = { SSR_QUEUE_LIMIT: '1000000', SHED_QUEUE_LIMIT: '1000000', CRAWLER_QUEUE_LIMIT: '1000000', INGEST_TOKEN: churnToken, ...storeEnv };
    const worker: { pid?: number } = {};
    const trace = new ScavengeTrace(() => worker.pid);
    const server = await startKiosk(
      root,
      `churn windows, ${options.store}`,
      dbPath,
      env,
      options.traceGc ? { nodeFlags: ['--trace-gc-nvp'], onLine: (line) => trace.read(line) } : {},
    );
    worker.pid = server.workerPids()[0];
    try {
      const generator = new NativeGenerator(nativeGeneratorBinary(root), pathsFile);
      const pass = passSeconds(paths.length, options.rate);
      const timing: StepTiming = { warmupS: pass, durationS: options.windowS, timeoutMs: 5_000, maxConnections: 4_000 };
      console.error(
        `churn-windows: ${options.store}, ${options.rate} req/s, a pass over ${paths.length} articles (${pass} s) before each ${options.windowS} s window`,
      );
      await measureStep(generator, server, 'warm-up', options.rate, { ...timing, durationS: 1 });
      await settle(server);
      write(heading(options.traceGc));
      for (let round = 1; round <= options.rounds; round++) {
        for (const pushing of round % 2 === 1 ? [false, true] : [true, false]) {
          const pushes: Push[] = [];
          const pusher = pushing ? startPushing(`http://127.0.0.1:${server.port}`, paths, (push) => pushes.push(push)) : null;
          const promotion = windowPromotion(trace);
          let step: StepRecord;
          try {
            step = await measureStep(generator, server, pushing ? 'pushes' : 'no pushes', options.rate, timing, promotion.onWindow);
          } finally {
            await pusher?.stop();
          }
          const promoted = options.traceGc ? promotion.result() : undefined;
          write(windowRow(round, pushing, step, pushes, promoted));
          records.push({ round, pushing, step, pushes, ...(promoted === undefined ? {} : { promotion: promoted }) });
          fs.writeFileSync(path.join(out, 'windows.json'), JSON.stringify({ options, windows: records }, null, 1));
          await settle(server);
        }
      }
    } finally {
      await server.stop();
      // What the server said: a slow store, a lost LISTEN connection, a warning.
      fs.writeFileSync(path.join(out, 'kiosk.log'), server.output());
      console.error(`churn-windows: rows, records and the server's output in ${out}`);
    }
  });
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) void runCommand(command, main);
