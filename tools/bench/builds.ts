// Two or more builds (or one build under different settings) compared by the CPU they spend per
// article page, through Nginx as production runs them: each arm is the built cluster with one
// worker behind the rendered Nginx config, both pinned to core 0, and this process reads pages in
// a closed loop from core 1. The CPU of every server process (primary, worker, Nginx) over a
// fixed number of pages, after a warm pass, is the figure: unlike the capacity a search finds, it
// does not hang on one probe's p99, so a difference of a few percent shows in a few rounds. The
// arms alternate round by round (A B, then B A), and the median of each round's ratio to the
// first arm is what the report judges, as the bench's copies and churn rounds do. With --flood,
// each arm instead runs with the default guard and takes one open-loop flood at a multiple of a
// given rate (the bench's step through Nginx), and the figure is how many pages a second it still
// server-rendered: how the worker and Nginx share the core when the worker is full, which CPU
// per page alone does not show. Not part of `npm run bench`: it answers whether one change costs
// the server-rendered page anything.
import fs from 'node:fs';
import path from 'node:path';
import {
  median,
  publishedArticlePaths,
  readCommandLine,
  readEveryPage,
  repositoryRoot,
  runCommand,
  seedTempStore,
  UsageError,
  wholeNumberFlag,
} from '@kiosk/surface';
import { measureStep, settle } from './measure';
import { NativeGenerator, nativeGeneratorBinary } from './native-generator';
import { CpuMeter, cpuMs } from './proc';
import { pinToGeneratorCore, serverCore, startKioskBehindNginx } from './processes';

const usage = `Usage: npx tsx tools/bench/builds.ts --arm LABEL=DIR[:KEY=VALUE,...] --arm ... [options]

Compares the CPU per article page of two or more arms through Nginx: each arm is a checkout's
built cluster (DIR/dist, from npm run build; "." is this checkout) with one worker, started
behind this checkout's Nginx config with the arm's extra environment, worker and Nginx on core 0,
the pages read eight at a time from core 1. Each round starts every arm in turn (the order
reversed every other round), reads every article page once to warm it, then --requests pages,
and prints the CPU of the server's processes per page. The summary gives each arm's median and
the median of its round-by-round ratio to the first arm. Needs a quiet machine.

To compare two commits, build each in a worktree of its own:
  git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)

Options:
  --arm LABEL=DIR[:K=V,...]  an arm (at least two); e.g. --arm before=/tmp/before
                             --arm now=. or --arm v8=.:WORKER_SEMI_SPACE_MB=0
  --rounds N                 rounds over the arms (default 5)
  --requests N               pages measured per arm and round (default 15000)
  --articles N               published articles seeded (default 10000)
  --flood M                  instead of CPU per page, server-rendered pages a second under a
                             flood of M times --rate (new connections, uniform paths, the default
                             guard, as the bench's steps through Nginx), after the warm pass
  --rate R                   with --flood: the rate M multiplies, e.g. the bench's SSR capacity
  --flood-seconds S          with --flood: the flood's measured window (default 6, after 1.5)
  -h, --help                 show this help`;

export interface Arm {
  label: string;
  root: string;
  env: Record<string, string>;
}

