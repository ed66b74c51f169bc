// npm run bench: Kiosk's article page measured within one run
// run. `npm run bench -- --help` for the flags; the modules are in tools/bench/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { articlePaths, fetchPage, hotSetPaths, seedBenchStore, type PageSample } from './articles';
import { balanceLayouts, measureBalance } from './balance';
import { churnToken, measureChurn, medianRatio, roundRatio, steadySpread, type ChurnResult } from './churn';
import { IdPasses, passPerS } from './passes';
import { renderChart } from './chart';
import { describeEnvironment, ensureBuild } from './environment';
import { describeDomBudget, elementsAsShownInFull, measureDomBudget } from './dom-budget';
import { connectionsExhausted, disturbed, doubtfulFailure, generatorFellShort, measureStep, passes, settle, type StepRecord, type StepTiming } from './measure';
import { readOptions, usage, type BenchOptions } from './options';
import { allowedCpus } from './proc';
import { NativeGenerator, nativeGeneratorBinary } from './native-generator';
import {
  generatorCore,
  pinToGeneratorCore,
  killChildren,
  runPinned,
  serverCore,
  startBareServer,
  startExpressReference,
  startKiosk,
  startKioskBehindNginx,
  startStaticNginx,
  type ServerUnderTest,
} from './processes';
import { postgresBinDir, refuse, repositoryRoot as root, seedPostgres, startCluster, UsageError, type Cluster } from '@kiosk/surface';
import { evaluateTargets, flagText, ms, pct, perS, renderMarkdown } from './report';
import type { PushCost } from './push-cost';
import type { BenchResults, FallbackMode, PageFigures, PassesRecord, PostgresRun, RenderReference, SearchOutcome } from './results';
import { searchMaxRate } from './search';
import { chunkRange, measureSteadiness, steadinessSeconds } from './steadiness';
import { describeEstimate, estimateSeconds, expressShare, nearFactor, referenceSearchPrecision } from './estimate';
import {
  copiesEnv,
  copiesRateShare,
  copiesSettlingRounds,
  copiesSettlingWindowS,
  calibratedRate,
  type CopiesCalibration,
  copiesRatio,
  copiesWriteShare,
  diskUse,
  floodMultipliers,
  measureCopies,
  medianCopiesRatio,
  tierWarmShare,
} from './last-good';
import { describeMix, mixPaths, type PathMix } from './path-mix';

const startedAt = new Date();
const startedMs = performance.now();

// "Off" must mean pure server rendering: every limit of the guard out of reach.
const guardEnv: Record<'on' | 'off' | 'shell', Record<string, string>> = {
  off: { SSR_QUEUE_LIMIT: '1000000', SHED_QUEUE_LIMIT: '1000000', CRAWLER_QUEUE_LIMIT: '1000000' },
  on: {},
  // Every request gets the shell; shedding is out of reach so the shell path alone is measured.
  shell: { SSR_QUEUE_LIMIT: '0', SHED_QUEUE_LIMIT: '1000000' },
};

interface Run {
  options: BenchOptions;
  generator: NativeGenerator;
  /** Another generator on other paths (the hot set). */
  newGenerator(pathsFile: string): NativeGenerator;
  /** The generator of each path mix the steps through Nginx read (uniform: `generator`). */
  mixGenerators: Map<PathMix, NativeGenerator>;
  dbPath: string;
  pathsFile: string;
  paths: string[];
  results: BenchResults;
}

