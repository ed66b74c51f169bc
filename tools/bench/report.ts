import { belowCapacityShare, cpuMsPerRequest, cpuRatio, medianRatio, roundRatio, steadySpread, type ChurnPair, type ChurnResult, type Push } from './churn';
import {
  copiesBusyPct,
  copiesCapacityShare,
  copiesRateShare,
  copiesRatio,
  copiesWriteShare,
  medianCopiesRatio,
  type CopiesResult,
  type FloodStart,
} from './last-good';
import { describeMix, type PathMix } from './path-mix';
import { chunkRange } from './steadiness';
import { connectionsExhausted, generatorFellShort, passes, type StepRecord } from './measure';
import type { BenchResults, OverloadStep, PassesRecord, SearchOutcome, Target } from './results';
import type { PushCost } from './push-cost';
import { median as medianOf, percentile } from '@kiosk/surface';

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

function failures(step: Pick<StepRecord, 'errors' | 'timeouts' | 'non2xx'>): string {
  return `errors ${step.errors}, timeouts ${step.timeouts}, non-2xx ${step.non2xx}`;
}

/**
 * Where a step's answers came from, each a count of the requests scheduled in its window: a
 * page rendered fresh, the last good copy of it, the shell (Node's or Nginx's), a 503, another
 * failure, a 2xx whose X-Render-Mode the bench does not know or that had none. They add up to
 * the requests scheduled.
 */
export interface Sources {
  fresh: number;
  lastGood: number;
  shellNode: number;
  shellNginx: number;
  status503: number;
  otherNon2xx: number;
  errors: number;
  timeouts: number;
  other2xx: number;
}

export function sourcesOf(step: StepRecord): Sources {
  const shellNginx = step.shellNginx ?? 0;
  return {
    fresh: step.ssr,
    lastGood: step.lastGood ?? 0,
    shellNode: step.shell - shellNginx,
    shellNginx,
    status503: step.status503,
    otherNon2xx: step.non2xx - step.status503,
    errors: step.errors,
    timeouts: step.timeouts,
    other2xx: (step.unknownMode ?? 0) + (step.noMode ?? 0),
  };
}

/** Full pages: fresh or the last good copy, as a share of the requests scheduled in the window. */
export function fullPageShare(step: StepRecord): number {
  return ratio(step.ssr + (step.lastGood ?? 0), step.scheduled);
}

/** Where the step's answers came from, as shares of the requests scheduled in its window. */
function sources(step: StepRecord): string {
  const of = (n: number) => pct(ratio(n, step.scheduled));
  const s = sourcesOf(step);
  return (
    `fresh (SSR) ${of(s.fresh)}, last good ${of(s.lastGood)}, shell from Node ${of(s.shellNode)}, shell from Nginx ${of(s.shellNginx)}, 503 ${of(s.status503)}` +
    (s.otherNon2xx > 0 ? `, other non-2xx ${of(s.otherNon2xx)}` : '') +
    (s.other2xx > 0 ? `, other 2xx ${of(s.other2xx)}` : '')
  );
}