/** `LABEL=DIR[:KEY=VALUE,...]`, DIR relative to `cwd`; a UsageError when malformed. */
export function parseArm(raw: string, cwd: string): Arm {
  const match = /^([\w.-]+)=([^:]+)(?::(.*))?$/.exec(raw);
  if (!match) throw new UsageError(`--arm must be LABEL=DIR[:KEY=VALUE,...], got "${raw}"`);
  const env: Record<string, string> = {};
  for (const pair of match[3] ? match[3].split(',') : []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--arm ${match[1]}: "${pair}" is not KEY=VALUE`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { label: match[1]!, root: path.resolve(cwd, match[2]!), env };
}

/** Each round's arms: the given order in odd rounds, reversed in even ones. */
export function roundOrder<T>(arms: readonly T[], round: number): T[] {
  return round % 2 === 1 ? [...arms] : [...arms].reverse();
}

/** The median over rounds of each round's figure divided by the first arm's in the same round. */
export function medianRoundRatio(figures: readonly number[], baseline: readonly number[]): number {
  return median(figures.map((figure, round) => figure / baseline[round]!));
}

// The guard never sheds here: every page is server-rendered, which is what is being compared.
const renderEveryPage = { SSR_QUEUE_LIMIT: '100000', SHED_QUEUE_LIMIT: '100000', CRAWLER_QUEUE_LIMIT: '100000', SSR_MAX_EVENT_LOOP_DELAY_MS: '0' };

/** What one arm is asked in a round: pages read in a closed loop, or a flood at a fixed rate. */
type Workload = { kind: 'closed'; requests: number } | { kind: 'flood'; ratePerS: number; seconds: number; generator: NativeGenerator };

/** A flood's figure and what explains it. */
export interface FloodFigure {
  ssrPerS: number;
  /** Answers that were not a fresh page (the shell, from Node or Nginx), of those scheduled. */
  notFreshShare: number;
  p99Ms: number;
  failures: number;
  serverCpuPct: number;
  /** How the core was split over the flood (its warm-up included), in percent of one core: the worker, and Nginx with the primary. */
  workerCpuPct: number;
  nginxCpuPct: number;
}

async function measure(arm: Arm, dbPath: string, paths: readonly string[], work: Workload): Promise<number | FloodFigure> {
  // A flood runs the arm as production does (the guard's defaults); the closed loop renders every page.
  const guard = work.kind === 'flood' ? {} : renderEveryPage;
  const server = await startKioskBehindNginx(arm.root, arm.label, dbPath, { ...guard, ...arm.env }, { workers: 1, core: serverCore });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    await readEveryPage(base, paths);
    if (work.kind === 'flood') {
      await settle(server);
      const workers = server.workerPids();
      const worker = new CpuMeter(() => workers);
      const others = new CpuMeter(() => server.pids().filter((pid) => !workers.includes(pid)));
      const step = await measureStep(work.generator, server, `${arm.label} flood`, work.ratePerS, {
        warmupS: 1.5,
        durationS: work.seconds,
        timeoutMs: 5_000,
        maxConnections: 4_000,
      });
      return {
        workerCpuPct: worker.percent(),
        nginxCpuPct: others.percent(),
        ssrPerS: step.ssrPerS,
        notFreshShare: step.scheduled > 0 ? (step.scheduled - step.ssr) / step.scheduled : 0,
        p99Ms: step.latencyMs.p99,
        failures: step.errors + step.timeouts + step.non2xx,
        serverCpuPct: step.serverCpuPct,
      };
    }
    const requests = work.requests;
    const measured = Array.from({ length: requests }, (_, i) => paths[i % paths.length]!);
    const pids = server.pids();
    const before = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
    await readEveryPage(base, measured);
    return ((pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - before) / requests) * 1000;
  } finally {
    await server.stop();
  }
}

const command = { name: 'builds', usage };

/** One arm's figure in a round, and its row in the rounds' table. */
async function roundFigure(arm: Arm, dbPath: string, paths: readonly string[], work: Workload): Promise<{ figure: number; row: string }> {
  const measured = await measure(arm, dbPath, paths, work);
  if (typeof measured === 'number') return { figure: measured, row: measured.toFixed(0) };
  const f: FloodFigure = measured;
  return {
    figure: f.ssrPerS,
    row: `${f.ssrPerS.toFixed(0)} | ${(100 * f.notFreshShare).toFixed(0)}% | ${f.p99Ms.toFixed(0)} | ${f.failures} | ${f.serverCpuPct.toFixed(0)}% | ${f.workerCpuPct.toFixed(0)}% / ${f.nginxCpuPct.toFixed(0)}%`,
  };
}

async function main(): Promise<number> {
  const line = readCommandLine({
    ...command,
    options: {
      arm: { type: 'string', multiple: true },
      rounds: { type: 'string' },
      requests: { type: 'string' },
      articles: { type: 'string' },
      flood: { type: 'string' },
      rate: { type: 'string' },
      'flood-seconds': { type: 'string' },
    },
  });
  if (!line.ok) return line.exitCode;
  const arms = (line.values.arm ?? []).map((raw) => parseArm(raw, process.cwd()));
  if (arms.length < 2) throw new UsageError('give at least two --arm');
  for (const arm of arms) {
    if (!fs.existsSync(path.join(arm.root, 'dist/server/index.cjs')))
      throw new UsageError(`--arm ${arm.label}: no build in ${arm.root}/dist (run npm run build there)`);
  }
  const rounds = wholeNumberFlag('--rounds', line.values.rounds, 1, 50) ?? 5;
  const requests = wholeNumberFlag('--requests', line.values.requests, 100, 1_000_000) ?? 15_000;
  const articles = wholeNumberFlag('--articles', line.values.articles, 100, 100_000) ?? 10_000;
  const flood = wholeNumberFlag('--flood', line.values.flood, 1, 100);
  const rate = wholeNumberFlag('--rate', line.values.rate, 10, 1_000_000);
  const floodSeconds = wholeNumberFlag('--flood-seconds', line.values['flood-seconds'], 1, 600) ?? 6;
  if ((flood === null) !== (rate === null)) throw new UsageError('--flood and --rate go together');
  pinToGeneratorCore([process.pid]);
  console.error(`builds: seeding ${articles} articles (${repositoryRoot}'s seed)`);
  const { dir, dbPath } = await seedTempStore(articles, 0);
  let generator: NativeGenerator | null = null;
  try {
    const paths = publishedArticlePaths(dbPath);
    let work: Workload = { kind: 'closed', requests };
    let unit = 'CPU per page, µs (primary, worker, Nginx)';
    let header = `| round | arm | ${unit} |\n| ---: | --- | ---: |`;
    if (flood !== null && rate !== null) {
      const pathsFile = path.join(dir, 'paths.json');
      fs.writeFileSync(pathsFile, JSON.stringify(paths));
      const ratePerS = flood * rate;
      generator = new NativeGenerator(nativeGeneratorBinary(repositoryRoot), pathsFile);
      work = { kind: 'flood', ratePerS, seconds: floodSeconds, generator };
      unit = `server-rendered pages/s at ${flood}x ${rate}/s (${ratePerS}/s offered)`;
      header =
        `| round | arm | ${unit} | not fresh | p99, ms | failures | server CPU | worker / Nginx and primary, % of a core |\n` +
        '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |';
    }
    const figures = new Map(arms.map((arm) => [arm.label, [] as number[]]));
    console.log(header);
    for (let round = 1; round <= rounds; round++) {
      for (const arm of roundOrder(arms, round)) {
        console.error(`builds: round ${round} of ${rounds}, ${arm.label} (${arm.root})`);
        const { figure, row } = await roundFigure(arm, dbPath, paths, work);
        figures.get(arm.label)!.push(figure);
        console.log(`| ${round} | ${arm.label} | ${row} |`);
      }
    }
    const baseline = figures.get(arms[0]!.label)!;
    console.log(`\n| arm | ${unit}, every round | median | median ratio to ${arms[0]!.label} |\n| --- | --- | ---: | ---: |`);
    for (const arm of arms) {
      const own = figures.get(arm.label)!;
      console.log(`| ${arm.label} | ${own.map((v) => v.toFixed(0)).join(', ')} | ${median(own).toFixed(0)} | ${medianRoundRatio(own, baseline).toFixed(3)}x |`);
    }
  } finally {
    generator?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) void runCommand(command, main);
