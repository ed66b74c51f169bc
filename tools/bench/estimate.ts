// How long a run will take, from the options and the durations the bench's own code gives each
// phase, printed at start. The rates a run finds decide some of it (how many probes a search
// takes, how long a pass over the ids lasts), so those come from the records of the 2-vCPU
// machine the bench is run on: an SSR capacity of about 1,500 req/s and renderPage in process
// about 3,500/s. Within a minute or two, not to the second: it says where the time goes.
import type { BenchOptions } from './options';
import { belowCapacityShare } from './churn';
import { copiesSettlingRounds, copiesSettlingWindowS, floodMultipliers, tierWarmShare } from './last-good';

/** What the records of this machine found; only the estimate uses them. */
const assumed = { capacityPerS: 1_500, renderPagePerS: 3_500, ids: 10_000 };

/** Spawning the generator, its last answers, settle()'s shortest wait. */
const overheadS = 0.7;
/**
 * A flood straight at Node leaves requests to time out and a backlog to drain before the next
 * step; through Nginx every request is answered, the slowest within a second or two.
 */
const floodExtraS = { direct: 3, nginx: 1 };
/** Start (about 2 s), warm-up (at least 3.5 s) and settle of a Kiosk server. */
const serverStartS = 7;
/** Of which the warm-up: a Zipf flood's server has the pass before its steps in its place. */
const warmUpS = 3.5;
/** A PostgreSQL cluster started and seeded with the articles. */
const postgresStartS = 15;

/** The searches whose figure is a ceiling judged with a wide margin (bare servers, the shell paths): 10% apart is adequate. */
export const referenceSearchPrecision = 1.1;
/** A search that starts near where the same run found the answer (the DOM budget, PostgreSQL) walks in steps of 25%. */
export const nearFactor = 1.25;
/** Where bare Express's search starts, as a share of Kiosk's DOM_BUDGET=off capacity (the records: 57-92%). */
export const expressShare = 0.8;

export interface Estimate {
  totalS: number;
  phases: [name: string, seconds: number][];
}

/** Probes a search takes: the walk to the first failure, then bisection to the precision, and one probe again on average. */
export function probesOf(factor: number, precision: number, walk: number): number {
  return walk + Math.ceil(Math.log2(Math.log(factor) / Math.log(precision))) + 1;
}

/**
 * The run's duration from the options, at the records' rates; or, given the `renderPage` rate
 * this host showed in process (the run's first measurement), at that rate, with the SSR capacity
 * scaled by the same factor: on a host slower than the records', the passes and the steps at
 * fractions of capacity take longer.
 */
