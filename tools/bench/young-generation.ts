// A worker's resident memory and CPU per request for young-generation sizes (WORKER_SEMI_SPACE_MB):
// the built cluster with one worker over a seeded store of 10,000 articles, every article page
// asked for three times over (eight requests at a time, keep-alive), the worker's RSS read from
// /proc after each pass (and where it is after the third: files, malloc's main and thread arenas,
// the rest of anonymous memory, V8's heap first) and its CPU time over the last two. Sizes alternate round by round, so a
// host that changes speed mid-run moves every size alike. Not part of `npm run bench`: it answers
// one question, which size WORKER_SEMI_SPACE_MB defaults to (docs/performance.md, "Memory").
import fs from 'node:fs';
import {
  publishedArticlePaths,
  readCommandLine,
  readEveryPage,
  residentMemory,
  runCommand,
  seedTempStore,
  startBuiltServer,
  wholeNumberFlag,
  type ResidentMemory,
} from '@kiosk/surface';
import { cpuMs } from './proc';

const usage = `Usage: npx tsx tools/bench/young-generation.ts [options]

Starts the built cluster (one worker) once per young-generation size and round, asks for every
published article's page three times, and prints the worker's RSS after each pass and its CPU
per request over the last two passes, and where its resident memory is after the third (mapped
files, malloc's main arena, its thread arenas, the rest of anonymous memory: V8's heap first).
Needs a build (npm run build) and a quiet machine.

Options:
  --sizes LIST     WORKER_SEMI_SPACE_MB values, comma-separated (default 0,8,16; 0 is V8's own)
  --rounds N       rounds over the sizes, alternating their order (default 2)
  --articles N     published articles seeded (default 10000)
  --lanes N        requests at a time (default 8)
  -h, --help       show this help`;

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function measure(
  dbPath: string,
  paths: readonly string[],
  size: number,
  lanes: number,
): Promise<{ rss: number[]; cpuUs: number; after: ResidentMemory }> {
  const server = await startBuiltServer(dbPath, { WORKER_SEMI_SPACE_MB: String(size) });
  try {
    const [worker] = server.workerPids();
    const rss: number[] = [];
    let cpuAfterFirst = 0;
    for (let n = 1; n <= 3; n++) {
      if (n === 2) cpuAfterFirst = cpuMs(worker!);
      await readEveryPage(server.baseUrl, paths, lanes);
      rss.push(rssMb(worker!));
    }
    return { rss, cpuUs: ((cpuMs(worker!) - cpuAfterFirst) / (2 * paths.length)) * 1000, after: residentMemory(worker!) };
  } finally {
    await server.stop();
  }
}

const command = { name: 'young-generation', usage };

async function main(): Promise<number> {
  const line = readCommandLine({
    ...command,
    options: { sizes: { type: 'string' }, rounds: { type: 'string' }, articles: { type: 'string' }, lanes: { type: 'string' } },
  });
  if (!line.ok) return line.exitCode;
  const sizes = (line.values.sizes ?? '0,8,16').split(',').map((raw) => wholeNumberFlag('--sizes', raw, 0, 256)!);
  const rounds = wholeNumberFlag('--rounds', line.values.rounds, 1, 20) ?? 2;
  const articles = wholeNumberFlag('--articles', line.values.articles, 100, 100_000) ?? 10_000;
  const lanes = wholeNumberFlag('--lanes', line.values.lanes, 1, 64) ?? 8;
  console.error(`young-generation: seeding ${articles} articles`);
  const { dir, dbPath } = await seedTempStore(articles, 0);
  try {
    const paths = publishedArticlePaths(dbPath);
    console.log(
      '| WORKER_SEMI_SPACE_MB | round | RSS after pass 1 / 2 / 3, MB | files / main arena / thread arenas (count) / other anonymous, MB | CPU per request, µs |\n| ---: | ---: | --- | --- | ---: |',
    );
    for (let round = 1; round <= rounds; round++) {
      for (const size of round % 2 === 1 ? sizes : [...sizes].reverse()) {
        console.error(`young-generation: round ${round}, WORKER_SEMI_SPACE_MB=${size}`);
        const { rss, cpuUs, after } = await measure(dbPath, paths, size, lanes);
        const where = `${after.fileMb.toFixed(0)} / ${after.mainArenaMb.toFixed(0)} / ${after.threadArenasMb.toFixed(0)} (${after.threadArenas}) / ${after.otherAnonMb.toFixed(0)}`;
        console.log(`| ${size === 0 ? "0 (V8's own)" : size} | ${round} | ${rss.map((mb) => mb.toFixed(0)).join(' / ')} | ${where} | ${cpuUs.toFixed(0)} |`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return 0;
}

void runCommand(command, main);
