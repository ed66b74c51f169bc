// Two or more builds (or one build under different settings) compared by the CPU they spend per
// article page, through Nginx as production runs them: each arm is the built cluster with one
// worker behind the rendered Nginx config, both pinned to core 0, and this process reads pages in
// a closed loop from core 1. The CPU of every server process (primary, worker, Nginx) over a
// fixed number of pages, after a warm pass, is the figure: unlike the capacity a search finds, it
// does not hang on one probe's p99, so a difference of a few percent shows in a few rounds. The
// arms alternate round by round (A B, then B A), and the median of each round's ratio to the
// first arm is what the report judges, as the bench's copies and churn rounds do. Not part of
// `npm run bench`: it answers whether one change costs the server-rendered page anything.
import { spawnSync } from 'node:child_process';
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
import { cpuMs } from './proc';
import { generatorCore, serverCore, startKioskBehindNginx } from './processes';

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

async function measure(arm: Arm, dbPath: string, paths: readonly string[], requests: number): Promise<number> {
  const server = await startKioskBehindNginx(arm.root, arm.label, dbPath, { ...renderEveryPage, ...arm.env }, { workers: 1, core: serverCore });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    await readEveryPage(base, paths);
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

async function main(): Promise<number> {
  const line = readCommandLine({
    ...command,
    options: { arm: { type: 'string', multiple: true }, rounds: { type: 'string' }, requests: { type: 'string' }, articles: { type: 'string' } },
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
  spawnSync('taskset', ['-a', '-p', '-c', String(generatorCore), String(process.pid)], { stdio: 'ignore' });
  console.error(`builds: seeding ${articles} articles (${repositoryRoot}'s seed)`);
  const { dir, dbPath } = await seedTempStore(articles, 0);
  try {
    const paths = publishedArticlePaths(dbPath);
    const figures = new Map(arms.map((arm) => [arm.label, [] as number[]]));
    console.log('| round | arm | CPU per page, µs (primary, worker, Nginx) |\n| ---: | --- | ---: |');
    for (let round = 1; round <= rounds; round++) {
      for (const arm of roundOrder(arms, round)) {
        console.error(`builds: round ${round} of ${rounds}, ${arm.label} (${arm.root})`);
        const us = await measure(arm, dbPath, paths, requests);
        figures.get(arm.label)!.push(us);
        console.log(`| ${round} | ${arm.label} | ${us.toFixed(0)} |`);
      }
    }
    const baseline = figures.get(arms[0]!.label)!;
    console.log(`\n| arm | every round, µs | median, µs | median ratio to ${arms[0]!.label} |\n| --- | --- | ---: | ---: |`);
    for (const arm of arms) {
      const own = figures.get(arm.label)!;
      console.log(
        `| ${arm.label} | ${own.map((us) => us.toFixed(0)).join(', ')} | ${median(own).toFixed(0)} | ${medianRoundRatio(own, baseline).toFixed(3)}x |`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) void runCommand(command, main);
