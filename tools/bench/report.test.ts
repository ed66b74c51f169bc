import assert from 'node:assert/strict';
import test from 'node:test';
import { readOptions } from './options';
import { steadySpread } from './churn';
import { evaluateTargets, hostDrift, renderMarkdown } from './report';
import { renderChart } from './chart';
import { describeEstimate, estimateSeconds } from './estimate';
import { floodMultipliers, measureCopies } from './last-good';
import { sharedCore } from './measure';
import { chunkRange, chunkSpread, parseSteadiness } from './steadiness';
import type { BenchResults, SearchOutcome } from './results';

const search = (ratePerS: number, confirmed: boolean | null = true): SearchOutcome => ({
  name: 'SSR capacity',
  ratePerS,
  searchRatePerS: ratePerS,
  confirmed,
  hitCeiling: false,
  limitedBy: 'server',
  passed: null,
  failedAbove: null,
  probes: [],
});

/** The least of a run that the targets and the report read: capacities, no steps. */
function results(sqlite: number | null, postgres: SearchOutcome | null): BenchResults {
  return {
    startedAt: '2026-11-22T00:00:00.000Z',
    finishedAt: '2026-11-22T00:10:00.000Z',
    durationS: 600,
    command: 'npm run bench',
    environment: { cpuModel: 'test', cores: 2, kernel: 'test', loadAverage: [0, 0, 0], nodeVersion: 'v24', commit: 'abc', build: 'test' },
    options: readOptions([], '/tmp')!,
    pinning: {},
    serverEnv: {},
    page: { articles: 10, sample: null, shell: null },
    reference: { render: null, bareBody: '', bare: null, shellPath: null },
    capacity: sqlite === null ? null : search(sqlite),
    postgres: postgres && { version: 'postgres (PostgreSQL) 15', pinning: ['1', '1'], capacity: postgres },
    steps: [],
    hotSet: [],
    balance: [],
    targets: [],
    notes: [],
  } as unknown as BenchResults;
}

const postgresTarget = (r: BenchResults) => evaluateTargets(r).find((t) => t.name.startsWith('SSR capacity with PostgreSQL'))!;

test('the PostgreSQL target compares the two capacities of one run at 90%', () => {
  assert.equal(postgresTarget(results(1000, search(950))).met, true);
  assert.match(postgresTarget(results(1000, search(950))).figures, /950 req\/s = 95% of 1,000 req\/s/);
  assert.equal(postgresTarget(results(1000, search(900))).met, true);
  assert.equal(postgresTarget(results(1000, search(899))).met, false);
});

test('a PostgreSQL capacity that did not hold for a full step does not meet the target', () => {
  const target = postgresTarget(results(1000, search(980, false)));
  assert.equal(target.met, false);
  assert.match(target.figures, /not even that held/);
});

test("the PostgreSQL target says how far the host drifted between the two searches, from each store's steadiness", () => {
  const chunk = (p50: number) => ({
    seconds: 8,
    arithmetic: { chunks: 100, p10: 5, p50: 5.5, p90: 6, ratio: 1.2 },
    memory: { chunks: 100, p10: 2, p50, p90: 8, ratio: 4 },
  });
  const r = results(1000, search(780));
  assert.equal(hostDrift(r), '');
  assert.doesNotMatch(postgresTarget(r).figures, /memory-bound/);
  r.churn = { steadiness: chunk(4.294) } as never;
  assert.equal(hostDrift(r), '', 'one store measured: no comparison');
  r.postgres!.churn = { steadiness: chunk(4.904) } as never;
  assert.equal(hostDrift(r), "; the host's same memory-bound chunk took 4.3 ms (median) after SQLite's search and 4.9 ms after PostgreSQL's (1.14x)");
});

test('without a PostgreSQL run, or without the SQLite capacity, the target is "not measured"', () => {
  assert.equal(postgresTarget(results(1000, null)).met, null);
  assert.equal(postgresTarget(results(null, search(950))).met, null);
});

test('the report lists the PostgreSQL capacity beside SQLite, with the cluster pinned where it ran', () => {
  const markdown = renderMarkdown(results(1000, search(950)));
  assert.match(
    markdown,
    /\| Kiosk SSR capacity, content from PostgreSQL \(fallback off\) \| 950 \| 95% of SQLite \| postgres \(PostgreSQL\) 15, its processes on core 1;/,
  );
});

test('--skip-postgres is an option; PostgreSQL runs by default', () => {
  assert.equal(readOptions([], '/tmp')!.skipPostgres, false);
  assert.equal(readOptions(['--skip-postgres'], '/tmp')!.skipPostgres, true);
});

test('--churn-rounds: 3 by default, 0 skips the rounds, anything but a whole number is refused', () => {
  assert.equal(readOptions([], '/tmp')!.churnRounds, 3);
  assert.equal(readOptions(['--churn-rounds', '3'], '/tmp')!.churnRounds, 3);
  assert.equal(readOptions(['--churn-rounds', '0'], '/tmp')!.churnRounds, 0);
  for (const bad of ['--churn-rounds=-1', '--churn-rounds=1.5', '--churn-rounds=three'])
    assert.throws(() => readOptions([bad], '/tmp'), /--churn-rounds must be a whole number/);
});

