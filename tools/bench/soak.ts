// npm run bench:soak: memory over time, as the newsroom learned it: five overload runs in a row
// against one server. After each run the worker's heap (after a full collection: the server
// runs with --expose-gc) and RSS are read once it is idle, and a step at the first run's
// server-rendering capacity checks that capacity has not fallen. Pinned like `npm run bench`: the server on core 0, the generator on 1.
import fs from 'node:fs';
import path from 'node:path';
import { freePort, numberFlag, readCommandLine, refuse, repositoryRoot as root, UsageError } from '@kiosk/surface';
import { articlePaths, seedBenchStore } from './articles';
import { ensureBuild } from './environment';
import { measureStep, passes, settle, type StepRecord, type StepTiming } from './measure';
import { NativeGenerator, nativeGeneratorBinary } from './native-generator';
import { killChildren, startKiosk, type ServerUnderTest } from './processes';
import { ms, perS } from './report';
import { searchMaxRate } from './search';

const usage = `Usage: npm run bench:soak -- [options]

Five overload runs in a row against one server (fallback on), with the worker's heap and RSS
read after each once it is idle, and a check at the first run's server-rendering capacity.
Passes when heap and RSS after every run stay within 10% of the figures after the first, and
server-rendering capacity holds (p99 < 100 ms, nothing failed, at least 95% of pages
server-rendered, and at least 90% of run 1's server-rendered rate).

  --runs N              overload runs (default 5)
  --run-seconds S       length of each overload run (default 30)
  --multiplier X        overload as a multiple of capacity (default 5)
  --capacity R          skip the search and use R req/s as the capacity
  --idle-seconds S      idle time before memory is read (default 12)
  --short               the test suite's variant: 3 runs of 3 s, capacity 200, 10 s idle
  --no-build            use dist/ as it is
  --out DIR             where soak.json and soak.md go (default bench-results/soak-<time>/)
  -h, --help            show this help`;

interface SoakRun {
  run: number;
  overload: Pick<StepRecord, 'offeredPerS' | 'achievedPerS' | 'ssrShare' | 'timeouts' | 'errors'> & { p99Ms: number };
  heapMb: number;
  rssMb: number;
  check: { p99Ms: number; ssrPerS: number; ssrShare: number; timeouts: number; errors: number; non2xx: number; passed: boolean };
}

function progress(line: string): void {
  process.stderr.write(`[soak] ${line}\n`);
}

function number(flag: string, raw: string | undefined, fallback: number): number {
  return numberFlag(flag, raw, (n) => n > 0, 'a positive number') ?? fallback;
}

async function scrape(port: number): Promise<{ heap: number; rss: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { heap: read('kiosk_heap_used_bytes'), rss: read('kiosk_worker_rss_bytes') };
}

/** The lowest of a few readings over a few seconds: what is live, not what awaits collection. */
async function idleMemory(port: number, idleS: number): Promise<{ heapMb: number; rssMb: number }> {
  await new Promise((resolve) => setTimeout(resolve, idleS * 1000));
  let heap = Infinity;
  let rss = Infinity;
  for (let i = 0; i < 4; i++) {
    const sample = await scrape(port);
    heap = Math.min(heap, sample.heap);
    rss = Math.min(rss, sample.rss);
    await new Promise((resolve) => setTimeout(resolve, 750));
  }
  return { heapMb: heap / 2 ** 20, rssMb: rss / 2 ** 20 };
}

