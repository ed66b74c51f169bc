import { connectionsExhausted, generatorFellShort, passes, type StepRecord } from './measure';
import type { BenchResults, SearchOutcome, Target } from './results';

const integer = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });

export function perS(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : integer.format(value);
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value < 10 ? value.toFixed(1) : integer.format(value);
}

export function pct(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value * 100)}%` : '–';
}

function cpu(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value)}%` : '–';
}

function ratio(value: number, of: number): number {
  return of > 0 ? value / of : Number.NaN;
}

export function flagText(step: StepRecord): string {
  return step.flags.map((f) => f.text).join('; ');
}

/** Why a step could not show the server's behaviour at the rate it names. */
function generatorCaveat(step: StepRecord): string {
  if (generatorFellShort(step)) return ` (the generator could not send that rate: ${flagText(step)})`;
  if (connectionsExhausted(step)) {
    return ` (${perS(step.sentPerS)}/s reached the wire: ${step.pool.waitedForConnection} requests waited because unanswered requests held all connections)`;
  }
  return '';
}

/** A rate above what bare node:http answers on this core cannot be all answered by any server. */
function ceilingCaveat(step: StepRecord, bare: SearchOutcome | null): string {
  if (!bare || step.offeredPerS <= bare.ratePerS) return '';
  return `; offered is above the bare node:http ceiling of ${perS(bare.ratePerS)}/s`;
}

function failures(step: StepRecord): string {
  return `errors ${step.errors}, timeouts ${step.timeouts}, non-2xx ${step.non2xx}`;
}

function overloadTarget(r: BenchResults, multiplier: number, ssrShareOfCapacity: number): Target {
  const steps = r.steps;
  const capacity = r.capacity?.ratePerS ?? 0;
  const name = `fallback on at ${multiplier}x: no errors or timeouts, p99 < 250 ms, server-rendered pages/s ≥ ${pct(ssrShareOfCapacity)} of capacity`;
  const step = steps.find((s) => s.mode === 'on' && s.multiplier === multiplier);
  if (!step) return { name, met: null, figures: 'not measured in this run' };
  const clean = step.errors === 0 && step.timeouts === 0 && step.non2xx === 0;
  const fast = step.latencyMs.p99 < 250;
  const ssr = step.ssrPerS >= ssrShareOfCapacity * capacity;
  return {
    name,
    met: clean && fast && ssr,
    figures:
      `${perS(step.offeredPerS)} req/s offered: ${failures(step)}; p99 ${ms(step.latencyMs.p99)} ms; ` +
      `${perS(step.ssrPerS)} server-rendered/s = ${pct(ratio(step.ssrPerS, capacity))} of ${perS(capacity)}${generatorCaveat(step)}${ceilingCaveat(step, r.reference.bare)}`,
  };
}

function spikeTarget(r: BenchResults, multiplier: number): Target {
  const steps = r.steps;
  const name = `fallback on at ${multiplier}x: no timeouts, 503s < 5%, p99 < 500 ms`;
  const step = steps.find((s) => s.mode === 'on' && s.multiplier === multiplier);
  if (!step) return { name, met: null, figures: 'not measured in this run' };
  const shed = ratio(step.status503, step.scheduled);
  return {
    name,
    met: step.timeouts === 0 && shed < 0.05 && step.latencyMs.p99 < 500,
    figures:
      `${perS(step.offeredPerS)} req/s offered, ${perS(step.sentPerS)} sent: timeouts ${step.timeouts}, 503s ${step.status503} (${pct(shed)}), ` +
      `errors ${step.errors}; p99 ${ms(step.latencyMs.p99)} ms${generatorCaveat(step)}${ceilingCaveat(step, r.reference.bare)}`,
  };
}

function capacityTarget(results: BenchResults): Target {
  const name = 'SSR capacity of the article page ≥ 60% of the raw renderToString rate';
  const capacity = results.capacity?.ratePerS;
  const raw = results.reference.render?.rawRenderPerS;
  if (!capacity || !raw) return { name, met: null, figures: 'not measured in this run' };
  return { name, met: capacity >= 0.6 * raw, figures: `${perS(capacity)} req/s = ${pct(capacity / raw)} of ${perS(raw)} renders/s` };
}

function shellTarget(results: BenchResults): Target {
  const name = 'shell path (SSR_QUEUE_LIMIT=0) ≥ 60% of the bare node:http rate';
  const { bare, shellPath } = results.reference;
  if (!bare || !shellPath) return { name, met: null, figures: shellPath ? 'bare server not measured' : 'not measured: no shell served (guard absent?)' };
  const caveat = bare.limitedBy === 'generator' ? '; the bare rate is the generator’s ceiling, so the true ratio is lower' : '';
  return {
    name,
    met: shellPath.ratePerS >= 0.6 * bare.ratePerS,
    figures: `${perS(shellPath.ratePerS)} req/s = ${pct(ratio(shellPath.ratePerS, bare.ratePerS))} of ${perS(bare.ratePerS)} req/s${caveat}`,
  };
}