function mixOf(step: OverloadStep): PathMix {
  return step.pathMix ?? 'uniform';
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

const clientKinds = {
  nginx: 'new connections',
  'nginx-keepalive': 'keep-alive clients',
  'nginx-pg': 'new connections, PostgreSQL',
  'nginx-pg-keepalive': 'keep-alive clients, PostgreSQL',
} as const;

/** Through Nginx, the production layout: the admission targets, for each kind of client. */
function nginxTarget(r: BenchResults, mode: keyof typeof clientKinds, multiplier: number, p99Ms: number, ssrShareOfCapacity: number | null): Target {
  const capacity = r.capacity?.ratePerS ?? 0;
  const wants = ssrShareOfCapacity === null ? 'no timeouts' : 'no errors or timeouts';
  const ssrText = ssrShareOfCapacity === null ? '' : `, server-rendered pages/s ≥ ${pct(ssrShareOfCapacity)} of capacity`;
  const name = `through Nginx at ${multiplier}x, ${clientKinds[mode]}, uniform paths: ${wants}, p99 < ${p99Ms} ms${ssrText}`;
  const step = r.steps.find((s) => s.mode === mode && s.multiplier === multiplier && mixOf(s) === 'uniform');
  if (!step) return { name, met: null, figures: 'not measured in this run' };
  const clean = step.timeouts === 0 && (ssrShareOfCapacity === null || (step.errors === 0 && step.non2xx - step.status503 === 0));
  const ssr = ssrShareOfCapacity === null || step.ssrPerS >= ssrShareOfCapacity * capacity;
  const sent = !generatorFellShort(step);
  return {
    name,
    met: clean && step.latencyMs.p99 < p99Ms && ssr && sent,
    figures:
      `${perS(step.offeredPerS)} req/s offered, ${perS(step.sentPerS)} sent: ${failures(step)}; p99 ${ms(step.latencyMs.p99)} ms; ` +
      `${perS(step.ssrPerS)} server-rendered/s = ${pct(ratio(step.ssrPerS, capacity))} of ${perS(capacity)}; ${sources(step)}${generatorCaveat(step)}`,
  };
}

/** Past this, Nginx and a worker sharing one core here cannot answer at all, shell included: reported, not judged. */
export const nginxCeilingPerS = 40_000;
/** Readers of a flood through Nginx with the last-good tier: full pages, fresh or last good. */
export const fullPageTarget = 0.95;

/**
 * A breaking-news day through Nginx (Zipf paths): at least 95% of the answers full pages (fresh
 * or the last good copy), no errors or timeouts, and p99 within the bound the uniform steps at
 * that multiple are held to.
 */
function zipfTarget(r: BenchResults, mode: keyof typeof clientKinds, multiplier: number, p99Ms: number): Target | null {
  const step = r.steps.find((s) => s.mode === mode && s.multiplier === multiplier && mixOf(s) === 'zipf');
  const name =
    `through Nginx at ${multiplier}x, ${clientKinds[mode]}, ${describeMix('zipf')} paths: ≥ ${pct(fullPageTarget)} of answers full pages (fresh or last good), ` +
    `no errors or timeouts, p99 < ${p99Ms} ms`;
  if (!step) return mode.includes('pg') ? null : { name, met: null, figures: 'not measured in this run' };
  const full = fullPageShare(step);
  const figures =
    `${perS(step.offeredPerS)} req/s offered, ${perS(step.sentPerS)} sent: ${pct(full)} full pages; ${failures(step)}; p99 ${ms(step.latencyMs.p99)} ms; ` +
    `${sources(step)}${generatorCaveat(step)}`;
  if (step.offeredPerS > nginxCeilingPerS) {
    return {
      name,
      met: null,
      figures: `${figures}; above ${perS(nginxCeilingPerS)} req/s, past what Nginx and a worker sharing one core answer at all: reported, not judged`,
    };
  }
  return {
    name,
    met: full >= fullPageTarget && step.errors === 0 && step.timeouts === 0 && step.latencyMs.p99 < p99Ms && !generatorFellShort(step),
    figures,
  };
}

/** The copies' rounds' rate, as a share of capacity where it is known. */
function copiesRateText(r: BenchResults): string {
  const rate = r.lastGood!.ratePerS;
  const capacity = r.capacity?.ratePerS ?? 0;
  const total = capacity > 0 ? `${perS(rate)} req/s (${pct(rate / capacity)} of capacity)` : `${perS(rate)} req/s`;
  return r.lastGood!.atOnce ? `${total}, half to each server, both at once` : `${total}, rounds alternating`;
}

/** How the rounds' rate was chosen: each calibration window's rate and how busy the servers were. */
function calibrationText(copies: CopiesResult): string {
  const windows = copies.calibration ?? [];
  if (windows.length === 0) return '';
  const tried = windows.map((w) => `${perS(w.ratePerS)} req/s, ${cpu(w.serverCpuPct)} busy`).join('; then ');
  const where = copies.calibratedAtOnce
    ? `the two servers together (workers and Nginx), at once and each at half of it, keep the core about ${copiesBusyPct}% busy`
    : `the server without copies (worker and Nginx), alone, is about ${copiesBusyPct}% busy`;
  return ` The rate is where ${where}, from ${pct(copiesRateShare)} of capacity down: ${tried}.`;
}

/** What keeping the last good copies costs: capacity with them at least 97% of without, as the inverse of CPU per request. */
function copiesTarget(r: BenchResults): Target {
  const bound = 1 / copiesCapacityShare;
  const name =
    `SSR capacity with the last good copies kept ≥ ${pct(copiesCapacityShare)} of without (through Nginx below saturation, ` +
    `${r.lastGood?.atOnce ? 'the two servers at once' : 'rounds alternating'}: the median round's CPU per request ≤ ${bound.toFixed(3)}x without)`;
  const copies = r.lastGood;
  if (!copies || copies.rounds.length === 0) return { name, met: null, figures: 'not measured in this run' };
  const median = medianCopiesRatio(copies.rounds);
  const figures =
    `${copies.rounds.length} rounds at ${perS(copies.ratePerS)} req/s${copies.atOnce ? ', half to each' : ''}: ${copies.rounds.map((round) => `${copiesRatio(round).toFixed(2)}x`).join(', ')}; ` +
    `median ${Number.isFinite(median) ? median.toFixed(3) : '–'}x, capacity with copies about ${pct(1 / median)} of without; ` +
    `${perS(copies.files)} copies, ${(copies.bytes / 1_048_576).toFixed(1)} MB on disk after the rounds` +
    writeShareFigures(copies.rounds.map((round) => round.kept));
  if (copies.control)
    return { name, met: null, figures: `${figures} (the control, --copies-control: neither server kept copies, so the ratios are the method's own error)` };
  if (copies.files === 0) return { name, met: null, figures: `${figures} (no copy written: the tier is not in this build, both servers did the same work)` };
  return { name, met: Number.isFinite(median) ? median <= bound : null, figures };
}

/** The fleet's store on one machine: its SSR capacity against SQLite's, in the same run. */
function postgresTarget(r: BenchResults): Target {
  const name = "SSR capacity with PostgreSQL (on the generator's core) ≥ 90% of the SQLite capacity";
  const pg = r.postgres?.capacity;
  const sqlite = r.capacity?.ratePerS ?? 0;
  if (!pg || sqlite === 0) return { name, met: null, figures: 'not measured in this run' };
  const held = pg.confirmed === false ? '; not even that held for a full step' : '';
  return {
    name,
    met: pg.ratePerS >= 0.9 * sqlite && pg.confirmed !== false,
    figures: `${perS(pg.ratePerS)} req/s = ${pct(ratio(pg.ratePerS, sqlite))} of ${perS(sqlite)} req/s${held}${hostDrift(r)}`,
  };
}

/**
 * The two capacities are searched minutes apart, and this host's speed drifts: the same
 * memory-bound work, timed on the server's core before each store's churn steps (right after
 * its search), says how far. Nothing when either store's steadiness was not measured.
 */
export function hostDrift(r: BenchResults): string {
  const before = r.churn?.steadiness?.memory.p50;
  const after = r.postgres?.churn?.steadiness?.memory.p50;
  if (!before || !after || !Number.isFinite(before) || !Number.isFinite(after)) return '';
  return `; the host's same memory-bound chunk took ${ms(before)} ms (median) after SQLite's search and ${ms(after)} ms after PostgreSQL's (${(after / before).toFixed(2)}x)`;
}

/** The article page's DOM budget (docs/article-page.md): what it saves the server, and what it keeps off the wire. */
function domBudgetTargets(r: BenchResults): Target[] {
  const capacityName = 'SSR capacity of the article page with DOM_BUDGET=on ≥ 1.5x with it off (same run)';
  const elementsName = 'article page: ≥ 550 elements as shown in the browser, as served ≤ 60% of that with DOM_BUDGET=on';
  const referenceName = 'SSR capacity of the article page with DOM_BUDGET=off ≥ 90% of bare Express + renderToString on the same page (same run)';
  const result = r.domBudget;
  const on = result?.variants.find((v) => v.budget === 'on');
  const off = result?.variants.find((v) => v.budget === 'off');
  if (!result || !on || !off) return [capacityName, elementsName, referenceName].map((name) => ({ name, met: null, figures: 'not measured in this run' }));
  const shown = on.elementsShown;
  const express = r.reference.express;
  return [
    {
      name: capacityName,
      met: result.capacityRatio === null ? null : result.capacityRatio >= 1.5,
      figures: `${perS(on.capacityPerS)} against ${perS(off.capacityPerS)} req/s = ${result.capacityRatio === null ? '–' : `${result.capacityRatio.toFixed(2)}x`} (capacity probes, not a full step)`,
    },
    {
      name: elementsName,
      met: shown === null ? null : shown >= 550 && on.elementsServed <= 0.6 * shown,
      figures:
        shown === null
          ? `${on.elementsServed} served; as shown not measured (no Chromium)`
          : `${on.elementsServed} served of ${shown} shown = ${pct(ratio(on.elementsServed, shown))} (off: ${off.elementsServed} served, ${perS(off.bytes)} bytes against ${perS(on.bytes)})`,
    },
    express
      ? {
          name: referenceName,
          met: express.ratePerS > 0 ? off.capacityPerS >= 0.9 * express.ratePerS : null,
          figures:
            `${perS(off.capacityPerS)} against ${perS(express.ratePerS)} req/s = ${pct(ratio(off.capacityPerS, express.ratePerS))} ` +
            `(pages of ${perS(off.bytes)} and ${perS(express.page.bytes)} bytes, ${off.elementsServed} and ${express.page.elements} elements; capacity probes)`,
        }
      : { name: referenceName, met: null, figures: 'not measured in this run (--skip-reference)' },
  ];
}

function nginxFallbackTarget(r: BenchResults): Target {
  const name = "Nginx's fallback path ≥ 70% of Nginx's bare static rate for the same bytes";
  const { nginxFallback, nginxStatic } = r.reference;
  if (!nginxFallback || !nginxStatic) return { name, met: null, figures: 'not measured in this run' };
  const caveat = nginxStatic.limitedBy === 'generator' ? "; the static rate is the generator's ceiling, so the true ratio is lower" : '';
  return {
    name,
    met: nginxFallback.ratePerS >= 0.7 * nginxStatic.ratePerS,
    figures: `${perS(nginxFallback.ratePerS)} req/s = ${pct(ratio(nginxFallback.ratePerS, nginxStatic.ratePerS))} of ${perS(nginxStatic.ratePerS)} req/s${caveat}`,
  };
}

/** CPU per request with one push a second at capacity and right after the pushes, against without. */
const churnCpuRatio = 1.1;

/**
 * The rounds below saturation: the median round's CPU per request with one push a second against
 * without. Tighter than at capacity: a push costs a worker a few ms of CPU (docs/performance.md),
 * well under 5% of a core at one a second, and the rounds at 90% are where CPU per request is the
 * work a request costs, not a queue's.
 */
const roundsCpuRatio = 1.05;

/** The churn steps of each store measured: SQLite's, then PostgreSQL's. */
function churns(r: BenchResults): { store: string; churn: ChurnResult }[] {
  return [
    { store: 'SQLite', churn: r.churn },
    { store: 'PostgreSQL', churn: r.postgres?.churn },
  ].flatMap(({ store, churn }) => (churn ? [{ store, churn }] : []));
}

/** p99 under 100 ms and every request answered with a 2xx in time. */
function quiet(step: StepRecord): boolean {
  return step.latencyMs.p99 < 100 && step.errors === 0 && step.timeouts === 0 && step.non2xx === 0;
}

/**
 * A push drops what depends on the article it names and nothing else, so the pass right after
 * the pushes reads the store only for what they changed: a few reads per push, where a push
 * that emptied the cache would read again every article the pass shows.
 */
const warmReadShare = 0.01;

function stayedWarm(step: StepRecord): boolean {
  return step.content ? step.content.storeReads < warmReadShare * step.answered : false;
}

/** The churn targets: a push a second costs little CPU, keeps p99, is seen within a second, and leaves the rest warm. */
function churnTargets(r: BenchResults): Target[] {
  const stores = ['SQLite', 'PostgreSQL'];
  const measured = churns(r);
  return stores.flatMap((store) => {
    const names = [
      `${store}, one CMS push a second at capacity: server CPU per request ≤ ${churnCpuRatio.toFixed(2)}x without pushes`,
      `${store}, one CMS push a second at capacity: p99 < 100 ms, no errors or timeouts`,
      `${store}, after the pushes: the other ids stayed warm (the store read for fewer than ${pct(warmReadShare)} of the answers) and CPU per request ≤ ${churnCpuRatio.toFixed(2)}x without pushes`,
      `${store}: every push visible on the worker within 1 s`,
      `${store}, one CMS push a second at ${Math.round(belowCapacityShare * 100)}% of capacity (below saturation), rounds without and with pushes: the median round's CPU per request ≤ ${roundsCpuRatio.toFixed(2)}x without pushes; in every round with pushes p99 < 100 ms, no errors or timeouts`,
      `${store}, every window at ${Math.round(belowCapacityShare * 100)}% of capacity, with and without pushes: p99 < 100 ms, no errors or timeouts, no event-loop stall of ${stallBoundMs} ms or more`,
    ];
    const churn = measured.find((m) => m.store === store)?.churn;
    if (!churn) return names.map((name) => ({ name, met: null, figures: 'not measured in this run' }));
    const { steady, pushing, after } = churn;
    const rounds = churn.rounds ?? [];
    const pushes: Push[] = [...churn.pushes, ...rounds.flatMap((r) => r.pushes)];
    const pushingRatio = cpuRatio(pushing, steady);
    const afterRatio = cpuRatio(after, steady);
    const taken = pushes.filter((p) => p.status === 200 || p.status === 201);
    const slowest = Math.max(...pushes.map((p) => p.visibleMs ?? Infinity));
    const cpuFigures = (step: StepRecord, x: number, without = steady, ratePerS = churn.ratePerS) =>
      `${cpuMsPerRequest(step).toFixed(2)} against ${cpuMsPerRequest(without).toFixed(2)} ms of CPU per request = ${Number.isFinite(x) ? x.toFixed(2) : '–'}x (${cpu(step.serverCpuPct)} against ${cpu(without.serverCpuPct)} of the core at ${perS(ratePerS)} req/s)`;
    const belowRatio = medianRatio(rounds);
    return [
      { name: names[0]!, met: Number.isFinite(pushingRatio) ? pushingRatio <= churnCpuRatio : null, figures: cpuFigures(pushing, pushingRatio) },
      {
        name: names[1]!,
        met: quiet(pushing),
        figures: `p99 ${ms(pushing.latencyMs.p99)} ms (${ms(steady.latencyMs.p99)} ms without pushes); ${failures(pushing)}; ${taken.length} pushes`,
      },
      {
        name: names[2]!,
        met: Number.isFinite(afterRatio) && after.content ? afterRatio <= churnCpuRatio && stayedWarm(after) : null,
        figures:
          `${after.content ? `${perS(after.content.storeReads)} store reads for ${perS(after.answered)} answers, ${perS(after.content.rebuilt)} kept answers read again (what the last pushes changed); ` : 'store reads not counted; '}` +
          cpuFigures(after, afterRatio),
      },
      {
        name: names[3]!,
        met: pushes.length > 0 && taken.length === pushes.length && slowest <= 1_000,
        figures: `${taken.length} of ${pushes.length} pushes taken; slowest seen after ${Number.isFinite(slowest) ? `${ms(slowest)} ms` : 'more than 5 s'}`,
      },
      rounds.length > 0
        ? {
            name: names[4]!,
            met: Number.isFinite(belowRatio) ? belowRatio <= roundsCpuRatio && rounds.every((r) => quiet(r.pushing)) : null,
            figures:
              `${rounds.length} rounds at ${perS(rounds[0]!.ratePerS)} req/s: ${rounds.map((r) => `${roundRatio(r).toFixed(2)}x`).join(', ')}; median ${belowRatio.toFixed(2)}x ` +
              `(the windows without pushes alone ${Number.isFinite(steadySpread(rounds)) ? `${Math.round(steadySpread(rounds) * 100)}%` : '–'} apart); ` +
              `p99 with pushes ${rounds.map((r) => ms(r.pushing.latencyMs.p99)).join(' / ')} ms (without ${rounds.map((r) => ms(r.steady.latencyMs.p99)).join(' / ')} ms); ` +
              failures({
                errors: rounds.reduce((n, r) => n + r.pushing.errors, 0),
                timeouts: rounds.reduce((n, r) => n + r.pushing.timeouts, 0),
                non2xx: rounds.reduce((n, r) => n + r.pushing.non2xx, 0),
              }),
          }
        : { name: names[4]!, met: null, figures: 'not measured in this run' },
      everyWindowTarget(names[5]!, rounds),
    ];
  });
}

/** The content layer's bound on the event loop: no stall this long in a window below saturation. */
const stallBoundMs = 50;

/** A window below saturation held: quiet, and no stall of stallBoundMs (where the worker's pauses were read). */
function windowHeld(step: StepRecord): boolean {
  return quiet(step) && (step.pauses ? step.pauses.longestStallMs < stallBoundMs : true);
}

/** Every window of the rounds, with pushes and without, held its p99 and its event loop. */
function everyWindowTarget(name: string, rounds: readonly ChurnPair[]): Target {
  if (rounds.length === 0) return { name, met: null, figures: 'not measured in this run' };
  const windows = rounds.flatMap((r, i) => [
    { round: i + 1, what: 'without pushes', step: r.steady },
    { round: i + 1, what: 'with pushes', step: r.pushing },
  ]);
  const missed = windows.filter((w) => !windowHeld(w.step));
  const stalls = windows.map((w) => w.step.pauses?.longestStallMs).filter((x): x is number => x !== undefined);
  return {
    name,
    met: missed.length === 0,
    figures:
      `${windows.length - missed.length} of ${windows.length} windows held at ${perS(rounds[0]!.ratePerS)} req/s; ` +
      `p99 ${ms(Math.min(...windows.map((w) => w.step.latencyMs.p99)))}–${ms(Math.max(...windows.map((w) => w.step.latencyMs.p99)))} ms; ` +
      `longest stall ${stalls.length ? `${ms(Math.max(...stalls))} ms` : 'not read'}` +
      majorCollections(windows.map((w) => w.step)) +
      (missed.length
        ? `; missed: ${missed.map((w) => `round ${w.round} ${w.what} (p99 ${ms(w.step.latencyMs.p99)} ms, ${cpu(w.step.serverCpuPct)} of the core${w.step.pauses ? `, stall ${ms(w.step.pauses.longestStallMs)} ms, ${majors(w.step.pauses.majorGcs)}` : ''}${failed(w.step)})`).join('; ')}`
        : ''),
  };
}

/** "1 major collection", "2 major collections", "no major collection". */
function majors(n: number): string {
  return n === 0 ? 'no major collection' : `${n} major collection${n === 1 ? '' : 's'}`;
}

/**
 * "; a major collection in 2 of 6 windows (1 of them missed)": each takes about 110–125 ms of the
 * worker's core, mostly in V8's helper threads on its pinned core, a queue that at 90% of
 * capacity drains for over a second (docs/benchmarks/2026-11-28-capacity-again.md). Nothing
 * where the worker's pauses were not read.
 */
function majorCollections(steps: readonly StepRecord[]): string {
  const read = steps.filter((s) => s.pauses);
  if (read.length === 0) return '';
  const collected = read.filter((s) => s.pauses!.majorGcs > 0);
  return `; a major collection in ${collected.length} of ${read.length} windows (${collected.filter((s) => !windowHeld(s)).length} of them missed)`;
}

/** ", 3 failed" where a window had errors, timeouts or non-2xx answers; nothing otherwise. */
function failed(step: StepRecord): string {
  const n = step.errors + step.timeouts + step.non2xx;
  return n > 0 ? `, ${n} failed` : '';
}

export function evaluateTargets(results: BenchResults): Target[] {
  const modes = ['nginx', 'nginx-keepalive', 'nginx-pg', 'nginx-pg-keepalive'] as const;
  const nginx = modes.flatMap((mode) => [
    nginxTarget(results, mode, 5, 100, 0.8),
    nginxTarget(results, mode, 10, 250, 0.5),
    nginxTarget(results, mode, 20, 500, null),
  ]);
  const zipf = modes.flatMap((mode) =>
    [zipfTarget(results, mode, 5, 100), zipfTarget(results, mode, 10, 250), zipfTarget(results, mode, 20, 500)].filter((t): t is Target => t !== null),
  );
  return [
    capacityTarget(results),
    ...domBudgetTargets(results),
    postgresTarget(results),
    ...churnTargets(results),
    ...nginx,
    ...zipf,
    copiesTarget(results),
    nginxFallbackTarget(results),
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
    `- **Generator**: ${r.generator ?? 'Node'}; open loop, fixed rate, on core 1, up to ${perS(o.connections)} connections opened as needed (the "new connections" storm; keep-alive clients: up to ${perS(o.keepAliveConnections ?? 256)}, each opened when none is idle, then reused); ` +
      `latency from each request's scheduled send time; a request unanswered ${perS(o.timeoutMs)} ms after it was due is a timeout and enters the percentiles at ${perS(o.timeoutMs)} ms. ` +
      `Steps: ${o.warmupSeconds} s warm-up + ${o.stepSeconds} s measured; windows whose CPU per request is compared, and the step confirming capacity, ${o.windowSeconds} s measured; ` +
      `capacity probes ${o.searchWarmupSeconds} s + ${o.searchSeconds} s.`,
    `- **Page**: article pages rotating over ${perS(r.page.articles)} ids` +
      (sample
        ? `; e.g. \`${sample.path}\`: **${sample.elements} elements, ${perS(sample.bytes)} bytes** as served (X-Render-Mode: ${sample.renderMode}), ` +
          (r.page.sampleElementsShown
            ? `${r.page.sampleElementsShown} elements as finally shown in Chromium before any view was counted (no most-read box yet; the DOM budget's figures below are with its ten)`
            : 'elements as finally shown: not measured')
        : '') +
      (shell ? `; the shell: ${shell.elements} elements, ${perS(shell.bytes)} bytes.` : '.'),
  ];
}

function searchNote(search: SearchOutcome): string {
  const probes = search.probes.map((p) => `${perS(p.offeredPerS)}${passes(p) ? '✓' : '✗'}`).join(' ');
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
    rows.push(
      `| raw \`renderToString\` of the article page | ${perS(render.rawRenderPerS)} | 100% | in process, no HTTP, ${render.pages} pages with data loaded, NODE_ENV=${render.nodeEnv} |`,
    );
    rows.push(
      `| \`renderPage\` in process | ${perS(render.renderPagePerS)} | ${pct(ratio(render.renderPagePerS, render.rawRenderPerS))} of raw | store, data, React, document; no HTTP |`,
    );
    if (render.referencePerS !== undefined && render.renderPageOffPerS !== undefined) {
      rows.push(
        `| bare Express's work per request, in process (DOM budget off page) | ${perS(render.referencePerS)} | 100% | store from the page's state in memory, React, document (tools/bench/reference-page.tsx) |`,
        `| \`renderPage\` in process, DOM_BUDGET=off | ${perS(render.renderPageOffPerS)} | ${pct(ratio(render.renderPageOffPerS, render.referencePerS))} of bare Express's | the same page from the content cache |`,
      );
    }
  }
  const express = r.reference.express;
  const off = r.domBudget?.variants.find((v) => v.budget === 'off');
  if (express) {
    rows.push(
      `| bare Express + \`renderToString\` over HTTP (DOM budget off page) | ${perS(express.ratePerS)} | 100% | Express 5 defaults, the page from memory; ${searchNote(express)} |`,
    );
    if (off)
      rows.push(
        `| Kiosk SSR capacity, DOM_BUDGET=off | ${perS(off.capacityPerS)} | ${pct(ratio(off.capacityPerS, express.ratePerS))} of bare Express's | the same page; capacity probes, ids warm |`,
      );
  }
  if (capacity) {
    rows.push(
      `| **Kiosk SSR capacity** (fallback off) | **${perS(capacity.ratePerS)}** | ${render ? `${pct(ratio(capacity.ratePerS, render.rawRenderPerS))} of raw` : '–'} | p99 < 100 ms, no failures; ${searchNote(capacity)} |`,
    );
  }
  const pg = r.postgres;
  if (pg?.capacity) {
    rows.push(
      `| Kiosk SSR capacity, content from PostgreSQL (fallback off) | ${perS(pg.capacity.ratePerS)} | ${capacity ? `${pct(ratio(pg.capacity.ratePerS, capacity.ratePerS))} of SQLite` : '–'} | ${pg.version}, its processes on core ${[...new Set(pg.pinning)].join('/')}; ${searchNote(pg.capacity)} |`,
    );
  }
  if (bare) rows.push(`| bare \`node:http\` answering ${r.reference.bareBody} | ${perS(bare.ratePerS)} | 100% | ${searchNote(bare)} |`);
  if (shellPath) {
    rows.push(
      `| Kiosk shell path (SSR_QUEUE_LIMIT=0) | ${perS(shellPath.ratePerS)} | ${bare ? `${pct(ratio(shellPath.ratePerS, bare.ratePerS))} of bare` : '–'} | ${searchNote(shellPath)} |`,
    );
  }
  const { nginxStatic, nginxFallback } = r.reference;
  if (nginxStatic) rows.push(`| bare Nginx answering the shell file (keep-alive) | ${perS(nginxStatic.ratePerS)} | 100% | ${searchNote(nginxStatic)} |`);
  if (nginxFallback) {
    rows.push(
      `| Nginx's fallback path (every worker full: the shell from disk, logged) | ${perS(nginxFallback.ratePerS)} | ${nginxStatic ? `${pct(ratio(nginxFallback.ratePerS, nginxStatic.ratePerS))} of bare Nginx` : '–'} | ${searchNote(nginxFallback)} |`,
    );
  }
  return rows;
}

