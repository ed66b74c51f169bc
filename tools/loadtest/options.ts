import path from 'node:path';
import { numberFlag, parseCommandLine, UsageError } from '@kiosk/surface';
import { defaultFeedPath } from './feed';

export const simulations = {
  stress: 'kiosk.loadtest.StressSimulation',
  capacity: 'kiosk.loadtest.CapacityStepSimulation',
  journey: 'kiosk.loadtest.ReaderJourneySimulation',
} as const;
export type SimulationName = keyof typeof simulations;

export const usage = `Usage: npm run loadtest -- --simulation stress|capacity|journey [options]

Runs one of Kiosk's Gatling simulations (loadtest/, through its Maven wrapper) against a
running site, streams its progress, then prints where the HTML report is and a summary
table read from that report: per step, the requests, the share of pages server-rendered
(X-Render-Mode: ssr) and served as the shell, p50/p95/p99, the share under 800 ms,
800-1,200 ms and over 1,200 ms, and the failed requests (KO).

  stress    users walk the article feed in order, throttled to --rps: a ramp of --reach
            seconds, then a hold of --hold minutes
  capacity  one step per rate of --rates: readers arrive at that rate (open model, one
            article page each) for --step-hold seconds; the newsroom's capacity table
  journey   readers land on an article page, then read on through /api as the browser
            does (3.55 page views per session), arriving so pages come at --rps

Options:
  --simulation NAME   stress, capacity or journey (default stress)
  --base-url URL      the site (default http://localhost:3000); only the machine's own
                      addresses or your own environments
  --rps N             stress: requests/s to reach; journey: page views/s (default 100)
  --reach S           stress, journey: ramp-up in seconds (default 30)
  --hold MIN          stress, journey: minutes at --rps, fractions allowed (default 2; journey 5)
  --users N           stress: virtual users (default 3 x --rps, at least 10)
  --rates LIST        capacity: requests/s of each step (default 50,100,200,400,800)
  --step-hold S       capacity: seconds per step (default 30)
  --warm-up S         capacity: a first step at --warm-up-rps, reported as "warm-up" (default 10; 0 skips)
  --warm-up-rps N     capacity: rate of the warm-up (default half the first rate)
  --think MIN-MAX     journey: seconds a reader reads before the next page (default 5-20)
  --timeout-ms N      a request unanswered this long fails (default 10000)
  --share-connections users share one connection pool, as a CDN or proxy in front would
                      (default: each user its own connections, as browsers)
  --feed FILE         URL feed, CSV with a "path" column (default: the generated
                      ${path.relative(process.cwd(), defaultFeedPath)}, written from --db when missing)
  --db PATH           write the default feed afresh from this content store (without it, the
                      feed is written from $CONTENT_DB_PATH, else data/kiosk.sqlite, when
                      missing); use the store the target serves
  --verbose           show Gatling's and Maven's own output instead of one progress line per 5 s
  -h, --help          show this help

Exit codes: 0 the run finished (failed requests are in the summary), 1 the run could not
start or Gatling failed, 2 bad arguments.`;

export interface LoadtestOptions {
  simulation: SimulationName;
  simulationClass: string;
  baseUrl: string;
  /** -D system properties for the simulation (and Gatling's own settings). */
  properties: Record<string, string>;
  /** Seconds of each capacity step by its name in the report, for its req/s. */
  stepSeconds: Map<string, number>;
  feed: string;
  /** The store the default feed is written from: when it is missing, or always with --db. */
  feedSourceDb: string | null;
  rewriteFeed: boolean;
  verbose: boolean;
}

export { UsageError };

function positive(flag: string, raw: string | undefined, fallback: number, { zero = false } = {}): number {
  const rule = zero ? 'number >= 0' : 'positive number';
  if (raw !== undefined && !/^\d+(\.\d+)?$/.test(raw.trim())) throw new UsageError(`${flag} must be a ${rule}, got "${raw}"`);
  return numberFlag(flag, raw, (n) => n > 0 || (zero && n === 0), `a ${rule}`) ?? fallback;
}

function whole(flag: string, raw: string | undefined, fallback: number): number {
  const value = positive(flag, raw, fallback);
  if (!Number.isInteger(value)) throw new UsageError(`${flag} must be a whole number, got "${raw}"`);
  return value;
}

function rates(raw: string | undefined): number[] {
  if (raw === undefined) return [50, 100, 200, 400, 800];
  const list = raw.split(',').map((part) => positive('--rates', part.trim(), 0));
  if (list.length === 0) throw new UsageError('--rates needs at least one rate');
  return list;
}

function think(raw: string | undefined): [number, number] {
  if (raw === undefined) return [5, 20];
  const match = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$/.exec(raw.trim());
  if (!match) throw new UsageError(`--think takes seconds as MIN-MAX (e.g. 5-20) or one number, got "${raw}"`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min) throw new UsageError(`--think: MIN must not be above MAX, got "${raw}"`);
  return [min, max];
}