function elapsed(): string {
  const s = Math.round((performance.now() - startedMs) / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

function progress(line: string): void {
  process.stderr.write(`[bench ${elapsed()}] ${line}\n`);
}

function figures(sample: PageSample): PageFigures {
  const { path, status, renderMode, elements, bytes } = sample;
  return { path, status, renderMode, elements, bytes };
}

/** The orchestrator only waits and samples; keep it off the server's core. */
function pinSelf(): void {
  pinToGeneratorCore([process.pid]);
}

/**
 * A fresh process runs unoptimised code: its first probe would fail on the JIT, not on load.
 * A few seconds at a rate any server here handles, not recorded, come first.
 */
async function warmUp(run: Run, server: ServerUnderTest, ratePerS: number): Promise<void> {
  const seconds = Math.max(3, run.options.warmupSeconds);
  progress(`warming up ${server.name}: ${perS(ratePerS)} req/s for ${seconds} s, not recorded`);
  await measureStep(run.generator, server, 'warm-up', ratePerS, { ...stepTiming(run.options), warmupS: seconds, durationS: 0.5 });
  await settle(server);
}

// Below the SSR capacity of any machine this runs on, and enough requests for V8 to optimise
// the render path: a few hundred were not (the first probe then failed at 80% CPU).
function kioskWarmUpPerS(run: Run): number {
  const inProcess = run.results.reference.render?.renderPagePerS;
  return inProcess ? Math.max(200, Math.round(inProcess / 5)) : 300;
}
const bareWarmUpPerS = 2000;

/** Requests warmUp sent: the ids a fresh Kiosk has read before anything is measured. */
function warmUpRequests(run: Run): number {
  return Math.round(kioskWarmUpPerS(run) * (Math.max(3, run.options.warmupSeconds) + 0.5));
}

function idPasses(run: Run): IdPasses {
  return new IdPasses(
    run.paths.length,
    warmUpRequests(run),
    passPerS(run.results.reference.render?.renderPagePerS, run.options.quick),
    stepTiming(run.options),
  );
}

async function coldAndWarmPasses(run: Run, server: ServerUnderTest, store: string): Promise<PassesRecord> {
  return idPasses(run).coldAndWarm(store, (label, rate, timing) => probe(run, server, label, rate, timing));
}

/** The first pass, not recorded: servers that search their capacity search it warm. */
async function warmEveryId(run: Run, server: ServerUnderTest): Promise<void> {
  const passes = idPasses(run);
  progress(`reading the ${perS(passes.coldIds)} ids not read yet at ${perS(passes.ratePerS)} req/s, not recorded`);
  await measureStep(run.generator, server, 'first pass', passes.ratePerS, passes.timing(passes.coldIds));
  await settle(server);
}

/** At capacity without CMS pushes, with one a second, and right after: SQLite's or PostgreSQL's. */
async function churnSteps(run: Run, server: ServerUnderTest, store: string, capacity: number): Promise<ChurnResult | null> {
  if (run.options.skipChurn) return null;
  const steadiness = await measureSteadiness(root, steadinessSeconds(run.options.quick));
  progress(
    `  host steadiness on core ${serverCore} over ${steadiness.seconds} s: the same chunk of memory-bound work took ${chunkRange(steadiness.memory)}, of arithmetic ${chunkRange(steadiness.arithmetic)}`,
  );
  const measured = await measureChurn(
    server,
    run.paths,
    capacity,
    (label, rate, warmupS) => probe(run, server, `${store} ${label}`, rate, { ...windowTiming(run.options), warmupS: warmupS ?? run.options.warmupSeconds }),
    run.options.churnRounds,
  );
  const result: ChurnResult = { ...measured, steadiness };
  const rounds = result.rounds ?? [];
  if (rounds.length > 0) {
    progress(
      `  rounds at ${perS(rounds[0]!.ratePerS)} req/s: CPU per request ${rounds.map((r) => `${roundRatio(r).toFixed(2)}x`).join(', ')}; median ${medianRatio(rounds).toFixed(2)}x; windows without pushes ${Number.isFinite(steadySpread(rounds)) ? `${Math.round(steadySpread(rounds) * 100)}%` : '–'} apart`,
    );
  }
  const all = [...result.pushes, ...rounds.flatMap((r) => r.pushes)];
  const ok = all.filter((p) => p.status === 200 || p.status === 201);
  const visible = ok.map((p) => p.visibleMs).filter((ms): ms is number => ms !== null);
  progress(`  ${ok.length} of ${all.length} pushes taken; visible after at most ${visible.length ? Math.round(Math.max(...visible)) : '–'} ms`);
  return result;
}

/** Ingestion on, so the churn steps can push; the token is this run's own. */
const withIngest = { INGEST_TOKEN: churnToken };

async function withKiosk<T>(run: Run, name: string, env: Record<string, string>, work: (server: ServerUnderTest) => Promise<T>): Promise<T> {
  const serverEnv = { ...env, ...run.options.serverEnv };
  progress(
    `starting Kiosk (${name}) ${
      Object.entries(serverEnv)
        .map(([k, v]) => `${k}=${k === 'INGEST_TOKEN' ? '…' : v}`)
        .join(' ') || 'with the default guard settings'
    }`,
  );
  const server = await startKiosk(root, name, run.dbPath, serverEnv);
  run.results.serverEnv[name] = { ...serverEnv, ...('INGEST_TOKEN' in serverEnv ? { INGEST_TOKEN: '(this run’s own)' } : {}) };
  run.results.pinning[`Kiosk ${name}`] = server.affinity();
  try {
    await warmUp(run, server, kioskWarmUpPerS(run));
    return await work(server);
  } finally {
    await server.stop();
    // What the server said (the tail of it): a lost LISTEN connection, a warning, a crash.
    const logs = path.join(run.options.outDir, 'logs');
    fs.mkdirSync(logs, { recursive: true });
    fs.writeFileSync(
      path.join(
        logs,
        `kiosk-${name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')}.log`,
      ),
      server.output(),
    );
  }
}

async function probe(run: Run, server: ServerUnderTest, label: string, ratePerS: number, timing: StepTiming): Promise<StepRecord> {
  progress(`${label}: offering ${perS(ratePerS)} req/s for ${timing.warmupS} + ${timing.durationS} s`);
  const step = await measureStep(run.generator, server, label, ratePerS, timing);
  progress(
    `  sent ${perS(step.sentPerS)}/s, achieved ${perS(step.achievedPerS)}/s, p50 ${ms(step.latencyMs.p50)} p99 ${ms(step.latencyMs.p99)} ms, ` +
      `errors ${step.errors}, timeouts ${step.timeouts}, non-2xx ${step.non2xx}, SSR ${pct(step.ssrShare)}, ` +
      `CPU server ${Math.round(step.serverCpuPct)}% generator ${Math.round(step.generatorCpuPct)}%${step.flags.length ? ` [${flagText(step)}]` : ''}`,
  );
  await settle(server);
  return step;
}

/**
 * How a search walks: `factor` from its start to the first failure, then bisection until the
 * failure is within `precision` of the last pass (the run's own, 5%, unless said).
 */
interface SearchTuning {
  maxConnections?: number;
  factor?: number;
  precision?: number;
}

/** Where the bare node:http search starts: this times the shell path's rate (a little under what the records found). */
const bareOverShellPath = 1.6;

/** The reference ceilings (bare servers, the shell paths): judged with wide margins, 10% apart is enough. */
const referenceSearch = (o: BenchOptions, maxConnections = o.connections): SearchTuning => ({
  maxConnections,
  precision: Math.max(o.searchPrecision, referenceSearchPrecision),
});

/** The highest rate that passes (p99 < 100 ms, no failures, really sent) on this server. */
async function findRate(run: Run, server: ServerUnderTest, name: string, startPerS: number, tuning: SearchTuning = {}): Promise<SearchOutcome> {
  const o = run.options;
  const timing = { ...stepTiming(o), warmupS: o.searchWarmupSeconds, durationS: o.searchSeconds, maxConnections: tuning.maxConnections ?? o.connections };
  const probes: StepRecord[] = [];
  const result = await searchMaxRate(
    async (rate) => {
      let step = await probe(run, server, `${name} probe`, rate, timing);
      probes.push(step);
      // On a shared machine a neighbour's burst can fail a probe the server would pass.
      if (doubtfulFailure(step)) {
        progress('  failed while disturbed or with the server not busy: probing that rate once more');
        step = await probe(run, server, `${name} probe (again)`, rate, timing);
        probes.push(step);
      }
      return { pass: passes(step), step };
    },
    { startPerS, factor: tuning.factor ?? 2, precision: tuning.precision ?? o.searchPrecision, minPerS: 5, maxPerS: 200_000 },
  );
  const failed = result.failedAbove;
  const limitedBy = failed ? (generatorFellShort(failed) ? 'generator' : 'server') : 'unknown';
  progress(`${name}: ${perS(result.ratePerS)} req/s (limited by the ${limitedBy})`);
  return { name, ...result, searchRatePerS: result.ratePerS, confirmed: null, limitedBy, probes };
}

async function renderReference(run: Run): Promise<RenderReference> {
  progress(
    `raw renderToString and renderPage in process on core ${serverCore}, ${run.options.renderSeconds} s each, then a push's cost in a process of its own`,
  );
  const script = path.join(root, 'tools/bench/render-reference.tsx');
  const args = ['--import', 'tsx', script, run.dbPath, path.join(root, 'dist'), String(run.options.renderSeconds), run.pathsFile];
  const render = JSON.parse(await runPinned(root, serverCore, args, { NODE_ENV: 'production' })) as RenderReference;
  progress(`  renderToString ${perS(render.rawRenderPerS)}/s, renderPage ${perS(render.renderPagePerS)}/s`);
  // In a process of its own, so nothing the references left is collected inside a push's pass
  // (tools/bench/push-cost-run.ts).
  const pushArgs = ['--import', 'tsx', path.join(root, 'tools/bench/push-cost-run.ts'), run.dbPath, run.pathsFile];
  render.pushCost = JSON.parse(await runPinned(root, serverCore, pushArgs, { NODE_ENV: 'production' })) as PushCost;
  const { storeReads, rebuilt, extraMs } = render.pushCost;
  progress(`  a new story pushed: ${storeReads} store reads, ${perS(rebuilt)} kept answers read again, ${extraMs.toFixed(1)} ms of work (in process)`);
  return render;
}

/** A stand-in when no shell is served yet: a document of the shell's kind, about 3 KB. */
function fixedShell(): { body: string; headers: Record<string, string> } {
  const head =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Kiosk</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>';
  const body = '<body><div id="root" data-render-mode="shell"></div><script defer src="/assets/main.js"></script></body></html>';
  return {
    body: head + `<!--${'.'.repeat(3072 - head.length - body.length - 7)}-->` + body,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'public, max-age=0, s-maxage=5', 'X-Render-Mode': 'shell' },
  };
}

/** The shell path's rate, and the shell's bytes for the bare server (or the stand-in). */
async function shellReference(run: Run): Promise<{ body: string; headers: Record<string, string>; source: string }> {
  const shell = await withKiosk(run, 'shell only', guardEnv.shell, async (server) => {
    const page = await fetchPage(server.port, run.paths[0]!);
    if (page.renderMode !== 'shell') {
      run.results.notes.push(
        `With SSR_QUEUE_LIMIT=0 the server still answered X-Render-Mode: ${page.renderMode}: no shell in this build, so the shell path was not measured and the bare server answered a fixed 3 KB document.`,
      );
      return null;
    }
    run.results.page.shell = figures(page);
    // Tens of thousands a second on the records' machine: the search starts near, not at 2,000.
    // The records find 16,000-19,000 req/s here: from 16,000 in steps of 25%, a probe that would
    // overload the server at twice that (and drain for seconds) is never offered.
    run.results.reference.shellPath = await findRate(run, server, 'shell path', 16_000, { ...referenceSearch(run.options), factor: nearFactor });
    const keep = ['content-type', 'cache-control', 'x-render-mode'];
    return { body: page.html, headers: Object.fromEntries(Object.entries(page.headers).filter(([k]) => keep.includes(k))) };
  });
  return shell
    ? { ...shell, source: `the shell's ${perS(Buffer.byteLength(shell.body))} bytes` }
    : { ...fixedShell(), source: 'a fixed 3,072-byte document (no shell yet)' };
}

async function bareReference(run: Run, shell: { body: string; headers: Record<string, string>; source: string }): Promise<void> {
  const bodyFile = path.join(run.options.outDir, 'shell.html');
  fs.writeFileSync(bodyFile, shell.body);
  progress(`starting bare node:http on core ${serverCore}, answering ${shell.source}`);
  const server = await startBareServer(root, bodyFile, JSON.stringify(shell.headers));
  run.results.pinning['bare node:http'] = server.affinity();
  run.results.reference.bareBody = shell.source;
  try {
    await warmUp(run, server, bareWarmUpPerS);
    // Bare node:http answers the same bytes faster than Kiosk's shell path (about 1.8x in the
    // records): the search starts above the shell path's figure in steps of 25%, not from 16,000
    // in steps of 2, two probes fewer.
    const shellPath = run.results.reference.shellPath?.ratePerS ?? 0;
    run.results.reference.bare =
      shellPath > 0
        ? await findRate(run, server, 'bare node:http', Math.round(shellPath * bareOverShellPath), { ...referenceSearch(run.options), factor: nearFactor })
        : await findRate(run, server, 'bare node:http', 16_000, referenceSearch(run.options));
  } finally {
    await server.stop();
  }
}

/** Bare Express + renderToString on Kiosk's article page, from memory: the ratio Kiosk's own work costs. */
async function expressReference(run: Run, startPerS: number): Promise<void> {
  progress(`starting bare Express + renderToString on core ${serverCore}: every article page read into memory first`);
  const server = await startExpressReference(root, run.dbPath, run.pathsFile);
  run.results.pinning['bare Express + renderToString'] = server.affinity();
  try {
    const sample = await fetchPage(server.port, run.paths[0]!);
    if (sample.status !== 200) throw new Error(`the Express reference answered ${sample.status} for ${sample.path}`);
    progress(`Express reference page ${sample.path}: ${sample.elements} elements, ${perS(sample.bytes)} bytes`);
    await warmUp(run, server, kioskWarmUpPerS(run));
    // The records put it at 57-92% of Kiosk's DOM_BUDGET=off capacity: from 80% of it in steps of 25%.
    const search = await findRate(run, server, 'bare Express + renderToString', Math.max(10, Math.round(startPerS * expressShare)), { factor: nearFactor });
    run.results.reference.express = { ...search, page: figures(sample) };
  } finally {
    await server.stop();
  }
}

/** An overload step: how the server answers a rate, its shares and latency. */
function stepTiming(o: BenchOptions): StepTiming {
  return { warmupS: o.warmupSeconds, durationS: o.stepSeconds, timeoutMs: o.timeoutMs, maxConnections: o.connections };
}

/** A window whose CPU per request is compared with another's, or the step that confirms capacity: longer. */
function windowTiming(o: BenchOptions): StepTiming {
  return { ...stepTiming(o), durationS: o.windowSeconds };
}

async function overloadSteps(
  run: Run,
  server: ServerUnderTest,
  mode: FallbackMode,
  capacity: number,
  multipliers: number[],
  measured = new Map<number, StepRecord>(),
): Promise<void> {
  for (const multiplier of multipliers) {
    const rate = Math.max(1, Math.round(multiplier * capacity));
    const step = measured.get(multiplier) ?? (await probe(run, server, `fallback ${mode} ${multiplier}x`, rate, stepTiming(run.options)));
    run.results.steps.push({ ...step, mode, multiplier });
  }
}

const confirmAttempts = 3;
const confirmBackoff = 0.9;

/**
 * Short probes find the knee; a rate held at ~95% CPU for seconds may still not hold for a
 * full step. Capacity is the rate that passes a full-length step: 10% lower each time it fails.
 */
async function confirmCapacity(run: Run, server: ServerUnderTest, search: SearchOutcome, label = 'fallback off 1x'): Promise<StepRecord> {
  let rate = search.ratePerS;
  let step: StepRecord | null = null;
  for (let attempt = 1; attempt <= confirmAttempts; attempt++) {
    step = await probe(run, server, label, rate, windowTiming(run.options));
    search.probes.push(step);
    if (passes(step)) break;
    if (attempt < confirmAttempts) {
      rate = Math.max(1, Math.round(rate * confirmBackoff));
      progress(`  capacity did not hold for a full step: trying ${perS(rate)} req/s`);
    }
  }
  search.confirmed = passes(step!);
  search.ratePerS = rate;
  return step!;
}

async function fallbackOff(run: Run): Promise<number> {
  return withKiosk(run, 'fallback off', { ...guardEnv.off, ...withIngest }, async (server) => {
    const sample = await fetchPage(server.port, run.paths[0]!);
    if (sample.status !== 200) throw new Error(`${sample.path} answered ${sample.status}`);
    run.results.page.sample = figures(sample);
    run.results.page.sampleElementsShown = await elementsAsShownInFull(`http://127.0.0.1:${server.port}${sample.path}`);
    await settle(server);
    progress(
      `page ${sample.path}: ${sample.elements} elements as served, ${run.results.page.sampleElementsShown ?? 'not measured'} as finally shown before any view (no most-read box), ` +
        `${perS(sample.bytes)} bytes, X-Render-Mode ${sample.renderMode}`,
    );
    run.results.passes = await coldAndWarmPasses(run, server, 'SQLite');
    // HTTP costs more than the in-process pipeline, so a quarter of it is a safe first probe.
    const inProcess = run.results.reference.render?.renderPagePerS;
    const search = await findRate(run, server, 'SSR capacity', inProcess ? Math.max(10, Math.round(inProcess / 4)) : 50);
    run.results.capacity = search;
    if (search.ratePerS === 0) return 0;
    const oneX = await confirmCapacity(run, server, search);
    progress(`SSR capacity: ${perS(search.ratePerS)} req/s${search.confirmed ? ', held for a full step' : ', NOT confirmed by a full step'}`);
    run.results.churn = await churnSteps(run, server, 'SQLite', search.ratePerS);
    await overloadSteps(run, server, 'off', search.ratePerS, run.options.offMultipliers, new Map([[1, oneX]]));
    return search.ratePerS;
  });
}

async function fallbackOn(run: Run, capacity: number): Promise<void> {
  await withKiosk(run, 'fallback on', guardEnv.on, (server) => overloadSteps(run, server, 'on', capacity, run.options.multipliers));
}

/**
 * Breaking news: 95% of requests to 10 articles, fallback on, with the page cache off and on
 * (PAGE_CACHE_TTL_MS=1000). A generator of its own reads the hot-set paths.
 */
async function hotSet(run: Run, capacity: number): Promise<void> {
  const pathsFile = path.join(run.options.outDir, 'hot-set-paths.json');
  fs.writeFileSync(pathsFile, JSON.stringify(hotSetPaths(run.paths)));
  const generator = run.newGenerator(pathsFile);
  const hot = { ...run, generator };
  try {
    for (const cache of [false, true]) {
      const env = { ...guardEnv.on, ...(cache ? { PAGE_CACHE_TTL_MS: '1000' } : {}) };
      await withKiosk(hot, `hot set, page cache ${cache ? 'on' : 'off'}`, env, async (server) => {
        for (const multiplier of run.options.hotSetMultipliers) {
          const rate = Math.max(1, Math.round(multiplier * capacity));
          const step = await probe(hot, server, `hot set ${multiplier}x, page cache ${cache ? 'on' : 'off'}`, rate, stepTiming(run.options));
          run.results.hotSet.push({ ...step, cache, multiplier });
        }
      });
    }
  } finally {
    generator.stop();
  }
}

/**
 * A directory of its own for one server's last good copies, removed with the server; readable
 * by Nginx's workers, which run as nobody when Nginx is started as root.
 */
function copiesDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-bench-last-good-'));
  fs.chmodSync(dir, 0o755);
  return dir;
}