function stepsTable(r: BenchResults): string[] {
  const capacity = r.capacity?.ratePerS ?? 0;
  const rows = [
    '| layout | paths | × | offered | sent | achieved | p50 ms | p90 ms | p99 ms | max ms | errors | timeouts | non-2xx | fresh (SSR) | last good | shell from Node | shell from Nginx | 503 | other 2xx | SSR/s | SSR/s ÷ capacity | peak RSS MB | server CPU | gen CPU | notes |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  const layout = {
    off: 'direct, fallback off',
    on: 'direct, fallback on',
    nginx: 'Nginx, new connections',
    'nginx-keepalive': 'Nginx, keep-alive clients',
    'nginx-pg': 'Nginx, new connections, PostgreSQL',
    'nginx-pg-keepalive': 'Nginx, keep-alive clients, PostgreSQL',
  } as const;
  for (const s of r.steps) {
    const l = s.latencyMs;
    const of = (n: number) => pct(ratio(n, s.scheduled));
    const from = sourcesOf(s);
    rows.push(
      `| ${layout[s.mode]} | ${describeMix(mixOf(s))} | ${s.multiplier} | ${perS(s.offeredPerS)} | ${perS(s.sentPerS)} | ${perS(s.achievedPerS)} | ${ms(l.p50)} | ${ms(l.p90)} | ${ms(l.p99)} | ${ms(l.max)} | ` +
        `${s.errors} | ${s.timeouts} | ${s.non2xx} | ${of(from.fresh)} | ${of(from.lastGood)} | ${of(from.shellNode)} | ${of(from.shellNginx)} | ${of(from.status503)} | ${of(from.other2xx)} | ` +
        `${perS(s.ssrPerS)} | ${pct(ratio(s.ssrPerS, capacity))} | ` +
        `${Math.round(s.peakRssMb)} | ${cpu(s.serverCpuPct)} | ${cpu(s.generatorCpuPct)} | ${flagText(s)} |`,
    );
  }
  return rows;
}

