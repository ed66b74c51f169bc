// npm run capacity: the Elastic Beanstalk fleet simulated under a traffic profile, with the
// scaling policy from .ebextensions/. `npm run capacity -- --help` for the flags and the
// model; the modules are in tools/capacity/.
import fs from 'node:fs';
import path from 'node:path';
import { repositoryRoot, UsageError } from '@kiosk/surface';
import { readBenchJson, type BenchFigures } from './bench-input';
import { renderChart } from './chart';
import { InputError, span } from './duration';
import { compareEdge, edgeDefaults } from './edge';
import { readOriginShield } from './edge-distribution';
import { drawLaunches, type HealthCheck } from './launch';
import { readOptions, usage, type CapacityOptions } from './options';
import { readPolicy, type PolicyReading } from './policy';
import { parseProfile, parseProfileCsv, type Profile } from './profile';
import { comparePolicies, policyLabels, variants } from './compare';
import { parseObjective, recommend, type RecommendInput } from './recommend';
import { benchCheck, describeInputs, rate, spreadLines, summaryLines, timelineTable, type ReportInputs } from './report';
import { edgeLines } from './report-edge';
import { comparisonLines, objectiveLines, recommendationLines } from './report-recommend';
import { simulate, type LaunchModel } from './simulate';
import { minuteRows, summarize, type Summary } from './summary';
import { vcpusOfType, type InstanceCapacity } from './workload';

function newestBench(): string | null {
  const dir = path.join(repositoryRoot, 'bench-results');
  if (!fs.existsSync(dir)) return null;
  const runs = fs
    .readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, 'bench.json')))
    .sort();
  return runs.length ? path.join(dir, runs[runs.length - 1]!, 'bench.json') : null;
}

function instanceCapacity(options: CapacityOptions, reading: PolicyReading): { capacity: InstanceCapacity; sources: string[]; bench: BenchFigures | null } {
  const sources: string[] = [];
  let bench: BenchFigures | null = null;
  const benchFile = options.bench ?? (options.ssrPerVcpu !== null && options.shellPerVcpu !== null ? null : newestBench());
  if (benchFile) {
    if (!fs.existsSync(benchFile)) throw new InputError(`--bench ${benchFile}: no such file`);
    bench = readBenchJson(fs.readFileSync(benchFile, 'utf8'), path.relative(process.cwd(), benchFile) || benchFile);
  } else if (options.ssrPerVcpu === null || options.shellPerVcpu === null) {
    throw new InputError(
      'No capacity figures: pass --bench FILE (a npm run bench result), or --ssr-per-vcpu and --shell-per-vcpu ' +
        "(the newsroom's c5.xlarge: 22.5 and 200, i.e. 90 and 800 req/s per instance).",
    );
  }
  if (bench) sources.push(`bench: ${bench.file}, run ${bench.startedAt.slice(0, 10)} on ${bench.cpuModel}, commit ${bench.commit}`);
  const ssrPerVcpu = options.ssrPerVcpu ?? bench!.ssrPerCore;
  const shellPerVcpu = options.shellPerVcpu ?? bench!.shellPerCore;
  sources.push(`server-rendered: ${rate(ssrPerVcpu)}/s per vCPU (${options.ssrPerVcpu !== null ? '--ssr-per-vcpu' : "the bench's capacity.ratePerS"})`);
  sources.push(`shell: ${rate(shellPerVcpu)}/s per vCPU (${options.shellPerVcpu !== null ? '--shell-per-vcpu' : "the bench's reference.shellPath.ratePerS"})`);
  if (shellPerVcpu <= ssrPerVcpu) throw new InputError(`the shell rate (${shellPerVcpu}) must be above the server-rendering rate (${ssrPerVcpu})`);

  const type = reading.policy.instanceType;
  const fromType = type ? vcpusOfType(type) : null;
  const vcpus = options.vcpus ?? fromType ?? 4;
  sources.push(
    `vCPUs: ${vcpus} (${options.vcpus !== null ? '--vcpus' : fromType !== null ? `from the size of ${type}` : `default, a c5.xlarge's${type ? `: pass --vcpus for ${type}` : ''}`})`,
  );
  const apiCost = options.apiCost ?? ssrPerVcpu / shellPerVcpu;
  return { capacity: { vcpus, ssrPerS: ssrPerVcpu * vcpus, shellPerS: shellPerVcpu * vcpus, apiCost }, sources, bench };
}