test('the DOM budget targets: capacity ratio ≥ 1.5x, ≥ 550 elements shown and ≤ 60% of them served', () => {
  const variant = (budget: 'on' | 'off', served: number, shown: number | null, capacityPerS: number) => ({
    budget,
    path: '/news/1',
    elementsServed: served,
    elementsShown: shown,
    bytes: served * 60,
    capacityPerS,
    capacityConfirmed: null,
  });
  const withBudget = (on: ReturnType<typeof variant>, off: ReturnType<typeof variant>): BenchResults => ({
    ...results(1000, null),
    domBudget: {
      variants: [on, off],
      capacityRatio: on.capacityPerS / off.capacityPerS,
      servedShare: on.elementsShown ? on.elementsServed / on.elementsShown : null,
    },
  });
  const targets = (r: BenchResults) => evaluateTargets(r).filter((t) => /DOM_BUDGET/.test(t.name));
  assert.deepEqual(
    targets(withBudget(variant('on', 318, 552, 1500), variant('off', 552, 552, 1000))).map((t) => t.met),
    [true, true, null],
  );
  // 1.2x, and 340 of 552 served (62%).
  assert.deepEqual(
    targets(withBudget(variant('on', 340, 552, 1200), variant('off', 552, 552, 1000))).map((t) => t.met),
    [false, false, null],
  );
  // Fewer than 550 shown fails whatever the share.
  assert.equal(targets(withBudget(variant('on', 200, 500, 1500), variant('off', 500, 500, 1000)))[1]!.met, false);
  assert.deepEqual(
    targets(results(1000, null)).map((t) => t.met),
    [null, null, null],
  );
  // Against bare Express on the same page: DOM_BUDGET=off at 90% of it or more.
  const express = (ratePerS: number) => ({ ...search(ratePerS), page: { path: '/news/1', status: 200, renderMode: null, elements: 552, bytes: 55_000 } });
  const withExpress = (off: number, reference: number): BenchResults => {
    const r = withBudget(variant('on', 318, 552, 1500), variant('off', 552, 552, off));
    return { ...r, reference: { ...r.reference, express: express(reference) } };
  };
  assert.equal(targets(withExpress(900, 1000))[2]!.met, true);
  assert.equal(targets(withExpress(899, 1000))[2]!.met, false);
  assert.match(targets(withExpress(700, 1000))[2]!.figures, /700 against 1,000 req\/s = 70%/);
});