export function estimateSeconds(o: BenchOptions, measuredRenderPagePerS?: number): Estimate {
  const scale = measuredRenderPagePerS && measuredRenderPagePerS > 0 ? measuredRenderPagePerS / assumed.renderPagePerS : 1;
  const rates = { ...assumed, capacityPerS: assumed.capacityPerS * scale, renderPagePerS: assumed.renderPagePerS * scale };
  const probe = o.searchWarmupSeconds + o.searchSeconds + overheadS;
  const step = (multiplier: number, through: keyof typeof floodExtraS = 'direct') =>
    o.warmupSeconds + o.stepSeconds + overheadS + (multiplier >= 5 ? floodExtraS[through] : 0);
  const window = o.warmupSeconds + o.windowSeconds + overheadS;
  const passPerS = o.quick ? rates.renderPagePerS / 2 : rates.renderPagePerS / 4;
  const warmUpRequests = Math.max(200, rates.renderPagePerS / 5) * (Math.max(3, o.warmupSeconds) + 0.5);
  const coldPass = (rates.ids - warmUpRequests) / passPerS + overheadS;
  const passes = coldPass + rates.ids / passPerS + overheadS;
  const referencePrecision = Math.max(o.searchPrecision, referenceSearchPrecision);
  const wide = probesOf(2, o.searchPrecision, 3) * probe;
  const near = probesOf(nearFactor, o.searchPrecision, 2) * probe;
  // Each reference search starts near its figure: the shell path from the records', the second of each pair from the first's.
  const nearReference = probesOf(nearFactor, referencePrecision, 2) * probe;
  const confirm = 1.5 * window;
  const pass = (rate: number) => Math.ceil(rates.ids / rate);
  const churn = o.skipChurn
    ? 0
    : (o.quick ? 2 : 8) +
      2 * window +
      (pass(rates.capacityPerS) + o.windowSeconds + overheadS) +
      o.churnRounds * 2 * (pass(rates.capacityPerS * belowCapacityShare) + o.windowSeconds + overheadS);
  // A Zipf flood's server: the pass over every article at an eighth of capacity before its steps, in place of the warm-up, and the floods only.
  const tierPass = rates.ids / (rates.capacityPerS * tierWarmShare) + overheadS - warmUpS;
  const nginxServer = (mixes: readonly string[]) =>
    mixes.reduce(
      (total, mix) =>
        total +
        serverStartS +
        1 +
        (mix === 'uniform' ? 0 : tierPass) +
        2 * floodMultipliers(mix, o.nginxMultipliers).reduce((sum, m) => sum + step(m, 'nginx'), 0),
      0,
    );
  const searched = o.capacity === null;
  const phases: [string, number][] = [['seeding the store', 10]];
  if (!o.skipReference) {
    const warm = Math.min(2, o.renderSeconds / 3);
    phases.push(['in-process references and a push counted', 6 * o.renderSeconds + 5 * warm + 10]);
    phases.push(["Node's shell path and bare node:http", serverStartS + 4 + 2 * nearReference]);
  }
  if (searched) {
    phases.push([
      'SQLite: passes, capacity, churn, direct steps with the fallback off',
      serverStartS + 6 + passes + wide + confirm + churn + o.offMultipliers.filter((m) => m !== 1).reduce((sum, m) => sum + step(m), 0),
    ]);
  }
  phases.push(['the DOM budget on and off', 2 * (serverStartS + coldPass + 3 + 6 + near)]);
  if (!o.skipReference) phases.push(['bare Express + renderToString', 14 + near]);
  if (searched) phases.push(['direct steps with the fallback on', serverStartS + o.multipliers.reduce((sum, m) => sum + step(m), 0)]);
  if (!o.skipHotSet) phases.push(['breaking news, page cache off and on', 2 * (serverStartS + o.hotSetMultipliers.reduce((sum, m) => sum + step(m), 0))]);
  if (!o.skipNginx) {
    phases.push([`through Nginx (${o.pathMix.join(', ')}; Zipf after a pass over every article)`, nginxServer(o.pathMix)]);
    // The rounds' rate from one or two calibration steps (most runs take two: 90% of capacity saturates behind Nginx).
    if (o.lastGoodRounds > 0)
      phases.push([
        'copies kept and not, through Nginx',
        2 * (serverStartS + 1 + coldPass) +
          2 * step(1) +
          // The two arms of a round at once: one window a round.
          copiesSettlingRounds(o.quick) * (o.warmupSeconds + copiesSettlingWindowS(o.stepSeconds) + overheadS) +
          o.lastGoodRounds * window,
      ]);
    if (!o.skipReference) phases.push(["Nginx's fallback path and bare Nginx", 2 * 4.5 + 2 * nearReference]);
  }
  if (searched && !o.skipPostgres) {
    phases.push([
      'PostgreSQL: passes, capacity, churn, through Nginx',
      postgresStartS + serverStartS + passes + near + confirm + churn + (o.skipNginx ? 0 : nginxServer(o.postgresPathMix)),
    ]);
  }
  if (!o.skipBalance) phases.push(['balance across workers', 2 * (5 + 2 + Math.min(5, o.stepSeconds) + overheadS + 1)]);
  return { totalS: phases.reduce((sum, [, s]) => sum + s, 0), phases };
}

export function describeEstimate(estimate: Estimate, where = "on a machine like the records'"): string {
  const minutes = (s: number) => `${Math.round(s / 60)} min`;
  const parts = estimate.phases
    .filter(([, s]) => s >= 30)
    .map(([name, s]) => `${name} ${minutes(s)}`)
    .join(', ');
  return `about ${minutes(estimate.totalS)} ${where}: ${parts}`;
}