export function evaluateTargets(results: BenchResults): Target[] {
  return [
    capacityTarget(results),
    overloadTarget(results, 5, 0.7),
    overloadTarget(results, 10, 0.5),
    spikeTarget(results, 20),
    shellTarget(results),
  ];
}

function header(r: BenchResults): string[] {
  const e = r.environment;
  const o = r.options;
  const sample = r.page.sample;
  const shell = r.page.shell;
  const pins = Object.entries(r.pinning)
    .map(([name, cpus]) => `${name} ${cpus.join('/')}`)
    .join(', ');
  return [
    `# Kiosk bench, ${r.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`,
    '',
    `- **Machine**: ${e.cpuModel}, ${e.cores} cores, Linux ${e.kernel}, load average ${e.loadAverage.join(' ')} at start; Node ${e.nodeVersion}; commit ${e.commit}; build: ${e.build}.`,
    `- **Command**: \`${r.command}\` (${Math.round(r.durationS)} s).`,
    `- **Server**: \`node dist/server/index.cjs\`, NODE_ENV=production, WEB_CONCURRENCY=1, one worker; CPU affinity as read back: ${pins}.`,
    `- **Generator**: open loop, fixed rate, its own process on core 1, up to ${perS(o.connections)} keep-alive connections; ` +
      `latency from each request's scheduled send time; a request unanswered ${perS(o.timeoutMs)} ms after it was due is a timeout and enters the percentiles at ${perS(o.timeoutMs)} ms. ` +
      `Steps: ${o.warmupSeconds} s warm-up + ${o.stepSeconds} s measured; capacity probes ${o.searchWarmupSeconds} s + ${o.searchSeconds} s.`,
    `- **Page**: article pages rotating over ${perS(r.page.articles)} ids` +
      (sample
        ? `; e.g. \`${sample.path}\`: **${sample.elements} elements, ${perS(sample.bytes)} bytes** as served (X-Render-Mode: ${sample.renderMode}), ` +
          (r.page.sampleElementsShown ? `${r.page.sampleElementsShown} elements as finally shown in Chromium` : 'elements as finally shown: not measured')
        : '') +
      (shell ? `; the shell: ${shell.elements} elements, ${perS(shell.bytes)} bytes.` : '.'),
  ];
}

function searchNote(search: SearchOutcome): string {
  const probes = search.probes
    .map((p) => `${perS(p.offeredPerS)}${passes(p) ? '✓' : '✗'}`)
    .join(' ');
  const limit = search.hitCeiling ? 'search ceiling reached' : `limited by the ${search.limitedBy}`;
  const confirmation =
    search.confirmed === null
      ? ''
      : search.confirmed
        ? `; probes found ${perS(search.searchRatePerS)}, a full step held ${perS(search.ratePerS)}`
        : `; probes found ${perS(search.searchRatePerS)}, and not even ${perS(search.ratePerS)} held for a full step`;
  return `${limit}${confirmation}; probes ${probes}`;
}

function referenceTable(r: BenchResults): string[] {
  const render = r.reference.render;
  const { bare, shellPath } = r.reference;
  const capacity = r.capacity;
  const rows = ['| on core 0 | req/s | ratio | how |', '| --- | ---: | ---: | --- |'];
  if (render) {
    rows.push(`| raw \`renderToString\` of the article page | ${perS(render.rawRenderPerS)} | 100% | in process, no HTTP, ${render.pages} pages with data loaded, NODE_ENV=${render.nodeEnv} |`);
    rows.push(
      `| \`renderPage\` in process | ${perS(render.renderPagePerS)} | ${pct(ratio(render.renderPagePerS, render.rawRenderPerS))} of raw | store, data, React, document; no HTTP |`,
    );
  }
  if (capacity) {
    rows.push(
      `| **Kiosk SSR capacity** (fallback off) | **${perS(capacity.ratePerS)}** | ${render ? `${pct(ratio(capacity.ratePerS, render.rawRenderPerS))} of raw` : '–'} | p99 < 100 ms, no failures; ${searchNote(capacity)} |`,
    );
  }
  if (bare) rows.push(`| bare \`node:http\` answering ${r.reference.bareBody} | ${perS(bare.ratePerS)} | 100% | ${searchNote(bare)} |`);
  if (shellPath) {
    rows.push(
      `| Kiosk shell path (SSR_QUEUE_LIMIT=0) | ${perS(shellPath.ratePerS)} | ${bare ? `${pct(ratio(shellPath.ratePerS, bare.ratePerS))} of bare` : '–'} | ${searchNote(shellPath)} |`,
    );
  }
  return rows;
}