function baseUrl(raw: string | undefined): string {
  const value = raw ?? 'http://localhost:3000';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--base-url must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be http or https, got "${value}"`);
  if (url.search || url.hash) throw new UsageError(`--base-url takes no query or fragment, got "${value}"`);
  return url.href.replace(/\/+$/, '');
}

/** "120 req/s": how CapacityStepSimulation names a step (Settings.rateLabel). */
export function rateLabel(rate: number): string {
  return `${Number.isInteger(rate) ? rate : rate.toString()} req/s`;
}

const applies: Record<string, SimulationName[]> = {
  rps: ['stress', 'journey'],
  reach: ['stress', 'journey'],
  hold: ['stress', 'journey'],
  users: ['stress'],
  rates: ['capacity'],
  'step-hold': ['capacity'],
  'warm-up': ['capacity'],
  'warm-up-rps': ['capacity'],
  think: ['journey'],
};

/** Parses the command line; returns null for --help. `defaultDb` is the store the default feed comes from. */
export function readOptions(args: string[], defaultDb: string): LoadtestOptions | null {
  const parsed = parseCommandLine(args, {
    options: {
      simulation: { type: 'string' },
      'base-url': { type: 'string' },
      rps: { type: 'string' },
      reach: { type: 'string' },
      hold: { type: 'string' },
      users: { type: 'string' },
      rates: { type: 'string' },
      'step-hold': { type: 'string' },
      'warm-up': { type: 'string' },
      'warm-up-rps': { type: 'string' },
      think: { type: 'string' },
      'timeout-ms': { type: 'string' },
      'share-connections': { type: 'boolean', default: false },
      feed: { type: 'string' },
      db: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
  });
  if (parsed === null) return null;
  const { values } = parsed;
  const simulation = (values.simulation ?? 'stress') as SimulationName;
  if (!Object.hasOwn(simulations, simulation)) {
    throw new UsageError(`--simulation must be one of ${Object.keys(simulations).join(', ')}, got "${values.simulation}"`);
  }
  for (const [flag, names] of Object.entries(applies)) {
    if ((values as Record<string, unknown>)[flag] !== undefined && !names.includes(simulation)) {
      throw new UsageError(`--${flag} applies to --simulation ${names.join(' or ')}, not ${simulation}`);
    }
  }
  if (values.feed !== undefined && values.db !== undefined) {
    throw new UsageError('--db makes the default feed; with --feed FILE the feed is yours, so give one or the other');
  }

  const url = baseUrl(values['base-url']);
  const timeoutMs = whole('--timeout-ms', values['timeout-ms'], 10_000);
  const feed = path.resolve(values.feed ?? defaultFeedPath);
  const properties: Record<string, string> = {
    baseUrl: url,
    // Gatling refuses an absolute path into its own classpath: the default feed goes by name.
    urlFeed: feed === defaultFeedPath ? path.basename(feed) : feed,
    'gatling.http.requestTimeout': String(timeoutMs),
  };
  if (values['share-connections']) properties.shareConnections = 'true';
  const stepSeconds = new Map<string, number>();

  if (simulation === 'stress' || simulation === 'journey') {
    const rps = positive('--rps', values.rps, 100);
    properties.rps = String(rps);
    properties.reachInSec = String(positive('--reach', values.reach, 30));
    properties.holdForMin = String(positive('--hold', values.hold, simulation === 'stress' ? 2 : 5));
  }
  if (simulation === 'stress' && values.users !== undefined) properties.users = String(whole('--users', values.users, 0));
  if (simulation === 'capacity') {
    const list = rates(values.rates);
    const holdSec = positive('--step-hold', values['step-hold'], 30);
    const warmUpSec = positive('--warm-up', values['warm-up'], 10, { zero: true });
    const warmUpRps = positive('--warm-up-rps', values['warm-up-rps'], Math.max(1, list[0]! / 2));
    if (new Set(list.map(rateLabel)).size !== list.length) throw new UsageError(`--rates names a rate twice: ${values.rates}`);
    Object.assign(properties, {
      rates: list.join(','),
      holdSec: String(holdSec),
      warmUpSec: String(warmUpSec),
      warmUpRps: String(warmUpRps),
    });
    for (const rate of list) stepSeconds.set(rateLabel(rate), holdSec);
    if (warmUpSec > 0) stepSeconds.set('warm-up', warmUpSec);
  }
  if (simulation === 'journey') {
    const [min, max] = think(values.think);
    properties.thinkMinSec = String(min);
    properties.thinkMaxSec = String(max);
  }

  return {
    simulation,
    simulationClass: simulations[simulation],
    baseUrl: url,
    properties,
    stepSeconds,
    feed,
    feedSourceDb: values.feed === undefined ? path.resolve(values.db ?? defaultDb) : null,
    rewriteFeed: values.db !== undefined,
    verbose: values.verbose,
  };
}