test('the churn targets: CPU per request with pushes and after them within 1.10x of without, the store read for under 1% of the answers after them, p99 < 100 ms, every push seen within 1 s; below saturation, the median round within 1.05x and p99 < 100 ms in every round', () => {
  const step = (cpuPct: number, achievedPerS: number, p99: number, timeouts = 0) =>
    ({
      achievedPerS,
      offeredPerS: achievedPerS,
      serverCpuPct: cpuPct,
      latencyMs: { p50: 5, p90: 10, p99, max: p99 },
      errors: 0,
      timeouts,
      non2xx: 0,
      flags: [],
    }) as never;
  const pushes = (visibleMs: (number | null)[]) => visibleMs.map((ms, i) => ({ kind: 'new' as const, id: String(i), status: 201, visibleMs: ms }));
  /** Each round at 900 a second, 45% of the core without pushes (0.50 ms each): `pushing` its CPU with them. */
  type Round = { pushing: number; p99: number; timeouts?: number };
  const round = ({ pushing, p99, timeouts }: Round) => ({
    ratePerS: 900,
    steady: step(45, 900, 20),
    pushing: step(pushing, 900, p99, timeouts),
    pushes: pushes([50]),
  });
  /** After the pushes: 10,000 answers, 99 of them read from the store unless said. */
  const withChurn = (pushing: number, after: number, p99: number, seen: (number | null)[], rounds?: Round[], afterReads: number | null = 99): BenchResults => ({
    ...results(1000, null),
    churn: {
      ratePerS: 1000,
      steady: step(60, 1000, 30),
      pushing: step(pushing, 1000, p99),
      after: {
        ...(step(after, 1000, 30) as object),
        answered: 10_000,
        content: afterReads === null ? null : { storeReads: afterReads, rebuilt: 2_500, previous: 12 },
        peakRssMb: 301.4,
        pauses: { majorGcs: 2, majorGcMs: 61.2, longestMajorGcMs: 36.1, longestStallMs: 48.5, heapAfterGcMb: 71.4 },
        threads: { helperCpuPct: 3.4, mainWaitPct: 5.6 },
        serverResponseMs: { p99: 25.6, max: Number.POSITIVE_INFINITY },
      } as never,
      pushes: pushes(seen),
      ...(rounds ? { rounds: rounds.map(round) } : {}),
    },
  });
  const sqlite = (r: BenchResults) => evaluateTargets(r).filter((t) => t.name.startsWith('SQLite'));
  // 60% of a core for 1,000 answers a second: 0.60 ms each; 66% is 1.10x, at the line.
  assert.deepEqual(
    sqlite(withChurn(66, 62, 80, [40, 900])).map((t) => t.met),
    [true, true, true, true, null, null],
    'the rounds below saturation not measured: not judged',
  );
  assert.equal(sqlite(withChurn(66, 62, 80, [40, 900], []))[4]!.met, null, 'no rounds (--churn-rounds 0): not judged');
  // Below saturation: 47.25% of the core is 0.525 ms each, 1.05x, the rounds' bound (not 1.10x).
  assert.deepEqual(
    sqlite(withChurn(67, 70, 120, [40, null], [{ pushing: 47.25, p99: 60 }])).map((t) => t.met),
    [false, false, false, false, true, true],
  );
  assert.equal(sqlite(withChurn(67, 70, 120, [40, null], [{ pushing: 49.5, p99: 60 }]))[4]!.met, false, 'a round at 1.10x: over 1.05x');
  // After the pushes: the store read for fewer than 1% of the answers, or the cache was emptied.
  const after = (reads: number | null) => sqlite(withChurn(66, 62, 80, [40], undefined, reads))[2]!;
  assert.equal(after(99).met, true);
  assert.equal(after(100).met, false, 'a store read for 1% of the answers');
  assert.equal(after(null).met, null, 'the counters not read: not judged');
  assert.match(after(99).figures, /^99 store reads for 10,000 answers, 2,500 kept answers read again \(what the last pushes changed\); 0\.62 against 0\.60/);
  assert.equal(sqlite(withChurn(66, 67, 80, [40]))[2]!.met, false, 'warm, but CPU per request 1.12x');
  // The median decides: one round over the line of three is met, two are not.
  const below = (rounds: Round[]) => sqlite(withChurn(66, 62, 80, [40], rounds))[4]!;
  const three = (a: number, b: number, c: number) => [a, b, c].map((pushing) => ({ pushing, p99: 60 }));
  assert.equal(below(three(45, 54, 47.25)).met, true, 'median 1.05x');
  assert.equal(below(three(45, 54, 47.5)).met, false, 'median 1.06x');
  assert.match(
    below(three(45, 54, 47.25)).figures,
    /^3 rounds at 900 req\/s: 1\.00x, 1\.20x, 1\.05x; median 1\.05x \(the windows without pushes alone 0% apart\); p99 with pushes 60 \/ 60 \/ 60 ms \(without 20 \/ 20 \/ 20 ms\); errors 0, timeouts 0, non-2xx 0$/,
  );
  // An even count: the mean of the middle two.
  assert.match(below([...three(45, 49.5, 50), { pushing: 54, p99: 60 }]).figures, /median 1\.11x/);
  // p99 and failures count in every round, not only the median one.
  const quietRound = { pushing: 45, p99: 60 };
  assert.equal(below([quietRound, { ...quietRound, p99: 100 }, quietRound]).met, false, 'p99 at 100 ms in one round');
  assert.equal(below([quietRound, { ...quietRound, timeouts: 1 }, quietRound]).met, false, 'a timeout in one round');
  assert.match(sqlite(withChurn(66, 62, 80, [40], three(45, 45, 45)))[3]!.figures, /^4 of 4 pushes taken/, 'the pushes of every round counted');
  assert.match(sqlite(withChurn(66, 62, 80, [40, 900]))[0]!.figures, /0\.66 against 0\.60 ms of CPU per request = 1\.10x/);
  assert.deepEqual(
    sqlite(withChurn(67, 70, 120, [40, null])).map((t) => t.met),
    [false, false, false, false, null, null],
  );
  assert.deepEqual(
    evaluateTargets(results(1000, null))
      .filter((t) => t.name.startsWith('PostgreSQL,') || t.name.startsWith('PostgreSQL:'))
      .map((t) => t.met),
    [null, null, null, null, null, null],
  );
  const roundsMarkdown = renderMarkdown(withChurn(66, 62, 80, [40], three(45, 54, 49.5)));
  // The worker's memory and pauses over a window, where its /metrics was read.
  // And beside them, read from /proc: the V8 helper threads' CPU, the main thread's wait for a core.
  assert.match(roundsMarkdown, /\| SQLite \| after the pushes \| .* \| 99 \/ 2,500 \/ 12 \| 301 \/ 71; 2 \(61, 36\); 49; 3% \/ 6% \| – \|/);
  // Beside the generator's p99 and max, the worker's own, as its histogram's bucket bounds: one answer past its last bucket.
  assert.match(roundsMarkdown, /\| SQLite \| after the pushes \| 1,000 \| 1,000 \| 5\.0 \| 30 \| 30 \| 26 \/ over the last bucket \| 0 \|/);
  assert.match(
    roundsMarkdown,
    /\| SQLite \| round 2 of 3, 90% of capacity: one push a second \| 900 \| 900 \| 5\.0 \| 60 \| 60 \| – \| 0 \| 54% \| 0\.60 \| 1\.20x \| – \| – \/ – \| 1 of 1, 50 \/ 50 \|/,
  );
  assert.match(
    roundsMarkdown,
    /\| SQLite \| round 3 of 3, 90% of capacity: no pushes \| 900 \| 900 \| 5\.0 \| 20 \| 20 \| – \| 0 \| 45% \| 0\.50 \| 1\.00x \| – \| – \/ – \| – \|/,
  );
  const markdown = renderMarkdown(withChurn(66, 62, 80, [40, 900]));
  assert.match(markdown, /## Content churn at the SSR capacity/);
  // Seen after 40 and 900 ms: p50 by nearest rank (scripts/statistics.ts) is 40.
  assert.match(
    markdown,
    /\| SQLite \| one push a second \| 1,000 \| 1,000 \| 5\.0 \| 80 \| 80 \| – \| 0 \| 66% \| 0\.66 \| 1\.10x \| – \| – \/ – \| 2 of 2, 40 \/ 900 \|/,
  );
  assert.match(
    markdown,
    /\| SQLite \| after the pushes \| 1,000 \| 1,000 \| 5\.0 \| 30 \| 30 \| 26 \/ over the last bucket \| 0 \| 62% \| 0\.62 \| 1\.03x \| 99 \/ 2,500 \/ 12 \| 301 \/ 71; 2 \(61, 36\); 49; 3% \/ 6% \| – \|/,
    "the worker's counters beside the CPU",
  );
});

/** A step of 1,000 answers a second, p99 20 ms, nothing failed, at `cpuPct` of the core. */
function quietStep(cpuPct: number): never {
  return {
    achievedPerS: 1000,
    offeredPerS: 1000,
    serverCpuPct: cpuPct,
    latencyMs: { p50: 5, p90: 10, p99: 20, max: 20 },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    flags: [],
  } as never;
}

test('the churn noise: the host steadiness measured before the steps and how far apart the windows without pushes came out, per store', () => {
  const step = quietStep;
  const pair = (steady: number) => ({ ratePerS: 900, steady: step(steady), pushing: step(steady), pushes: [] });
  const churn = {
    ratePerS: 1000,
    steady: step(60),
    pushing: step(60),
    after: step(60),
    pushes: [],
    // 0.50, 0.60 and 0.55 ms per request without pushes: 20% apart.
    rounds: [pair(50), pair(60), pair(55)],
    steadiness: parseSteadiness(JSON.stringify({ arithmetic: [6, 6, 6.3, 6, 6.1, 6, 6, 6, 6.2, 6], memory: [7, 14, 10, 9, 8, 12, 11, 7.5, 13, 10] }), 8),
  };
  const markdown = renderMarkdown({ ...results(1000, null), churn });
  assert.match(
    markdown,
    /- SQLite: the same fixed work on the server's core, over 8 s just before these steps, took 7\.0–13\.0 ms \(p10–p90, 1\.86x\) per memory-bound chunk and 6\.0–6\.2 ms \(p10–p90, 1\.03x\) per arithmetic chunk; the rounds' windows without pushes are 20% apart in CPU per request\./,
  );
  assert.match(markdown, /Odd rounds ran without pushes first, even rounds with them first/);
  assert.match(
    evaluateTargets({ ...results(1000, null), churn }).find((t) => t.name.startsWith('SQLite, one CMS push a second at 90%'))!.figures,
    /\(the windows without pushes alone 20% apart\)/,
  );
  assert.equal(steadySpread([pair(50)]), Number.NaN, 'one window: no spread');
  // Without the steadiness or the rounds, nothing is said.
  assert.doesNotMatch(renderMarkdown({ ...results(1000, null), churn: { ...churn, rounds: [], steadiness: undefined } }), /How much the same work moved/);
});

test('the windows below saturation: every window at 90% of capacity, with pushes and without, under 100 ms of p99, nothing failed, no stall of 50 ms', () => {
  const window = (p99: number, stallMs: number | null = 20, timeouts = 0, majorGcs = 0) =>
    ({
      ...(quietStep(85) as object),
      latencyMs: { p50: 5, p90: 10, p99, max: p99 },
      timeouts,
      ...(stallMs === null
        ? {}
        : { pauses: { majorGcs, majorGcMs: 14 * majorGcs, longestMajorGcMs: majorGcs ? 14 : 0, longestStallMs: stallMs, heapAfterGcMb: 70 } }),
    }) as never;
  const pair = (steady: never, pushing: never) => ({ ratePerS: 900, steady, pushing, pushes: [] });
  const churnOf = (rounds: ReturnType<typeof pair>[]) => ({
    ...results(1000, null),
    churn: { ratePerS: 1000, steady: quietStep(95), pushing: quietStep(95), after: quietStep(95), pushes: [], rounds },
  });
  const target = (rounds: ReturnType<typeof pair>[]) => evaluateTargets(churnOf(rounds)).find((t) => t.name.startsWith('SQLite, every window at 90%'))!;
  const held = [pair(window(20), window(40)), pair(window(30), window(99.9, 49.9))];
  assert.equal(target(held).met, true);
  assert.match(
    target(held).figures,
    /^4 of 4 windows held at 900 req\/s; p99 20–100 ms; longest stall 50 ms; a major collection in 0 of 4 windows \(0 of them missed\)$/,
  );
  // A window without pushes counts as much as one with them.
  const slowWithout = target([held[0]!, pair(window(120), window(40))]);
  assert.equal(slowWithout.met, false);
  assert.match(
    slowWithout.figures,
    /^3 of 4 windows held .*; missed: round 2 without pushes \(p99 120 ms, 85% of the core, stall 20 ms, no major collection\)$/,
  );
  // Each window's major collections are counted beside what it missed.
  const collected = target([pair(window(20, 20, 0, 1), window(150, 30, 0, 2)), held[1]!]);
  assert.match(
    collected.figures,
    /; a major collection in 2 of 4 windows \(1 of them missed\); missed: round 1 with pushes \(p99 150 ms, 85% of the core, stall 30 ms, 2 major collections\)$/,
  );
  assert.equal(target([pair(window(20), window(40, 50))]).met, false, 'a stall of 50 ms');
  assert.match(
    target([pair(window(20), window(40, 20, 2))]).figures,
    /missed: round 1 with pushes \(p99 40 ms, 85% of the core, stall 20 ms, no major collection, 2 failed\)/,
  );
  assert.equal(target([pair(window(20, null), window(40, null))]).met, true, "the worker's pauses not read: judged on p99 alone");
  assert.match(target([pair(window(20, null), window(40, null))]).figures, /longest stall not read$/);
  assert.equal(target([]).met, null, 'no rounds: not judged');
});

test('steadiness: nearest-rank p10, p50, p90 of the chunk times and p90 over p10; anything but two lists of times is refused', () => {
  assert.deepEqual(chunkSpread([5, 1, 4, 2, 3, 6, 7, 8, 9, 10]), { chunks: 10, p10: 1, p50: 5, p90: 9, ratio: 9 });
  assert.deepEqual(chunkSpread([3]), { chunks: 1, p10: 3, p50: 3, p90: 3, ratio: 1 });
  assert.ok(Number.isNaN(chunkSpread([]).p50));
  assert.equal(chunkRange(chunkSpread([])), '––– ms (p10–p90, –x)');
  for (const bad of ['{}', '{"arithmetic":[1],"memory":[]}', '{"arithmetic":[1],"memory":["x"]}', '{"arithmetic":[-1],"memory":[1]}'])
    assert.throws(() => parseSteadiness(bad, 1), /steadiness printed no (arithmetic|memory) chunk times/, bad);
  assert.throws(() => parseSteadiness('not json', 1));
});

test("the header's count of elements shown says it was taken before any view, so without the most-read box", () => {
  const sample = { path: '/news/1', status: 200, elements: 324, bytes: 34_292, renderMode: 'ssr' };
  const markdown = renderMarkdown({ ...results(1000, null), page: { articles: 10, sample, shell: null, sampleElementsShown: 495 } } as BenchResults);
  assert.match(
    markdown,
    /`\/news\/1`: \*\*324 elements, 34,292 bytes\*\* as served \(X-Render-Mode: ssr\), 495 elements as finally shown in Chromium before any view was counted \(no most-read box yet/,
  );
  assert.match(
    renderMarkdown({ ...results(1000, null), page: { articles: 10, sample, shell: null } } as BenchResults),
    /elements as finally shown: not measured/,
  );
});

test('the push cost counted in process, and the CPU ratio it implies beside the window without pushes at capacity', () => {
  const render = { rawRenderPerS: 2000, renderPagePerS: 3000, variants: [], pages: 200, appHtmlBytes: 30_000, nodeEnv: 'production' };
  const pushCost = { pushes: 7, storeReads: 3, rebuilt: 1591, extraMs: 64, passMs: 28, ids: 10_000 };
  const step = quietStep;
  const withCost = (steadyCpuPct: number | null): BenchResults => {
    const r = results(1000, null);
    return {
      ...r,
      reference: { ...r.reference, render: { ...render, pushCost } },
      ...(steadyCpuPct === null ? {} : { churn: { ratePerS: 1000, steady: step(steadyCpuPct), pushing: step(90), after: step(80), pushes: [] } }),
    };
  };
  assert.match(
    renderMarkdown(withCost(80)),
    /after each of 7 new stories pushed, every one of the 10,000 article pages' content read again took 3 store reads, 1,591 kept answers read again \(medians\), 64 ms of CPU more than a pass with nothing changed \(28 ms\)\. At one push a second that is 6% of a core: beside the 80% SQLite's window without pushes used at capacity, 1\.08x its CPU per request\./,
  );
  assert.match(
    renderMarkdown(withCost(null)),
    /with nothing changed \(28 ms\)\. At one push a second that is 6% of a core\.$/m,
    'no churn steps: the share of a core alone',
  );
  assert.doesNotMatch(renderMarkdown(results(1000, null)), /push-cost\.ts/, 'not measured: no line');
  assert.doesNotMatch(renderMarkdown(withCost(80)), /related rankings/, 'recorded before rankings were counted: not mentioned');
  const counted = { ...withCost(80) };
  counted.reference = { ...counted.reference, render: { ...render, pushCost: { ...pushCost, rankedAgain: 12, rankingsUpdated: 1540 } } };
  assert.match(
    renderMarkdown(counted),
    /took 3 store reads, 1,591 kept answers read again, 12 related rankings worked out again and 1,540 brought up to date \(medians\), 64 ms of CPU more/,
  );
  const warmed = { ...withCost(80) };
  warmed.reference = { ...warmed.reference, render: { ...render, pushCost: { ...pushCost, pushes: 15, warmupExtraMs: [41.2, 12, 6.5] } } };
  assert.match(
    renderMarkdown(warmed),
    /after each of 15 new stories pushed \(after 3 not counted, their passes paying for the start-up: 41(\.2)?, 12, 6\.5 ms\), every one/,
  );
  const controlled = { ...withCost(null) };
  const each = { extraMsEach: [-41, 4.9, 20.4], controlExtraMs: -1.2, controlExtraMsEach: [-30, -1.2, 12] };
  controlled.reference = { ...controlled.reference, render: { ...render, pushCost: { ...pushCost, pushes: 3, extraMs: 4.9, ...each } } };
  assert.match(
    renderMarkdown(controlled),
    /4\.9 ms of CPU more than a pass with nothing changed \(28 ms; each push −41 to \+20 ms\)\. With nothing pushed, the same passes read −1\.2 ms \(the median of 3 pushes of nothing, one after each counted push, each −30 to \+12 ms\): what the method reads where there is nothing to read\. At one push/,
  );
  assert.doesNotMatch(renderMarkdown(warmed), /With nothing pushed/, 'recorded before the control: not mentioned');
  const paired = { ...withCost(null) };
  const pairedCost = { ...pushCost, pushes: 3, extraMs: 6.9, passMs: 199, warmupExtraMs: [30, 9.1, 4], ...each, method: 'paired' as const, chunk: 250 };
  paired.reference = { ...paired.reference, render: { ...render, pushCost: pairedCost } };
  assert.match(
    renderMarkdown(paired),
    /after each of 3 new stories pushed \(after 3 not counted, their reads paying for the start-up: 30, 9\.1, 4\.0 ms\), every one of the 10,000 article pages' content read again, in chunks of 250 pages each read twice back to back, took 3 store reads, 1,591 kept answers read again \(medians\), and 6\.9 ms of CPU more in the pages' first reads than in their second \(a warm pass 199 ms; each push −41 to \+20 ms\)\. With nothing pushed, the same paired reads read −1\.2 ms/,
  );
});

/** A step through Nginx as loadgen counts it: 10,000 requests scheduled, `sources` of them answered so. */
function nginxStep(
  mode: 'nginx' | 'nginx-keepalive',
  multiplier: number,
  pathMix: 'uniform' | 'zipf',
  sources: {
    ssr?: number;
    lastGood?: number;
    shell?: number;
    shellNginx?: number;
    status503?: number;
    timeouts?: number;
    errors?: number;
    unknownMode?: number;
  },
  p99 = 40,
  offeredPerS = 2_500 * multiplier,
): never {
  const { ssr = 0, lastGood = 0, shell = 0, shellNginx = 0, status503 = 0, timeouts = 0, errors = 0, unknownMode = 0 } = sources;
  return {
    mode,
    multiplier,
    pathMix,
    label: `through Nginx ${multiplier}x`,
    offeredPerS,
    sentPerS: offeredPerS,
    achievedPerS: offeredPerS,
    scheduled: 10_000,
    answered: 10_000 - timeouts - errors,
    ok: ssr + lastGood + shell + unknownMode,
    non2xx: status503,
    status503,
    errors,
    timeouts,
    ssr,
    lastGood,
    shell,
    shellNginx,
    unknownMode,
    noMode: 0,
    ssrShare: ssr / 10_000,
    ssrPerS: ssr,
    lastGoodPerS: lastGood,
    latencyMs: { p50: 5, p90: 10, p99, max: p99 },
    serverCpuPct: 95,
    generatorCpuPct: 40,
    peakRssMb: 300,
    flags: [],
    pool: { waitedForConnection: 0 },
  } as never;
}

const zipfTargets = (r: BenchResults) => evaluateTargets(r).filter((t) => /Zipf s=1 paths/.test(t.name));

test('through Nginx with Zipf paths: 95% full pages, fresh or last good, no errors or timeouts, p99 within the uniform bound; past 40,000 req/s reported, not judged', () => {
  const withSteps = (...steps: never[]): BenchResults => ({ ...results(2_000, null), steps });
  // At 5x: 30% fresh, 66% last good, 4% shell: 96% full pages.
  const good = nginxStep('nginx', 5, 'zipf', { ssr: 3_000, lastGood: 6_600, shell: 400, shellNginx: 400 });
  let target = zipfTargets(withSteps(good)).find((t) => t.name.startsWith('through Nginx at 5x, new connections'))!;
  assert.equal(target.met, true);
  assert.match(
    target.figures,
    /96% full pages; errors 0, timeouts 0, non-2xx 0; p99 40 ms; fresh \(SSR\) 30%, last good 66%, shell from Node 0%, shell from Nginx 4%, 503 0%/,
  );
  // 94% full pages: not met, though nothing failed.
  const short = nginxStep('nginx', 5, 'zipf', { ssr: 3_000, lastGood: 6_400, shell: 600, shellNginx: 600 });
  assert.equal(zipfTargets(withSteps(short)).find((t) => t.name.startsWith('through Nginx at 5x, new'))!.met, false);
  // A single timeout, or p99 over the bound of the uniform step at that multiple, fails it.
  const timedOut = nginxStep('nginx', 10, 'zipf', { ssr: 2_000, lastGood: 7_999, timeouts: 1 }, 100);
  assert.equal(zipfTargets(withSteps(timedOut)).find((t) => t.name.startsWith('through Nginx at 10x, new'))!.met, false);
  const slow = nginxStep('nginx', 10, 'zipf', { ssr: 2_000, lastGood: 8_000 }, 250);
  assert.equal(zipfTargets(withSteps(slow)).find((t) => t.name.startsWith('through Nginx at 10x, new'))!.met, false, 'p99 250 ms at 10x');
  // 20x of 2,500/s is 50,000 req/s: past what one core answers at all.
  const past = nginxStep('nginx-keepalive', 20, 'zipf', { ssr: 500, lastGood: 2_000, status503: 7_500 }, 900, 50_000);
  target = zipfTargets(withSteps(past)).find((t) => t.name.startsWith('through Nginx at 20x, keep-alive'))!;
  assert.equal(target.met, null);
  assert.match(target.figures, /25% full pages.*above 40,000 req\/s, past what Nginx and a worker sharing one core answer at all: reported, not judged$/);
  // The uniform steps are judged by their own targets, never by a Zipf step's figures.
  const uniform = evaluateTargets(withSteps(good)).find((t) => t.name.startsWith('through Nginx at 5x, new connections, uniform paths'))!;
  assert.equal(uniform.met, null);
  assert.equal(zipfTargets(results(2_000, null)).length, 6, 'SQLite, each kind of client, 5x, 10x and 20x');
});

test('the steps table: fresh, last good, shell from Node and from Nginx, 503 and other 2xx apart, with the path mix; unknown modes are never server-rendered', () => {
  const step = nginxStep('nginx-keepalive', 10, 'zipf', { ssr: 2_000, lastGood: 6_000, shell: 1_000, shellNginx: 800, status503: 500, unknownMode: 500 });
  const markdown = renderMarkdown({ ...results(2_000, null), steps: [step] });
  assert.match(markdown, /\| layout \| paths \| × \| .* \| fresh \(SSR\) \| last good \| shell from Node \| shell from Nginx \| 503 \| other 2xx \|/);
  assert.match(markdown, /\| Nginx, keep-alive clients \| Zipf s=1 \| 10 \| 25,000 \| .* \| 20% \| 60% \| 2% \| 8% \| 5% \| 5% \| 2,000 \| 100% \|/);
});

test('copies kept and not: the median round of CPU per request judged against 1/0.97; no copy written, not judged', () => {
  const window = (cpuPct: number) => quietStep(cpuPct);
  const withCopies = (pairs: [number, number][], files = 9_000): BenchResults => ({
    ...results(1_000, null),
    lastGood: { ratePerS: 900, rounds: pairs.map(([kept, none]) => ({ kept: window(kept), none: window(none) })), files, bytes: 512 * 1_048_576 },
  });
  const copies = (r: BenchResults) => evaluateTargets(r).find((t) => t.name.startsWith('SSR capacity with the last good copies kept'))!;
  // 60% against 59%, 58.5% and 60%: 1.017x, 1.034x, 1.000x; the median 1.017x.
  let target = copies(
    withCopies([
      [60, 59],
      [60.5, 58.5],
      [60, 60],
    ]),
  );
  assert.equal(target.met, true);
  assert.match(
    target.figures,
    /^3 rounds at 900 req\/s: 1\.02x, 1\.03x, 1\.00x; median 1\.017x, capacity with copies about 98% of without; 9,000 copies, 512\.0 MB on disk/,
  );
  target = copies(
    withCopies([
      [62, 60],
      [62, 60],
      [60, 60],
    ]),
  );
  assert.equal(target.met, false, 'median 1.033x: capacity 97% less a little');
  target = copies(withCopies([[60, 60]], 0));
  assert.equal(target.met, null);
  assert.match(target.figures, /no copy written: the tier is not in this build/);
  assert.equal(copies(results(1_000, null)).met, null);
  const markdown = renderMarkdown(
    withCopies([
      [60, 59],
      [60.5, 58.5],
    ]),
  );
  // Round 2 ran without copies first.
  assert.match(markdown, /\| 2 of 2 \| none \| 1,000 \| .*\n\| 2 of 2 \| kept \| 1,000 \| 1,000 \| 5\.0 \| 20 \| 0 \| 61% \| 0\.605 \| 1\.034x \|/);
  // The rounds' rate and how it was chosen.
  assert.match(markdown, /## The last good copies kept and not: through Nginx at 900 req\/s \(90% of capacity\), rounds alternating, fallback off/);
  assert.match(markdown, /each round's two windows back to back, the server keeping copies first in odd rounds/);
  // Rounds whose two arms ran at once: each round kept then none, and said so.
  const atOnce = withCopies([
    [60, 59],
    [60.5, 58.5],
  ]);
  atOnce.lastGood!.atOnce = true;
  const atOnceMarkdown = renderMarkdown(atOnce);
  assert.match(atOnceMarkdown, /\| 2 of 2 \| kept \| 1,000 \| .*\n\| 2 of 2 \| none \| 1,000 \|/);
  assert.match(atOnceMarkdown, /through Nginx at 900 req\/s \(90% of capacity\), half to each server, both at once, fallback off/);
  assert.match(atOnceMarkdown, /each round's two windows at once, each server half the rate/);
  assert.match(copies(atOnce).name, /the two servers at once: the median round's CPU per request ≤ 1\.031x without/);
  assert.match(copies(atOnce).figures, /^2 rounds at 900 req\/s, half to each: /);
  // The method's control: judged by nobody, and said so.
  const control = withCopies([[60, 59]], 0);
  control.lastGood!.control = true;
  assert.equal(copies(control).met, null);
  assert.match(copies(control).figures, /the control, --copies-control: neither server kept copies/);
  assert.match(renderMarkdown(control), /## The last good copies kept and not \(the control: neither server kept copies\): through Nginx/);
  assert.match(renderMarkdown(control), /No copy was written: the control keeps none\./);
  assert.equal(readOptions(['--copies-control'], '/tmp')!.copiesControl, true);
  const calibrated = withCopies([[60, 59]]);
  calibrated.lastGood = {
    ...calibrated.lastGood!,
    ratePerS: 727,
    calibration: [
      { ratePerS: 900, serverCpuPct: 99 },
      { ratePerS: 727, serverCpuPct: 78.6 },
    ],
  };
  const calibratedMarkdown = renderMarkdown(calibrated);
  assert.match(calibratedMarkdown, /through Nginx at 727 req\/s \(73% of capacity\), rounds alternating, fallback off/);
  assert.match(calibratedMarkdown, /about 80% busy, from 90% of capacity down: 900 req\/s, 99% busy; then 727 req\/s, 79% busy\./);
  assert.match(copies(calibrated).figures, /^1 rounds at 727 req\/s/);
  // Calibrated as the rounds run: both servers at once, the two together.
  const together = { ...calibrated, lastGood: { ...calibrated.lastGood!, atOnce: true, calibratedAtOnce: true } };
  assert.match(
    renderMarkdown(together),
    /The rate is where the two servers together \(workers and Nginx\), at once and each at half of it, keep the core about 80% busy, from 90% of capacity down: 900 req\/s, 99% busy; then 727 req\/s, 79% busy\./,
  );
  assert.doesNotMatch(renderMarkdown(together), /alone, is about/);
});

test("copies kept and not: the share of each kept window's CPU the workers spent writing copies (LastGoodWriteTime), beside CPU per request", () => {
  // 60% of a core for 10 s is 6,000 ms of CPU: 30 ms writing is 0.50% of it, 12 ms 0.20%.
  const kept = (writeMs: number | null) => ({ ...(quietStep(60) as object), windowS: 10, lastGoodWriteMs: writeMs }) as never;
  const none = { ...(quietStep(59) as object), windowS: 10, lastGoodWriteMs: 0 } as never;
  const r: BenchResults = {
    ...results(1_000, null),
    lastGood: { ratePerS: 900, rounds: [30, 12, 60].map((ms) => ({ kept: kept(ms), none })), files: 9_000, bytes: 512 * 1_048_576 },
  };
  const target = evaluateTargets(r).find((t) => t.name.startsWith('SSR capacity with the last good copies kept'))!;
  assert.match(target.figures, /writing the copies took 0\.50%, 0\.20%, 1\.00% of the kept windows' CPU \(LastGoodWriteTime\), median 0\.50%/);
  const markdown = renderMarkdown(r);
  assert.match(markdown, /\| ÷ no copies \| writing copies, share of CPU \|/);
  assert.match(markdown, /\| 1 of 3 \| kept \| 1,000 \| .* \| 1\.017x \| 0\.50% \|/);
  assert.match(markdown, /\| 1 of 3 \| none \| 1,000 \| .* \| 1\.000x \| 0\.00% \|/);
  // A build that counts no write time: a dash, and no figure in the target.
  const uncounted: BenchResults = { ...r, lastGood: { ...r.lastGood!, rounds: [{ kept: kept(null), none }] } };
  assert.match(renderMarkdown(uncounted), /\| 1 of 1 \| kept \| .* \| 1\.017x \| – \|/);
  assert.doesNotMatch(evaluateTargets(uncounted).find((t) => t.name.startsWith('SSR capacity with the last good copies kept'))!.figures, /writing the copies/);
});

test("a Zipf flood through Nginx: the report says it started from a serving site's tier, and how many copies were on disk", () => {
  const r: BenchResults = {
    ...results(2_000, null),
    steps: [nginxStep('nginx', 5, 'zipf', { ssr: 2_000, lastGood: 7_600, shell: 400, shellNginx: 400 })],
    floodStarts: [{ server: 'through Nginx, Zipf s=1 paths', pathMix: 'zipf', ratePerS: 400, requests: 10_000, copies: 9_412, bytes: 330 * 1_048_576 }],
  };
  assert.match(
    renderMarkdown(r),
    /through Nginx, Zipf s=1 paths: the Zipf s=1 flood started from the tier of a site that has been serving: every article read once \(10,000 requests at 400 req\/s, below capacity, not recorded\) before its steps, 9,412 last good copies \(330\.0 MB\) on disk when the flood began\./,
  );
});

test('the Zipf mix through Nginx offers the floods only (it pays for its pass); the uniform every multiple', () => {
  assert.deepEqual(floodMultipliers('zipf', [1, 5, 10, 20]), [5, 10, 20]);
  assert.deepEqual(floodMultipliers('uniform', [1, 5, 10, 20]), [1, 5, 10, 20]);
  assert.deepEqual(floodMultipliers('zipf', [1]), [1], 'no flood asked for: the step asked for');
});

test('the chart: every step through Nginx as a stacked bar of where its answers came from, each path mix', () => {
  const steps = [
    nginxStep('nginx', 5, 'uniform', { ssr: 2_000, shell: 8_000, shellNginx: 8_000 }),
    nginxStep('nginx', 5, 'zipf', { ssr: 2_000, lastGood: 7_000, shell: 1_000, shellNginx: 1_000 }),
  ];
  const svg = renderChart({ ...results(2_000, null), steps });
  assert.match(svg, /<title>5x new conn\., uniform: shell from Nginx 80%<\/title>/);
  assert.match(svg, /<title>5x new conn\., Zipf s=1: last good 70%<\/title>/);
  assert.match(svg, /<title>5x new conn\., Zipf s=1: fresh \(SSR\) 20%<\/title>/);
  assert.doesNotMatch(svg, /uniform: last good/, 'no bar for what did not happen');
});

test('--path-mix: uniform and Zipf through Nginx by default, PostgreSQL uniform; a mix not known is refused', () => {
  const defaults = readOptions([], '/tmp')!;
  assert.deepEqual([defaults.pathMix, defaults.postgresPathMix], [['uniform', 'zipf'], ['uniform']]);
  assert.deepEqual(readOptions(['--path-mix', 'zipf'], '/tmp')!.pathMix, ['zipf']);
  assert.deepEqual(readOptions(['--postgres-path-mix', 'zipf,uniform'], '/tmp')!.postgresPathMix, ['uniform', 'zipf']);
  assert.throws(() => readOptions(['--path-mix', 'pareto'], '/tmp'), /--path-mix takes uniform, zipf \(comma-separated\), got "pareto"/);
  assert.equal(defaults.lastGoodRounds, 5);
  // Keep-alive clients open a connection when none is idle, up to the storm's cap unless told.
  assert.equal(defaults.keepAliveConnections, 4_000);
  assert.equal(readOptions(['--connections', '2000'], '/tmp')!.keepAliveConnections, 2_000);
  assert.equal(readOptions(['--keepalive-connections', '256'], '/tmp')!.keepAliveConnections, 256);
  assert.equal(readOptions(['--last-good-rounds', '0'], '/tmp')!.lastGoodRounds, 0);
  // The hot set and the balance only when asked for; the records' --skip-* flags still run.
  assert.deepEqual([defaults.skipHotSet, defaults.skipBalance], [true, true]);
  assert.deepEqual([readOptions(['--hot-set', '--balance'], '/tmp')!.skipHotSet, readOptions(['--balance'], '/tmp')!.skipBalance], [false, false]);
  assert.equal(readOptions(['--skip-hot-set', '--skip-balance'], '/tmp')!.skipHotSet, true);
  assert.deepEqual([defaults.multipliers, defaults.offMultipliers, defaults.nginxMultipliers], [[1, 5, 10, 20], [1], [1, 5, 10, 20]]);
});

test('the whole default run is estimated within 20 minutes; what it adds back is counted', () => {
  const minutes = (args: string[]) => estimateSeconds(readOptions(args, '/tmp')!).totalS / 60;
  assert.ok(minutes([]) <= 20, `the default run: ${minutes([]).toFixed(1)} min`);
  assert.ok(minutes([]) >= 15, `the default run: ${minutes([]).toFixed(1)} min, not less than what it measures`);
  assert.ok(minutes(['--quick', '--skip-postgres', '--skip-churn']) < 8);
  assert.ok(minutes(['--hot-set', '--balance']) > minutes([]) + 1);
  assert.ok(minutes(['--churn-rounds', '5']) > minutes([]) + 1.5, 'two rounds more, for each store');
  assert.ok(minutes(['--path-mix', 'uniform']) < minutes([]) - 1);
  assert.match(
    describeEstimate(estimateSeconds(readOptions([], '/tmp')!)),
    /^about \d+ min on a machine like the records': in-process references.* through Nginx \(uniform, zipf; Zipf after a pass over every article\) \d+ min/,
  );
});

test("the estimate at this host's renderPage rate: a slower host's passes and steps take longer, the records' rate gives the same", () => {
  const options = readOptions([], '/tmp')!;
  const records = estimateSeconds(options).totalS;
  assert.equal(estimateSeconds(options, 3_500).totalS, records);
  // The 09:26 run's host: renderPage 2,259/s, and the run took 20 min 24 s.
  const slow = estimateSeconds(options, 2_259).totalS;
  assert.ok(slow > records + 60, `${(slow / 60).toFixed(1)} against ${(records / 60).toFixed(1)} min`);
  assert.ok(estimateSeconds(options, 7_000).totalS < records);
  assert.match(describeEstimate(estimateSeconds(options, 2_259), 'from here'), /^about \d+ min from here: /);
});

test("copies kept and not: a round's two windows at once, each told the other's CPU is not another process's", async () => {
  let running = 0;
  let most = 0;
  const server = (name: string) => ({ name }) as never;
  // Each arm's window: 40% of the core its own, 45% others' (the other arm's 40 and 5 more).
  const rounds = await measureCopies({ kept: server('kept'), none: server('none') }, 2, async (s, label) => {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running--;
    const own = (s as unknown as { name: string }).name === 'kept' ? 41 : 40;
    return {
      ...(quietStep(own) as object),
      label,
      serverCoreOtherPct: 50,
      flags: [{ kind: 'other-processes', text: 'other processes took 50% of core 0' }],
    } as never;
  });
  assert.equal(most, 2, 'both arms of a round run at once');
  assert.deepEqual(
    rounds.map((r) => [(r.kept as unknown as { label: string }).label, (r.none as unknown as { label: string }).label]),
    [
      ['copies kept, round 1 of 2', 'no copies, round 1 of 2'],
      ['copies kept, round 2 of 2', 'no copies, round 2 of 2'],
    ],
  );
  const kept = rounds[0]!.kept as unknown as { serverCoreOtherPct: number; flags: { kind: string }[] };
  const none = rounds[0]!.none as unknown as { serverCoreOtherPct: number; flags: { kind: string }[] };
  // 50% less the other arm's 40% (kept) or 41% (none): under the 10% that flags a window.
  assert.equal(kept.serverCoreOtherPct, 10);
  assert.equal(none.serverCoreOtherPct, 9);
  assert.deepEqual(kept.flags, []);
  assert.deepEqual(none.flags, []);
});

test('sharedCore: what is left of the core past the partner is still flagged past 10%', () => {
  const step = {
    ...(quietStep(40) as object),
    serverCoreOtherPct: 65,
    flags: [
      { kind: 'other-processes', text: 'x' },
      { kind: 'steal', text: 'y' },
    ],
  } as never;
  const partner = quietStep(40);
  const shared = sharedCore(step, partner) as unknown as { serverCoreOtherPct: number; flags: { kind: string; text: string }[] };
  assert.equal(shared.serverCoreOtherPct, 25);
  assert.deepEqual(
    shared.flags.map((f) => f.kind),
    ['steal', 'other-processes'],
  );
  assert.match(shared.flags[1]!.text, /other processes took 25% of core 0/);
});