async function main(): Promise<number> {
  const command = { name: 'bench:soak', usage };
  const line = readCommandLine({
    ...command,
    options: {
      runs: { type: 'string' },
      'run-seconds': { type: 'string' },
      multiplier: { type: 'string' },
      capacity: { type: 'string' },
      'idle-seconds': { type: 'string' },
      short: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  if (!line.ok) return line.exitCode;
  const { values } = line;
  let runs: number, runSeconds: number, multiplier: number, idleS: number, fixedCapacity: number | null;
  try {
    runs = Math.round(number('--runs', values.runs, values.short ? 3 : 5));
    runSeconds = number('--run-seconds', values['run-seconds'], values.short ? 3 : 30);
    multiplier = number('--multiplier', values.multiplier, 5);
    idleS = number('--idle-seconds', values['idle-seconds'], values.short ? 10 : 12);
    fixedCapacity = values.capacity !== undefined ? number('--capacity', values.capacity, 0) : values.short ? 200 : null;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return refuse(command, error.message);
  }

  const outDir = path.resolve(root, values.out ?? path.join('bench-results', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}`));
  fs.mkdirSync(outDir, { recursive: true });
  progress(`build: ${ensureBuild(root, !values['no-build'], progress)}`);
  const dbPath = path.join(outDir, 'kiosk.sqlite');
  progress('seeding the store');
  await seedBenchStore(dbPath);
  const pathsFile = path.join(outDir, 'article-paths.json');
  fs.writeFileSync(pathsFile, JSON.stringify(articlePaths(dbPath)));
  const generator = new NativeGenerator(nativeGeneratorBinary(root), pathsFile);
  const metricsPort = await freePort();
  let server: ServerUnderTest | null = null;
  try {
    // --expose-gc: the heap gauge then collects before it reads (server/metrics/prometheus.ts).
    server = await startKiosk(root, 'soak', dbPath, { METRICS_PORT: String(metricsPort), SHUTDOWN_GRACE_MS: '1000', NODE_OPTIONS: '--expose-gc' });
    const timing = (durationS: number): StepTiming => ({ warmupS: values.short ? 0.5 : 2, durationS, timeoutMs: 5_000, maxConnections: 4_000 });
    const step = async (label: string, rate: number, durationS: number) => {
      const record = await measureStep(generator, server!, label, rate, timing(durationS));
      await settle(server!);
      return record;
    };
    progress('warming up: 200 req/s for 5 s');
    await step('warm-up', 200, values.short ? 2 : 5);

    let capacity = fixedCapacity;
    if (capacity === null) {
      progress('finding the server-rendering capacity (p99 < 100 ms, nothing failed)');
      const found = await searchMaxRate(
        async (rate) => {
          const record = await step(`capacity probe ${rate}`, rate, 3);
          // Server-rendering capacity: the guard is on, so a pass must also be all server-rendered.
          const pass = passes(record) && record.ssrShare >= 0.99;
          progress(
            `  ${perS(rate)} req/s: p99 ${ms(record.latencyMs.p99)} ms, ${Math.round(record.ssrShare * 100)}% server-rendered, ${pass ? 'passed' : 'failed'}`,
          );
          return { pass, step: record };
        },
        { startPerS: 200, factor: 2, precision: 1.1, minPerS: 10, maxPerS: 50_000 },
      );
      capacity = found.ratePerS;
    }
    if (!capacity) throw new Error('no rate passed: the server could not be measured');
    progress(`capacity ${perS(capacity)} req/s; ${runs} runs of ${runSeconds} s at ${multiplier}x`);

    const results: SoakRun[] = [];
    for (let run = 1; run <= runs; run++) {
      const overload = await step(`run ${run}`, Math.round(capacity * multiplier), runSeconds);
      const memory = await idleMemory(metricsPort, idleS);
      const check = await step(`run ${run} capacity check`, capacity, values.short ? 2 : 5);
      results.push({
        run,
        overload: {
          offeredPerS: overload.offeredPerS,
          achievedPerS: overload.achievedPerS,
          ssrShare: overload.ssrShare,
          timeouts: overload.timeouts,
          errors: overload.errors,
          p99Ms: overload.latencyMs.p99,
        },
        ...memory,
        check: {
          p99Ms: check.latencyMs.p99,
          ssrPerS: check.ssrPerS,
          ssrShare: check.ssrShare,
          timeouts: check.timeouts,
          errors: check.errors,
          non2xx: check.non2xx,
          passed: passes(check) && check.ssrShare >= 0.95,
        },
      });
      progress(
        `run ${run}: overload p99 ${ms(overload.latencyMs.p99)} ms, SSR ${Math.round(overload.ssrShare * 100)}%; ` +
          `heap ${memory.heapMb.toFixed(1)} MB, RSS ${memory.rssMb.toFixed(1)} MB; capacity check p99 ${ms(check.latencyMs.p99)} ms, ${perS(check.ssrPerS)} SSR/s`,
      );
    }

    const first = results[0]!;
    const within = (value: number, base: number) => value <= base * 1.1;
    const memoryHeld = results.every((r) => within(r.heapMb, first.heapMb) && within(r.rssMb, first.rssMb));
    const capacityHeld = results.every((r) => r.check.passed && r.check.ssrPerS >= 0.9 * first.check.ssrPerS);
    const rows = [
      `# Soak: ${runs} runs of ${runSeconds} s at ${multiplier}x the capacity of ${perS(capacity)} req/s`,
      '',
      `Node ${process.version} (the server runs on the same binary), ${new Date().toISOString()}.`,
      '',
      '| run | overload p99 ms | server-rendered | timeouts | heap MB | vs run 1 | RSS MB | vs run 1 | capacity check p99 ms | SSR/s | check timeouts | check passed |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
      ...results.map(
        (r) =>
          `| ${r.run} | ${ms(r.overload.p99Ms)} | ${Math.round(r.overload.ssrShare * 100)}% | ${r.overload.timeouts} | ${r.heapMb.toFixed(1)} | ` +
          `${((r.heapMb / first.heapMb - 1) * 100).toFixed(1)}% | ${r.rssMb.toFixed(1)} | ${((r.rssMb / first.rssMb - 1) * 100).toFixed(1)}% | ` +
          `${ms(r.check.p99Ms)} | ${perS(r.check.ssrPerS)} | ${r.check.timeouts} | ${r.check.passed ? 'yes' : 'no'} |`,
      ),
      '',
      `- Memory within 10% of run 1 after every run: **${memoryHeld ? 'yes' : 'no'}**`,
      `- Capacity held (p99 < 100 ms, nothing failed, ≥ 90% of run 1's SSR/s) after every run: **${capacityHeld ? 'yes' : 'no'}**`,
    ];
    const report = `${rows.join('\n')}\n`;
    fs.writeFileSync(path.join(outDir, 'soak.md'), report);
    fs.writeFileSync(
      path.join(outDir, 'soak.json'),
      `${JSON.stringify({ nodeVersion: process.version, capacity, runs: results, memoryHeld, capacityHeld }, null, 2)}\n`,
    );
    process.stdout.write(report);
    progress(`wrote ${path.relative(root, outDir)}/soak.md and soak.json`);
    return memoryHeld && capacityHeld ? 0 : 1;
  } finally {
    await server?.stop();
    generator.stop();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbPath + suffix, { force: true });
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    killChildren();
    console.error('bench:soak: failed', error);
    process.exit(1);
  },
);