function megabytes(bytes: number): string {
  return (bytes / 1_048_576).toFixed(1);
}

/**
 * The same guard, one worker, with production's Nginx in front, Nginx pinned on the worker's
 * core: each multiple of capacity with a storm of new connections (up to --connections) and
 * with keep-alive clients (--keepalive-connections, as a load balancer's pool), reading the
 * articles in one path mix. The last-good tier is on, as production runs it, with a directory
 * of its own (a build without the tier ignores the setting). A Zipf flood starts from the tier a
 * serving site has (warmTier); the uniform steps from a cold one, as before. With a PostgreSQL
 * URL, the content comes from that database instead of the SQLite store.
 */
async function throughNginx(run: Run, capacity: number, mix: PathMix, postgresUrl: string | null = null): Promise<void> {
  const store: Record<string, string> = postgresUrl ? { CONTENT_DATABASE_URL: postgresUrl } : {};
  const copies = copiesDir();
  const serverEnv = { ...guardEnv.on, ...copiesEnv(copies), ...run.options.serverEnv, ...store };
  const name = `${postgresUrl ? 'through Nginx, PostgreSQL' : 'through Nginx'}${mix === 'uniform' ? '' : `, ${describeMix(mix)} paths`}`;
  const mixed: Run = { ...run, generator: run.mixGenerators.get(mix)! };
  progress(
    `starting Nginx in front of Kiosk (fallback on${postgresUrl ? ', content from PostgreSQL' : ''}, ${describeMix(mix)} paths), both on core ${serverCore}`,
  );
  const server = await startKioskBehindNginx(root, name, run.dbPath, serverEnv, { workers: 1, core: serverCore });
  run.results.serverEnv[name] = { ...serverEnv, LISTEN_MODE: 'per-worker' };
  run.results.pinning[`Kiosk and Nginx${postgresUrl ? ', PostgreSQL' : ''}${mix === 'uniform' ? '' : `, ${describeMix(mix)}`}`] = server.affinity();
  const kinds = [
    { mode: postgresUrl ? 'nginx-pg' : 'nginx', label: 'new connections', connections: run.options.connections },
    { mode: postgresUrl ? 'nginx-pg-keepalive' : 'nginx-keepalive', label: 'keep-alive clients', connections: run.options.keepAliveConnections },
  ] as const;
  try {
    if (mix === 'uniform') await warmUp(mixed, server, kioskWarmUpPerS(run));
    else await warmTier(run, server, capacity, copies, name, mix);
    for (const kind of kinds) {
      for (const multiplier of floodMultipliers(mix, run.options.nginxMultipliers)) {
        const rate = Math.max(1, Math.round(multiplier * capacity));
        const step = await probe(mixed, server, `${name} ${multiplier}x, ${kind.label}`, rate, {
          ...stepTiming(run.options),
          maxConnections: kind.connections,
        });
        run.results.steps.push({ ...step, mode: kind.mode, multiplier, pathMix: mix });
      }
    }
  } finally {
    await server.stop();
    const use = diskUse(copies);
    if (use.files > 0) run.results.notes.push(`${name}: ${perS(use.files)} last good copies, ${megabytes(use.bytes)} MB, on disk after its steps.`);
    fs.rmSync(copies, { recursive: true, force: true });
  }
}