function loadProfile(options: CapacityOptions): Profile {
  if (options.profileCsv) {
    if (!fs.existsSync(options.profileCsv)) throw new InputError(`--profile-csv ${options.profileCsv}: no such file`);
    return parseProfileCsv(fs.readFileSync(options.profileCsv, 'utf8'), options.profileCsv);
  }
  return parseProfile(options.profile);
}

/** Progress on stderr for a terminal only: scripts and pipes get clean output. */
function progressLine(text: string | null): void {
  if (!process.stderr.isTTY) return;
  process.stderr.write(text === null ? '\r\x1b[K' : `\r\x1b[K${text}`);
}

function main(): number {
  const options = readOptions(process.argv.slice(2));
  if (!options) {
    console.log(usage);
    return 0;
  }
  const reading = readPolicy({
    dir: path.resolve(repositoryRoot, options.ebextensions ?? '.ebextensions'),
    design: options.designPolicy,
    overrides: options.overrides,
  });
  const policy = reading.policy;
  const { capacity, sources, bench } = instanceCapacity(options, reading);
  const traffic = { cdnHit: options.cdnHit, pagesPerSession: options.pagesPerSession };
  const initialInstances = options.initial ?? policy.minSize;
  if (initialInstances < policy.minSize || initialInstances > policy.maxSize) {
    throw new InputError(`--initial ${initialInstances} is outside MinSize..MaxSize (${policy.minSize}..${policy.maxSize})`);
  }
  const pricePerHour = options.price;
  const check: HealthCheck = {
    intervalS: policy.healthCheckIntervalS,
    healthyThreshold: policy.healthyThreshold,
    unhealthyThreshold: policy.unhealthyThreshold,
  };
  const launchFor = (seed: number): LaunchModel => ({
    draw: drawLaunches({ inService: options.inService, deploy: options.deploy }, check, seed),
    warmingCpu: options.warmingCpu,
  });
  const launchInputs = {
    inService: options.inService,
    deploy: options.deploy,
    warmingCpu: options.warmingCpu,
    metricDelayS: options.metricDelayS,
    customMetricDelayS: options.customMetricDelayS,
    runs: options.runs,
    seed: options.seed,
  };

  if (options.edge) {
    const edge = options.edge;
    // What the distribution has: Origin Shield is one regional cache in front of the origin.
    const originShield = edge.regionalCaches === null ? readOriginShield(path.resolve(repositoryRoot, options.ebextensions ?? '.ebextensions')) : undefined;
    const input = {
      site: { ...edgeDefaults.site, articles: edge.articles, zipf: edge.zipf, htmlShare: 1 / options.pagesPerSession },
      seed: options.seed,
      today: edgeDefaults.today,
      purged: {
        lifetimes: edge.lifetimes,
        staleWhileRevalidateS: edgeDefaults.today.staleWhileRevalidateS,
        pushesPerS: edge.pushesPerS,
        purgeBatchS: edge.purgeBatchS,
      },
      viewsPerS: edge.viewsPerS,
      locations: edge.locations,
      regionalCaches: edge.regionalCaches ?? (originShield ? 1 : 0),
      originShield,
      frontHit: edge.frontHit,
      anchorViewsPerS: edge.anchorViewsPerS,
      capacity,
    };
    const comparison = compareEdge(input);
    if (options.json) console.log(JSON.stringify({ inputs: { ...input, capacitySources: sources }, comparison }, null, 2));
    else console.log([...edgeLines(input, comparison, sources, policy.minSize)].join('\n'));
    return 0;
  }

  if (options.recommend) {
    if (options.holdS <= 0) throw new InputError('--hold must be above 0');
    const objective = parseObjective(options.objective);
    const context = {
      objective,
      settleS: options.settleS,
      holdS: options.holdS,
      maxShellShare: options.maxShellShare,
      minSizeFloor: options.minSizeFloor,
      runs: options.runs,
      seed: options.seed,
      meetShare: options.meetShare,
    };
    const input: RecommendInput = {
      simulation: {
        policy,
        resources: reading.resources,
        capacity,
        traffic,
        metricDelayS: options.metricDelayS,
        customMetricDelayS: options.customMetricDelayS,
      },
      launchFor,
      ...context,
    };
    const comparison = comparePolicies(input, options.dayS, (key, minSize) =>
      progressLine(`capacity: ${policyLabels[key]}, MinSize ${minSize}, ${options.runs} runs of ${options.dayS / 3600} h…`),
    );
    let candidates = 0;
    const recommendation = recommend(
      input,
      (minSize, increment) => progressLine(`capacity: candidate ${++candidates}: MinSize ${minSize}, +${increment}, ${options.runs} runs…`),
      { variant: variants(reading.resources).cpu },
    );
    progressLine(null);
    const inputs: ReportInputs = {
      capacity,
      capacitySources: sources,
      bench,
      traffic,
      profile: `objective ${options.objective}`,
      launch: launchInputs,
      initialInstances: policy.minSize,
      reading,
      pricePerHour,
    };
    if (options.json) {
      console.log(
        JSON.stringify({ inputs: { ...inputs, bench: bench && { ...bench, steps: undefined } }, comparison, recommendation, criterion: context }, null, 2),
      );
    } else {
      const reportContext = { ...context, maxSize: policy.maxSize, pricePerHour };
      console.log(
        [
          ...describeInputs(inputs),
          '',
          ...objectiveLines(reportContext),
          '',
          ...comparisonLines(comparison, reportContext),
          ...recommendationLines(recommendation, reportContext),
        ].join('\n'),
      );
    }
    return 0;
  }

  const profile = loadProfile(options);
  const durationS = options.durationS ?? profile.defaultDurationS;
  const run = (seed: number) =>
    simulate({
      policy,
      resources: reading.resources,
      capacity,
      traffic,
      rateAt: profile.rateAt,
      durationS,
      launch: launchFor(seed),
      metricDelayS: options.metricDelayS,
      customMetricDelayS: options.customMetricDelayS,
      initialInstances,
    });
  const result = run(options.seed);
  const rise = options.riseAtS !== null ? { atS: options.riseAtS, note: '--rise-at' } : { atS: profile.riseAtS, note: profile.riseNote };
  const summary = summarize(result, rise, pricePerHour);
  const summaries: Summary[] = [summary];
  for (let i = 1; i < options.runs; i++) {
    if (i % 10 === 0) progressLine(`capacity: run ${i + 1} of ${options.runs}…`);
    summaries.push(summarize(run(options.seed + i), rise, pricePerHour));
  }
  progressLine(null);
  const minutes = minuteRows(result);
  const inputs: ReportInputs = {
    capacity,
    capacitySources: sources,
    bench,
    traffic,
    profile: `${profile.description}, for ${span(durationS)}`,
    launch: launchInputs,
    initialInstances,
    reading,
    pricePerHour,
  };
  if (options.svg) {
    const title = `${profile.description}: ${policy.upperIncrement > 0 ? '+' : ''}${policy.upperIncrement} above ${policy.upperThreshold}% CPU, run 1 of ${options.runs} (seed ${options.seed})`;
    fs.writeFileSync(options.svg, renderChart(result, policy, title));
  }
  if (options.json) {
    console.log(
      JSON.stringify(
        {
          inputs: { ...inputs, bench: bench && { ...bench, steps: undefined } },
          minutes,
          actions: result.actions,
          alarmChanges: result.alarmChanges,
          invocations: result.invocations,
          summary,
          runs: summaries,
        },
        null,
        2,
      ),
    );
    return 0;
  }
  const lines = [
    ...describeInputs(inputs),
    '',
    `Run 1 of ${options.runs} (seed ${options.seed}), minute by minute:`,
    timelineTable(minutes),
    '',
    ...summaryLines(summary),
    ...spreadLines(summaries),
  ];
  if (bench) lines.push('', ...benchCheck(bench, capacity.apiCost));
  if (options.svg) lines.push('', `Chart: ${options.svg}`);
  console.log(lines.join('\n'));
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  if (error instanceof UsageError || error instanceof RangeError) {
    console.error(`capacity: ${error.message}`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