function stepsTable(r: BenchResults): string[] {
  const capacity = r.capacity?.ratePerS ?? 0;
  const rows = [
    '| fallback | × | offered | sent | achieved | p50 ms | p90 ms | p99 ms | max ms | errors | timeouts | non-2xx | 503 | server-rendered | SSR/s | SSR/s ÷ capacity | peak RSS MB | server CPU | gen CPU | notes |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const s of r.steps) {
    const l = s.latencyMs;
    rows.push(
      `| ${s.mode === 'nginx' ? 'on, through Nginx' : s.mode} | ${s.multiplier} | ${perS(s.offeredPerS)} | ${perS(s.sentPerS)} | ${perS(s.achievedPerS)} | ${ms(l.p50)} | ${ms(l.p90)} | ${ms(l.p99)} | ${ms(l.max)} | ` +
        `${s.errors} | ${s.timeouts} | ${s.non2xx} | ${s.status503} | ${pct(s.ssrShare)} | ${perS(s.ssrPerS)} | ${pct(ratio(s.ssrPerS, capacity))} | ` +
        `${Math.round(s.peakRssMb)} | ${cpu(s.serverCpuPct)} | ${cpu(s.generatorCpuPct)} | ${flagText(s)} |`,
    );
  }
  return rows;
}

function variantsTable(r: BenchResults): string[] {
  const render = r.reference.render;
  if (!render?.variants?.length) return [];
  const first = render.variants[0]!.renderPagePerS;
  return [
    '| server rendering, in process | renderPage/s | vs neither | article page elements | bytes |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...render.variants.map((v) => `| ${v.name} | ${perS(v.renderPagePerS)} | ${pct(ratio(v.renderPagePerS, first))} | ${v.elements} | ${perS(v.bytes)} |`),
  ];
}

function hotSetTable(r: BenchResults): string[] {
  return [
    '| page cache | × | offered | achieved | p50 ms | p99 ms | timeouts | errors | server-rendered | SSR/s | server CPU | notes |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...r.hotSet.map(
      (s) =>
        `| ${s.cache ? 'on (1 s)' : 'off'} | ${s.multiplier} | ${perS(s.offeredPerS)} | ${perS(s.achievedPerS)} | ${ms(s.latencyMs.p50)} | ${ms(s.latencyMs.p99)} | ` +
        `${s.timeouts} | ${s.errors} | ${pct(s.ssrShare)} | ${perS(s.ssrPerS)} | ${cpu(s.serverCpuPct)} | ${flagText(s)} |`,
    ),
  ];
}

function balanceTable(r: BenchResults): string[] {
  const shares = (list: number[] | null) => (list ? list.map(pct).join(' / ') : '–');
  return [
    '| layout | workers | offered | achieved | p99 ms | failures | CPU share per worker | requests per worker | busiest ÷ mean |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |',
    ...r.balance.map(
      (b) =>
        `| ${b.layout} | ${b.workers} | ${perS(b.offeredPerS)} | ${perS(b.achievedPerS)} | ${ms(b.p99Ms)} | ${b.failures} | ${shares(b.cpuShares)} | ${shares(b.requestShares)} | ${b.maxOverMean.toFixed(2)} |`,
    ),
  ];
}

function targetsTable(targets: Target[]): string[] {
  const verdict = (met: boolean | null) => (met === null ? 'not measured' : met ? '**met**' : '**not met**');
  return ['| target | result | figures |', '| --- | --- | --- |', ...targets.map((t) => `| ${t.name} | ${verdict(t.met)} | ${t.figures} |`)];
}

export function renderMarkdown(r: BenchResults): string {
  const lines = [...header(r), '', '## Reference limits', '', ...referenceTable(r)];
  if (r.steps.length > 0) {
    lines.push('', '## Overload steps (offered = multiple of the SSR capacity)', '', ...stepsTable(r));
    lines.push(
      '',
      '"achieved" counts 2xx answers per second; "server-rendered" is the share of all requests scheduled in the window answered 2xx with `X-Render-Mode: ssr`; CPU is percent of one core over the measured window.',
    );
  }
  const variants = variantsTable(r);
  if (variants.length > 0) lines.push('', '## Server-rendering optimisations, each on and off (in process, core 0)', '', ...variants);
  if (r.hotSet.length > 0) {
    lines.push('', '## Breaking news: 95% of requests to 10 articles, fallback on', '', ...hotSetTable(r));
  }
  if (r.balance.length > 0) {
    lines.push('', '## Balance across workers (unpinned, one worker per core, fallback off)', '', ...balanceTable(r));
    lines.push('', 'CPU share is each worker\'s share of the workers\' CPU time over the step; requests per worker come from Nginx\'s access log.');
  }
  lines.push('', '## Targets', '', ...targetsTable(r.targets));
  if (r.notes.length > 0) lines.push('', '## Notes', '', ...r.notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}