/**
 * Before a Zipf flood, the server serves as a site does before one: every article once (the
 * uniform generator's full rotation) at an eighth of the capacity, so its workers copy what they
 * render (the copies' budget uses idle time). Also the server's warm-up: a fresh worker's
 * first renders are at a rate below warmUp's. Not recorded as a step; the copies on disk after
 * it are.
 */
async function warmTier(run: Run, server: ServerUnderTest, capacity: number, dir: string, name: string, mix: PathMix): Promise<void> {
  const rate = Math.max(100, Math.round(capacity * tierWarmShare));
  const requests = run.paths.length;
  progress(`${name}: serving every article once at ${perS(rate)} req/s before the flood, as a site does, not recorded`);
  const seconds = requests / rate;
  const warmupS = Math.min(0.2, seconds / 10);
  await measureStep(run.generator, server, 'serving before the flood', rate, {
    ...stepTiming(run.options),
    warmupS,
    durationS: Math.round((seconds - warmupS) * 100) / 100,
  });
  await settle(server);
  const use = diskUse(dir);
  (run.results.floodStarts ??= []).push({ server: name, pathMix: mix, ratePerS: rate, requests, copies: use.files, bytes: use.bytes });
  progress(`  ${perS(use.files)} last good copies on disk as the flood starts`);
}