/** Where a Zipf flood through Nginx started from: the tier a serving site has, and how much of it there was. */
function floodStartLine(start: FloodStart): string {
  return (
    `${start.server}: the ${start.pathMix === 'zipf' ? describeMix('zipf') : start.pathMix} flood started from the tier of a site that has been serving: every article read once ` +
    `(${perS(start.requests)} requests at ${perS(start.ratePerS)} req/s, below capacity, not recorded) before its steps, ` +
    `${perS(start.copies)} last good copies (${(start.bytes / 1_048_576).toFixed(1)} MB) on disk when the flood began.`
  );
}

/** A share of CPU to two decimals of a percent: the copies' writes are a fraction of one. */
function finePct(share: number | null): string {
  return share === null ? '–' : `${(100 * share).toFixed(2)}%`;
}

/** "; writing copies took …": the kept windows' shares of their CPU spent writing copies, where the build counts it. */
function writeShareFigures(kept: readonly StepRecord[]): string {
  const shares = kept.map(copiesWriteShare).filter((share): share is number => share !== null);
  if (shares.length === 0) return '';
  return `; writing the copies took ${shares.map(finePct).join(', ')} of the kept windows' CPU (LastGoodWriteTime), median ${finePct(medianOf(shares))}`;
}

/** The last-good tier's copies kept and not, round by round, the two windows of each side by side. */
function copiesTable(r: BenchResults): string[] {
  const copies = r.lastGood;
  if (!copies || copies.rounds.length === 0) return [];
  const row = (round: number, arm: string, step: StepRecord, none: StepRecord) =>
    `| ${round} of ${copies.rounds.length} | ${arm} | ${perS(step.offeredPerS)} | ${perS(step.achievedPerS)} | ${ms(step.latencyMs.p50)} | ${ms(step.latencyMs.p99)} | ` +
    `${step.errors + step.timeouts + step.non2xx} | ${cpu(step.serverCpuPct)} | ${cpuMsPerRequest(step).toFixed(3)} | ${cpuRatio(step, none).toFixed(3)}x | ` +
    `${finePct(copiesWriteShare(step))} | ${memoryAndPauses(step)} | ${flagText(step)} |`;
  return [
    `| round | copies | offered | achieved | p50 ms | p99 ms | failed | server CPU | CPU ms per request | ÷ no copies | writing copies, share of CPU | ${memoryAndPausesHeading} | notes |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
    ...copies.rounds.flatMap((round, i) => {
      // The order each round ran in: kept first in odd rounds, unless both ran at once.
      const kept = row(i + 1, 'kept', round.kept, round.none);
      const none = row(i + 1, 'none', round.none, round.none);
      return i % 2 === 0 || copies.atOnce ? [kept, none] : [none, kept];
    }),
  ];
}

function variantsTable(r: BenchResults): string[] {
  const render = r.reference.render;
  if (!render?.variants?.length) return [];
  const first = render.variants[0]!.renderPagePerS;
  return [
    '| server rendering, in process | renderPage/s | vs the whole render | article page elements | bytes |',
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

function passesTable(r: BenchResults): string[] {
  const stores = [
    { store: 'SQLite', passes: r.passes },
    { store: 'PostgreSQL', passes: r.postgres?.passes },
  ].flatMap(({ store, passes: p }) => (p ? [{ store, p }] : []));
  if (stores.length === 0) return [];
  const row = (store: string, pass: string, ids: number, step: StepRecord, warm: StepRecord) =>
    `| ${store} | ${pass} | ${perS(ids)} | ${perS(step.offeredPerS)} | ${perS(step.achievedPerS)} | ${ms(step.latencyMs.p50)} | ${ms(step.latencyMs.p99)} | ${ms(step.latencyMs.max)} | ` +
    `${cpu(step.serverCpuPct)} | ${cpuMsPerRequest(step).toFixed(2)} | ${cpuRatio(step, warm).toFixed(2)}x | ${contentWork(step)} | ${memoryAndPauses(step)} | ${flagText(step)} |`;
  return [
    `| store | pass | ids | offered | achieved | p50 ms | p99 ms | max ms | server CPU | CPU ms per request | ÷ warm | store reads / read again / lists as they were | ${memoryAndPausesHeading} | notes |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
    ...stores.flatMap(({ store, p }: { store: string; p: PassesRecord }) => [
      row(store, 'first, cold', p.coldIds, p.cold, p.warm),
      row(store, 'second, warm', p.allIds, p.warm, p.warm),
    ]),
  ];
}

const memoryAndPausesHeading =
  "peak RSS / heap after GC MB; major GCs (the stall of each one's half second: ms, longest); longest stall ms; V8 helper threads / main thread waiting, % of a core";

/** The worker's memory and pauses over the window: – for what was not read. */
function memoryAndPauses(step: StepRecord): string {
  const p = step.pauses;
  const rss = Number.isFinite(step.peakRssMb) ? String(Math.round(step.peakRssMb)) : '–';
  const t = step.threads;
  const threads = t ? `; ${cpu(t.helperCpuPct)} / ${cpu(t.mainWaitPct)}` : '';
  if (!p) return `${rss} / –${threads}`;
  return `${rss} / ${Math.round(p.heapAfterGcMb)}; ${p.majorGcs} (${ms(p.majorGcMs)}, ${ms(p.longestMajorGcMs)}); ${ms(p.longestStallMs)}${threads}`;
}

export const serverResponseHeading = "the worker's own p99 / max ms, at most";

/**
 * The worker's own response times over the window, as bounds of its histogram's buckets (each
 * twice the one before): beside the generator's p99 and max, what of a slow answer was spent
 * from the worker's handler taking it (its queue included) and what the request waited before
 * the worker read it. – where not read.
 */
export function serverResponse(step: StepRecord): string {
  const r = step.serverResponseMs;
  if (!r || !Number.isFinite(r.p99)) return '–';
  const bound = (x: number) => (Number.isFinite(x) ? ms(x) : 'over the last bucket');
  return `${bound(r.p99)} / ${bound(r.max)}`;
}