/**
 * What keeping the last good copies costs server rendering (tools/bench/last-good.ts): two
 * servers through Nginx on core 0 with the guard out of reach, one keeping copies and one not,
 * both warm over every id; the rate where the two, at once and each at half of it, keep the core
 * about 80% busy, from 90% of capacity down (calibratedRate); then rounds of the two at once,
 * each at half that rate from a generator of its own (both on the generator's core), so the two
 * windows of a round share the host's drift.
 */
async function copiesOnAndOff(run: Run, capacity: number): Promise<void> {
  const o = run.options;
  if (o.lastGoodRounds === 0) return;
  const dir = copiesDir();
  let rate = Math.max(1, Math.round(capacity * copiesRateShare));
  const started: ServerUnderTest[] = [];
  const generators = { kept: run.newGenerator(run.pathsFile), none: run.newGenerator(run.pathsFile) };
  const start = async (name: string, env: Record<string, string>) => {
    const serverEnv = { ...guardEnv.off, ...o.serverEnv, ...env };
    progress(`starting Nginx in front of Kiosk (${name}, fallback off), both on core ${serverCore}`);
    const server = await startKioskBehindNginx(root, name, run.dbPath, serverEnv, { workers: 1, core: serverCore });
    started.push(server);
    run.results.serverEnv[name] = { ...serverEnv, LISTEN_MODE: 'per-worker' };
    run.results.pinning[`Kiosk and Nginx, ${name}`] = server.affinity();
    await warmUp(run, server, kioskWarmUpPerS(run));
    await warmEveryId(run, server);
    return server;
  };
  try {
    // The control: the arm called "kept" keeps none either (--copies-control).
    const kept = await start(o.copiesControl ? 'copies kept (control: none kept)' : 'copies kept', copiesEnv(o.copiesControl ? null : dir));
    const none = await start('no copies', copiesEnv(null));
    // Each arm's half of a rate, on its own generator. The progress line's "other processes"
    // includes the other arm (the report's does not: measureCopies takes it out).
    const halfOf = (total: number) => Math.max(1, Math.round(total / 2));
    const armAt = (server: ServerUnderTest, label: string, total: number, timing: StepTiming) =>
      probe({ ...run, generator: server === kept ? generators.kept : generators.none }, server, `${label}, at once with the other`, halfOf(total), timing);
    // The rate, with both servers at once as in the rounds (the two together on the core).
    // Twice at most: a saturated window's CPU understates what the rate needs, so the first
    // scaling can fall short of the busy share; the second starts from below saturation.
    const calibration: CopiesCalibration[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const label = (arm: string) => `copies: the rounds' rate, ${arm}`;
      const [k, n] = await Promise.all([armAt(kept, label('copies kept'), rate, stepTiming(o)), armAt(none, label('no copies'), rate, stepTiming(o))]);
      calibration.push({ ratePerS: rate, serverCpuPct: k.serverCpuPct + n.serverCpuPct });
      const next = calibratedRate(calibration.at(-1)!);
      if (next === rate) break;
      rate = next;
    }
    const half = halfOf(rate);
    const arm = (server: ServerUnderTest, label: string, timing: StepTiming) => armAt(server, label, rate, timing);
    // The server keeping copies has sat idle since its warm pass while the other was started
    // (until 2026-11-28 also while the rate was calibrated on the other alone; about 40 s then);
    // the rounds then found its first window's warm-up 20-200 times as
    // slow as any other's. Rounds at the rounds' rate, not recorded, bring both to the same recent
    // history (copiesSettlingRounds says why more than one window).
    const settling = { ...stepTiming(o), durationS: copiesSettlingWindowS(o.stepSeconds) };
    await measureCopies({ kept, none }, copiesSettlingRounds(o.quick), (server, label) => arm(server, `${label}, settling, not recorded`, settling));
    const rounds = await measureCopies({ kept, none }, o.lastGoodRounds, (server, label) => arm(server, label, windowTiming(o)));
    const use = diskUse(dir);
    run.results.lastGood = { ratePerS: rate, calibration, calibratedAtOnce: true, rounds, atOnce: true, ...(o.copiesControl ? { control: true } : {}), ...use };
    const writes = rounds.map((r) => copiesWriteShare(r.kept)).map((share) => (share === null ? '–' : `${(100 * share).toFixed(2)}%`));
    progress(
      `  copies kept against none at ${perS(half)} req/s each, at once: CPU per request ${rounds.map((r) => `${copiesRatio(r).toFixed(2)}x`).join(', ')}; ` +
        `median ${medianCopiesRatio(rounds).toFixed(2)}x; writing copies ${writes.join(', ')} of the kept windows' CPU; ${perS(use.files)} copies, ${megabytes(use.bytes)} MB on disk`,
    );
  } finally {
    for (const server of started) await server.stop();
    generators.kept.stop();
    generators.none.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The fleet's store on one machine: the same 10,000 articles in a throwaway PostgreSQL cluster
 * whose processes are pinned on the generator's core (core 0 stays the server's alone, as in
 * the SQLite runs). Its SSR capacity is searched and confirmed as SQLite's was; then the steps
 * through Nginx run again, at multiples of the SQLite capacity, so the two layouts compare.
 */
let activeCluster: Cluster | null = null;

async function postgresRuns(run: Run, capacity: number): Promise<void> {
  let cluster: Cluster;
  try {
    cluster = activeCluster = await startCluster({ migrate: true });
  } catch (error) {
    run.results.notes.push(`PostgreSQL was not measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}.`);
    return;
  }
  try {
    const pids = cluster.processes();
    pinToGeneratorCore(pids);
    progress(`PostgreSQL on port ${cluster.port}, ${pids.length} processes pinned on core ${generatorCore}; seeding the same articles`);
    const { inserted, ms } = await seedPostgres(cluster.url, {});
    progress(`  ${perS(inserted)} articles in ${perS(ms)} ms`);
    const version = spawnSync(path.join(postgresBinDir(), 'postgres'), ['--version'], { encoding: 'utf8' }).stdout.trim();
    const result: PostgresRun = { version, pinning: cluster.processes().map(allowedCpus), capacity: null };
    run.results.postgres = result;
    await withKiosk(run, 'PostgreSQL, fallback off', { ...guardEnv.off, ...withIngest, CONTENT_DATABASE_URL: cluster.url }, async (server) => {
      const sample = await fetchPage(server.port, run.paths[0]!);
      if (sample.status !== 200) throw new Error(`${sample.path} answered ${sample.status} with content from PostgreSQL`);
      result.passes = await coldAndWarmPasses(run, server, 'PostgreSQL');
      // Within a few tens of percent of SQLite's in every record: the search starts near it.
      const search = await findRate(run, server, 'SSR capacity, PostgreSQL', Math.max(10, Math.round(capacity * 0.9)), { factor: nearFactor });
      result.capacity = search;
      if (search.ratePerS > 0) await confirmCapacity(run, server, search, 'PostgreSQL fallback off 1x');
      progress(`SSR capacity with PostgreSQL: ${perS(search.ratePerS)} req/s (${pct(search.ratePerS / capacity)} of SQLite's ${perS(capacity)})`);
      if (search.ratePerS > 0) result.churn = await churnSteps(run, server, 'PostgreSQL', search.ratePerS);
    });
    if (!run.options.skipNginx) for (const mix of run.options.postgresPathMix) await throughNginx(run, capacity, mix, cluster.url);
  } finally {
    activeCluster = null;
    cluster.destroy();
  }
}

/**
 * Nginx's own ceilings on core 0, with keep-alive clients: its fallback path (every page the
 * shell from disk, SSR_QUEUE_LIMIT=0) against Nginx alone serving the same file.
 */
async function nginxReferences(run: Run): Promise<void> {
  const connections = run.options.keepAliveConnections;
  const fallback = await startKioskBehindNginx(
    root,
    'Nginx fallback path',
    run.dbPath,
    { ...guardEnv.off, SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0' },
    { workers: 1, core: serverCore },
  );
  try {
    await warmUp(run, fallback, bareWarmUpPerS);
    // Near the generator's reach on this machine (40,000–62,000 in the records): steps of 25%.
    run.results.reference.nginxFallback = await findRate(run, fallback, 'Nginx fallback path', 40_000, {
      ...referenceSearch(run.options, connections),
      factor: nearFactor,
    });
  } finally {
    await fallback.stop();
  }
  const bare = await startStaticNginx(path.join(root, 'dist/client/shell.html'), serverCore);
  run.results.pinning['bare Nginx'] = bare.affinity();
  try {
    await warmUp(run, bare, bareWarmUpPerS);
    // The same file from Nginx alone is at least as fast as its fallback path: the search starts
    // at the fallback's figure in steps of 25%.
    const fallbackRate = run.results.reference.nginxFallback?.ratePerS ?? 0;
    run.results.reference.nginxStatic =
      fallbackRate > 0
        ? await findRate(run, bare, 'bare Nginx static', fallbackRate, { ...referenceSearch(run.options, connections), factor: nearFactor })
        : await findRate(run, bare, 'bare Nginx static', 40_000, referenceSearch(run.options, connections));
  } finally {
    await bare.stop();
  }
}

/** One worker per core, unpinned, at the one-core capacity: who gets the work in each layout. */
async function balance(run: Run, capacity: number): Promise<void> {
  const workers = Math.max(2, os.availableParallelism());
  for (const layout of balanceLayouts) {
    const env = { ...guardEnv.off, ...run.options.serverEnv, ...layout.env, WEB_CONCURRENCY: String(workers) };
    progress(`balance: ${layout.name}, ${workers} workers, unpinned`);
    const server = layout.nginx
      ? await startKioskBehindNginx(root, `balance: ${layout.name}`, run.dbPath, env, { workers, core: null })
      : await startKiosk(root, `balance: ${layout.name}`, run.dbPath, env, { core: null });
    try {
      // Who gets the work is what is measured, not how fast: a shorter step does.
      const timing = { ...stepTiming(run.options), warmupS: 2, durationS: Math.min(5, run.options.stepSeconds) };
      const result = await measureBalance(layout, server, capacity, (s, rate) => probe(run, s, `balance: ${layout.name}`, rate, timing));
      progress(`  CPU shares ${result.cpuShares.map(pct).join(' / ')}${result.requestShares ? `, requests ${result.requestShares.map(pct).join(' / ')}` : ''}`);
      run.results.balance.push(result);
    } finally {
      await server.stop();
    }
  }
}

function addNotes(results: BenchResults): void {
  const searches = [results.capacity, results.postgres?.capacity, results.reference.bare, results.reference.shellPath];
  const churns = [results.churn, results.postgres?.churn].flatMap((c) =>
    c ? [c.steady, c.pushing, c.after, ...(c.rounds ?? []).flatMap((r) => [r.steady, r.pushing])] : [],
  );
  const passes = [results.passes, results.postgres?.passes].flatMap((p) => (p ? [p.cold, p.warm] : []));
  const steps = [...results.steps, ...searches.flatMap((s) => s?.probes ?? []), ...churns, ...passes];
  const describe = (list: StepRecord[]) => list.map((s) => `${s.label} (${perS(s.offeredPerS)}/s)`).join(', ');
  const short = steps.filter(generatorFellShort);
  if (short.length > 0) results.notes.push(`The generator itself could not send the offered rate in: ${describe(short)}.`);
  const held = steps.filter((s) => connectionsExhausted(s) && !generatorFellShort(s));
  if (held.length > 0) {
    results.notes.push(
      `Unanswered requests held all ${perS(results.options.connections)} connections, so later arrivals waited in the generator ` +
        `(their latency still counts from the scheduled time) in: ${describe(held)}.`,
    );
  }
  const busiest = Math.max(0, ...steps.map((s) => s.generatorCpuPct).filter(Number.isFinite));
  results.notes.push(`Highest generator CPU in any step: ${Math.round(busiest)}% of core ${generatorCore}.`);
  const noisy = steps.filter(disturbed);
  if (noisy.length > 0) {
    results.notes.push(
      `Other processes or the hypervisor took CPU in ${noisy.length} of ${steps.length} step(s) (serverCoreOtherPct and stealPct in bench.json); figures from those steps are lower than the machine can do.`,
    );
  }
  const nginxSteps = results.steps.filter((s) => s.mode.startsWith('nginx'));
  if (nginxSteps.length > 0 && nginxSteps.every((s) => s.lastGood === 0)) {
    results.notes.push(
      'No step through Nginx answered a single last good copy (X-Render-Mode: last-good): the tier is not in this build, or it is off, so fresh pages, shells and 503s are every answer there.',
    );
  }
  const unknown = [...results.steps, ...results.hotSet].filter((s) => s.unknownMode > 0 || s.noMode > 0);
  if (unknown.length > 0) {
    results.notes.push(
      `2xx answers with an X-Render-Mode the bench does not know, or none, counted apart ("other 2xx"), never as server-rendered, in: ${describe(unknown)}.`,
    );
  }
  const copies = results.lastGood;
  if (copies && copies.files === 0) {
    results.notes.push(
      'The server keeping copies (LAST_GOOD_DIR) wrote none: the tier is not in this build, so its rounds compare two servers doing the same work, and the ratio says how far apart two such windows come out.',
    );
  }
  const onSteps = results.steps.filter((s) => s.mode === 'on');
  if (onSteps.length > 0 && onSteps.every((s) => s.shell === 0)) {
    results.notes.push(
      'No step with the fallback on served a single shell: the overload guard is not in this build, so "on" and "off" measure the same server.',
    );
  }
}

function writeOutputs(run: Run): string {
  const { results, options } = run;
  results.finishedAt = new Date().toISOString();
  results.durationS = (performance.now() - startedMs) / 1000;
  results.targets = evaluateTargets(results);
  addNotes(results);
  const markdown = renderMarkdown(results);
  fs.writeFileSync(path.join(options.outDir, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(options.outDir, 'chart.svg'), renderChart(results));
  fs.writeFileSync(path.join(options.outDir, 'report.md'), markdown);
  return markdown;
}

function emptyResults(options: BenchOptions, build: string, articles: number): BenchResults {
  return {
    startedAt: startedAt.toISOString(),
    finishedAt: '',
    durationS: 0,
    command: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
    environment: describeEnvironment(root, build),
    options,
    pinning: { generator: [], orchestrator: [allowedCpus(process.pid)] },
    serverEnv: {},
    page: { articles, sample: null, shell: null },
    reference: { render: null, bareBody: '', bare: null, shellPath: null },
    capacity: null,
    passes: null,
    churn: null,
    postgres: null,
    steps: [],
    hotSet: [],
    balance: [],
    targets: [],
    notes: [],
  };
}

async function prepare(options: BenchOptions): Promise<Run> {
  fs.mkdirSync(options.outDir, { recursive: true });
  const build = ensureBuild(root, options.build, progress);
  progress(`build: ${build}`);
  const dbPath = path.join(options.outDir, 'kiosk.sqlite');
  progress(`seeding ${dbPath}`);
  await seedBenchStore(dbPath);
  const paths = articlePaths(dbPath);
  const pathsFile = path.join(options.outDir, 'article-paths.json');
  fs.writeFileSync(pathsFile, JSON.stringify(paths));
  const results = emptyResults(options, build, paths.length);
  const binary = nativeGeneratorBinary(root);
  const newGenerator = (file: string) => new NativeGenerator(binary, file);
  const generator = newGenerator(pathsFile);
  const mixGenerators = new Map<PathMix, NativeGenerator>([['uniform', generator]]);
  if ([...options.pathMix, ...options.postgresPathMix].includes('zipf')) {
    const zipfFile = path.join(options.outDir, 'zipf-paths.json');
    fs.writeFileSync(zipfFile, JSON.stringify(mixPaths('zipf', paths)));
    mixGenerators.set('zipf', newGenerator(zipfFile));
  }
  results.generator = 'native (tools/bench/loadgen.c, epoll)';
  results.pinning.generator = [`core ${generatorCore} (taskset per step)`];
  progress(`${paths.length} article pages; ${results.generator} generator on core ${generatorCore}`);
  return { options, generator, newGenerator, mixGenerators, dbPath, pathsFile, paths, results };
}

function cleanUp(run: Run): void {
  for (const generator of run.mixGenerators.values()) generator.stop();
  if (run.options.keepStore) return;
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(run.dbPath + suffix, { force: true });
}

async function measureAll(run: Run): Promise<void> {
  if (!run.options.skipReference) {
    run.results.reference.render = await renderReference(run);
    const renderPagePerS = run.results.reference.render?.renderPagePerS;
    if (renderPagePerS)
      progress(
        `the whole run again, at this host's renderPage of ${perS(renderPagePerS)}/s: ${describeEstimate(estimateSeconds(run.options, renderPagePerS), 'from here')}`,
      );
    await bareReference(run, await shellReference(run));
  }
  if (run.options.capacity !== null) run.results.notes.push(`Capacity given (--capacity ${run.options.capacity}), not measured: no direct steps in this run.`);
  const capacity = run.options.capacity ?? (await fallbackOff(run));
  if (capacity === 0) return;
  const withBudget = <T>(name: string, env: Record<string, string>, work: (s: ServerUnderTest) => Promise<T>) =>
    withKiosk(run, name, { ...guardEnv.off, ...env }, async (server) => {
      await warmEveryId(run, server);
      return work(server);
    });
  // Both within a quarter of the capacity just found in the records: the searches start near it.
  const budget = {
    withKiosk: withBudget,
    findRate: (s: ServerUnderTest, name: string, from: number) => findRate(run, s, name, from, { factor: nearFactor }),
    progress,
  };
  run.results.domBudget = await measureDomBudget({ ...budget, outDir: run.options.outDir, path: run.paths[0]!, startPerS: Math.round(capacity * 0.8) });
  run.results.notes.push(...describeDomBudget(run.results.domBudget));
  if (!run.options.skipReference) await expressReference(run, run.results.domBudget.variants.find((v) => v.budget === 'off')?.capacityPerS ?? capacity);
  if (run.options.capacity === null) await fallbackOn(run, capacity);
  if (!run.options.skipHotSet) await hotSet(run, capacity);
  if (!run.options.skipNginx) {
    for (const mix of run.options.pathMix) await throughNginx(run, capacity, mix);
    await copiesOnAndOff(run, capacity);
    if (!run.options.skipReference) await nginxReferences(run);
  }
  if (run.options.skipPostgres) run.results.notes.push('PostgreSQL not measured in this run (--skip-postgres).');
  else if (run.options.capacity !== null) run.results.notes.push('PostgreSQL not measured: its target compares capacities, and --capacity skips the search.');
  else await postgresRuns(run, capacity);
  if (!run.options.skipBalance) await balance(run, capacity);
}

async function main(args: string[]): Promise<number> {
  let options: BenchOptions | null;
  try {
    options = readOptions(args, root, startedAt);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return refuse({ name: 'bench', usage }, error.message);
  }
  if (!options) {
    console.log(usage);
    return 0;
  }
  pinSelf();
  progress(`the whole run: ${describeEstimate(estimateSeconds(options))}`);
  const run = await prepare(options);
  try {
    await measureAll(run);
  } catch (error) {
    // What was measured before the failure is still worth reading.
    run.results.notes.push(`The run failed before it finished: ${error instanceof Error ? error.message : String(error)}`);
    writeOutputs(run);
    throw error;
  } finally {
    cleanUp(run);
  }
  const markdown = writeOutputs(run);
  process.stdout.write(markdown);
  progress(`done in ${elapsed()}; wrote ${['bench.json', 'chart.svg', 'report.md'].map((f) => path.join(options.outDir, f)).join(', ')}`);
  return 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    activeCluster?.destroy();
    process.exit(130);
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    killChildren();
    activeCluster?.destroy();
    console.error('bench: failed', error);
    process.exitCode = 1;
  },
);