/** "store reads / read again / lists as they were" over the measured window, as the worker's counters tell; – where not read. */
function contentWork(step: StepRecord): string {
  if (!step.content) return '–';
  const { storeReads, rebuilt, previous } = step.content;
  return `${perS(storeReads)} / ${perS(rebuilt)} / ${previous !== undefined && Number.isFinite(previous) ? perS(previous) : '–'}`;
}

/** "taken of sent, seen after p50 / max ms". */
function pushesOf(pushes: readonly Push[]): string {
  const taken = pushes.filter((p) => p.status === 200 || p.status === 201);
  const seen = taken.map((p) => p.visibleMs ?? Infinity);
  return `${taken.length} of ${pushes.length}, ${seen.length ? `${ms(percentile(seen, 0.5))} / ${ms(percentile(seen, 1))}` : '–'}`;
}

function churnTable(r: BenchResults): string[] {
  const measured = churns(r);
  if (measured.length === 0) return [];
  const share = `${Math.round(belowCapacityShare * 100)}% of capacity`;
  const row = (store: string, phase: string, step: StepRecord, steady: StepRecord, pushes: string) =>
    `| ${store} | ${phase} | ${perS(step.offeredPerS)} | ${perS(step.achievedPerS)} | ${ms(step.latencyMs.p50)} | ${ms(step.latencyMs.p99)} | ${ms(step.latencyMs.max)} | ${serverResponse(step)} | ` +
    `${step.errors + step.timeouts + step.non2xx} | ${cpu(step.serverCpuPct)} | ${cpuMsPerRequest(step).toFixed(2)} | ${cpuRatio(step, steady).toFixed(2)}x | ${contentWork(step)} | ${memoryAndPauses(step)} | ${pushes} | ${flagText(step)} |`;
  return [
    `| store | phase | offered | achieved | p50 ms | p99 ms | max ms | ${serverResponseHeading} | failed | server CPU | CPU ms per request | ÷ no pushes | store reads / read again / lists as they were | ${memoryAndPausesHeading} | pushes (taken, seen after p50 / max ms) | notes |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |',
    ...measured.flatMap(({ store, churn }) => {
      return [
        row(store, 'no pushes', churn.steady, churn.steady, '–'),
        row(store, 'one push a second', churn.pushing, churn.steady, pushesOf(churn.pushes)),
        row(store, 'after the pushes', churn.after, churn.steady, '–'),
        ...(churn.rounds ?? []).flatMap((round, i, all) => [
          row(store, `round ${i + 1} of ${all.length}, ${share}: no pushes`, round.steady, round.steady, '–'),
          row(store, `round ${i + 1} of ${all.length}, ${share}: one push a second`, round.pushing, round.steady, pushesOf(round.pushes)),
        ]),
      ];
    }),
  ];
}

/**
 * What a push costs counted in process, where the host's drift does not blur it, and the ratio
 * that work implies at one push a second beside SQLite's window without pushes at capacity.
 */
/** How many article pages' related rankings a push had worked out again, and brought up to date: nothing where not counted. */
function rankings(cost: PushCost): string {
  if (cost.rankedAgain === undefined || cost.rankingsUpdated === undefined) return '';
  return `, ${perS(cost.rankedAgain)} related rankings worked out again and ${perS(cost.rankingsUpdated)} brought up to date`;
}

/** The first pushes, not counted: what the start-up's collections cost their passes. */
function notCounted(cost: PushCost): string {
  const first = cost.warmupExtraMs ?? [];
  if (first.length === 0) return '';
  return ` (after ${first.length} not counted, their ${cost.method === 'paired' ? 'reads' : 'passes'} paying for the start-up: ${first.map((x) => ms(x)).join(', ')} ms)`;
}

function pushCostLine(r: BenchResults): string | null {
  const cost = r.reference.render?.pushCost;
  if (!cost) return null;
  const steady = r.churn?.steady;
  const implied =
    steady && steady.serverCpuPct > 0
      ? ` At one push a second that is ${pct(cost.extraMs / 1000)} of a core: beside the ${cpu(steady.serverCpuPct)} SQLite's window without pushes used at capacity, ${(1 + cost.extraMs / (steady.serverCpuPct * 10)).toFixed(2)}x its CPU per request.`
      : ` At one push a second that is ${pct(cost.extraMs / 1000)} of a core.`;
  const read = `In a process of its own (tools/bench/push-cost.ts, core 0, no HTTP): after each of ${cost.pushes} new stories pushed${notCounted(cost)}, every one of the ${perS(cost.ids)} article pages' content read again`;
  const took = `${cost.storeReads} store reads, ${perS(cost.rebuilt)} kept answers read again${rankings(cost)} (medians)`;
  const after = `${spread(cost.extraMsEach)}).${controlled(cost)}${implied}`;
  if (cost.method === 'paired')
    return (
      `${read}, in chunks of ${perS(cost.chunk ?? 0)} pages each read twice back to back, took ${took}, ` +
      `and ${ms(cost.extraMs)} ms of CPU more in the pages' first reads than in their second (a warm pass ${ms(cost.passMs)} ms${after}`
    );
  return `${read} took ${took}, ${ms(cost.extraMs)} ms of CPU more than a pass with nothing changed (${ms(cost.passMs)} ms${after}`;
}

/** How far apart the figures a median was taken from came out: ", each -a to +b ms". */
function spread(each: readonly number[] | undefined): string {
  if (!each || each.length === 0) return '';
  return `; each push ${signedMs(Math.min(...each))} to ${signedMs(Math.max(...each))} ms`;
}

/** A difference in ms with its sign: −4.0, +12. */
function signedMs(x: number): string {
  return `${x < 0 ? '−' : '+'}${ms(Math.abs(x))}`;
}

/** The method's control: what the same passes read after a push of nothing. */
function controlled(cost: PushCost): string {
  if (cost.controlExtraMs === undefined) return '';
  const each = cost.controlExtraMsEach ?? [];
  return (
    ` With nothing pushed, the same ${cost.method === 'paired' ? 'paired reads' : 'passes'} read ${signedMs(cost.controlExtraMs)} ms (the median of ${each.length} pushes of nothing, one after each counted push` +
    `${each.length ? `, each ${signedMs(Math.min(...each))} to ${signedMs(Math.max(...each))} ms` : ''}): what the method reads where there is nothing to read.`
  );
}

/** Per store: how steady the host was before its churn steps, and how far apart its windows without pushes came out. */
function churnNoise(r: BenchResults): string[] {
  return churns(r)
    .map(({ store, churn }) => {
      const parts: string[] = [];
      if (churn.steadiness) {
        const { seconds, memory, arithmetic } = churn.steadiness;
        parts.push(
          `the same fixed work on the server's core, over ${seconds} s just before these steps, took ${chunkRange(memory)} per memory-bound chunk and ${chunkRange(arithmetic)} per arithmetic chunk`,
        );
      }
      const rounds = churn.rounds ?? [];
      const spread = steadySpread(rounds);
      if (Number.isFinite(spread)) parts.push(`the rounds' windows without pushes are ${Math.round(spread * 100)}% apart in CPU per request`);
      return parts.length > 0 ? `- ${store}: ${parts.join('; ')}.` : '';
    })
    .filter((line) => line !== '');
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
      '"achieved" counts 2xx answers per second; "fresh (SSR)", "last good", "shell from Node", "shell from Nginx", "503" and "other 2xx" are shares of all requests scheduled in the window, by the answer\'s status and X-Render-Mode (`ssr`, `last-good`, `shell`; "other 2xx" a value the bench does not know, or none, never counted as server-rendered; Nginx\'s shell is told from Node\'s by the Last-Modified a static file carries); errors and timeouts are counts. "paths": uniform rotates over every article, Zipf reads the article of popularity rank k (newest first) in proportion to 1/k. CPU is percent of one core over the measured window, Nginx included behind Nginx.',
    );
  }
  for (const start of r.floodStarts ?? []) lines.push('', floodStartLine(start));
  const copiesRows = copiesTable(r);
  if (copiesRows.length > 0) {
    const control = r.lastGood!.control ? ' (the control: neither server kept copies)' : '';
    lines.push('', `## The last good copies kept and not${control}: through Nginx at ${copiesRateText(r)}, fallback off`, '', ...copiesRows);
    const order = r.lastGood!.atOnce
      ? "each round's two windows at once, each server half the rate from a generator of its own, both servers on the same core (its other processes less the other server's CPU in the notes)"
      : "each round's two windows back to back, the server keeping copies first in odd rounds";
    lines.push(
      '',
      `CPU (worker and Nginx) per request answered, ${order}. ${r.lastGood!.files > 0 ? `${perS(r.lastGood!.files)} copies, ${(r.lastGood!.bytes / 1_048_576).toFixed(1)} MB, on disk after the rounds.` : r.lastGood!.control ? 'No copy was written: the control keeps none.' : 'No copy was written: the tier is not in this build.'}` +
        calibrationText(r.lastGood!),
    );
  }
  const passesRows = passesTable(r);
  if (passesRows.length > 0) {
    lines.push('', '## Cold and warm: every article id read once after start-up, then again, at one rate', '', ...passesRows);
    lines.push(
      '',
      'The capacity search comes after both passes, so it measures a warm server. CPU is percent of one core over the window; per request, milliseconds of it per answer.',
    );
  }
  const churnRows = churnTable(r);
  if (churnRows.length > 0) {
    lines.push(
      '',
      '## Content churn at the SSR capacity: without CMS pushes, one a second (new, corrected, updated articles), after; then rounds of the same below saturation',
      '',
      ...churnRows,
    );
    const noise = churnNoise(r);
    if (noise.length > 0) {
      lines.push(
        '',
        'Odd rounds ran without pushes first, even rounds with them first. How much the same work moved with no push at all, in this run:',
        '',
        ...noise,
      );
    }
  }
  const pushCost = pushCostLine(r);
  if (pushCost !== null) lines.push('', pushCost);
  const variants = variantsTable(r);
  if (variants.length > 0) lines.push('', '## The latest list cut on the server, on and off (in process, core 0)', '', ...variants);
  if (r.hotSet.length > 0) {
    lines.push('', '## Breaking news: 95% of requests to 10 articles, fallback on', '', ...hotSetTable(r));
  }
  if (r.balance.length > 0) {
    lines.push('', '## Balance across workers (unpinned, one worker per core, fallback off)', '', ...balanceTable(r));
    lines.push('', "CPU share is each worker's share of the workers' CPU time over the step; requests per worker come from Nginx's access log.");
  }
  lines.push('', '## Targets', '', ...targetsTable(r.targets));
  if (r.notes.length > 0) lines.push('', '## Notes', '', ...r.notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}
