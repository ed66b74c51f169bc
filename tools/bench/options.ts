import path from 'node:path';
import { numberFlag, parseCommandLine, UsageError, wholeNumberFlag } from '@kiosk/surface';
import { defaultChurnRounds } from './churn';
import { defaultLastGoodRounds } from './last-good';
import { pathMixes, type PathMix } from './path-mix';

export const usage = `Usage: npm run bench -- [options]

Measures Kiosk's article page on this machine, within one run: the reference limits
(renderToString alone, a bare node:http server answering the shell), the server-rendering
capacity with the fallback off, and overload steps at multiples of that capacity with the
fallback on and off. The server runs one worker pinned to core 0; the open-loop load
generator runs on core 1. docs/benchmarks/README.md says what is measured and why.

Writes bench.json, chart.svg and report.md under bench-results/<timestamp>/ and prints the
report (markdown) on stdout; progress goes to stderr.

The whole default run is estimated at start (about 20 minutes on the 2-vCPU machine the records
come from); docs/benchmarks/README.md says what it leaves out and why.

Options:
  --step-seconds N          measured seconds per overload step (default 6)
  --window-seconds N        measured seconds of the windows whose CPU per request is compared
                            (churn, copies on and off) and of the step that confirms capacity
                            (default 8)
  --warmup-seconds N        warm-up before every step, at the step's rate (default 1.5)
  --search-seconds N        measured seconds per capacity-search probe (default 2.5)
  --search-warmup-seconds N warm-up before every probe (default 0.75)
  --render-seconds N        seconds per in-process render reference (default 3)
  --multipliers LIST        overload steps direct to Node with the fallback on, as multiples of
                            capacity (default 1,5,10,20)
  --off-multipliers LIST    overload steps direct to Node with the fallback off (default 1, the
                            step confirming capacity: past it every request waits until it times out)
  --connections N           most connections the generator opens (default 4000)
  --timeout-ms N            a request unanswered this long after its scheduled time
                            fails as a timeout (default 5000)
  --quick                   a smoke run: short steps and a coarse search (a few minutes)
  --skip-reference          skip the render, bare node:http and shell-path references
  --capacity R              take R req/s as the SSR capacity: no search, no direct steps (a
                            quick look at the steps through Nginx; not a record)
  --nginx-multipliers LIST  steps through Nginx (fallback on), as multiples of capacity, each with
                            a storm of new connections and with keep-alive clients (default 1,5,10,20;
                            the Zipf mix the floods only, above 1x, after a pass over every article)
  --path-mix LIST           which articles the steps through Nginx read: uniform (every article in
                            turn), zipf (popularity 1/rank, newest first, seeded), or both
                            (default uniform,zipf: each mix on a server of its own)
  --postgres-path-mix LIST  the same for the steps through Nginx with PostgreSQL (default uniform)
  --last-good-rounds N      copies of pages kept and not, through Nginx below saturation (the
                            two servers at once keep the core about 80% busy): rounds of the two
                            servers at once, each half the rate, the median ratio of CPU per
                            request judged
                            (default ${defaultLastGoodRounds}; 0 skips them)
  --copies-control          the copies rounds with neither server keeping copies: what the method
                            reads where there is no difference (the "kept" arm is the one started
                            first, as in the real rounds)
  --keepalive-connections N most connections the keep-alive clients open, each opened only when
                            none is idle and then reused, as a load balancer opens connections
                            to its target (default: --connections, 4000; 256 until 2026-11-28,
                            a pool the 20x steps outran: the generator, not the server, was
                            their limit)
  --skip-nginx              skip the steps and references through Nginx
  --skip-postgres           skip the PostgreSQL runs (SSR capacity and the steps through Nginx
                            with content from a throwaway PostgreSQL cluster on core 1)
  --hot-set                 add the breaking-news steps direct to Node (95% of requests to 10
                            articles), page cache off and on
  --hot-set-multipliers L   their multiples of capacity (default 5)
  --balance                 add the measurement of how evenly workers share the load
  --skip-hot-set, --skip-balance
                            accepted as before: both are left out unless asked for
  --skip-churn              skip the churn steps (at capacity, without CMS pushes, with one push a
                            second through the ingest API, and after; then rounds without and with
                            pushes at 90% of capacity), SQLite and PostgreSQL
  --churn-rounds N          rounds without and with pushes at 90% of capacity, the median of their
                            ratios judged, the order alternating from round to round (default ${defaultChurnRounds};
                            0 skips them); before each store's churn steps the host's steadiness
                            is measured on the server's core
  --server-env KEY=VALUE    extra environment for every Kiosk server (repeatable)
  --out DIR                 where to write (default bench-results/<timestamp>)
  --no-build                use dist/ as it is even if older than the sources
  --keep-store              keep the seeded SQLite store in the output directory
  -h, --help                show this help`;

export interface BenchOptions {
  stepSeconds: number;
  /** Windows whose CPU per request is compared, and the step that confirms capacity. */
  windowSeconds: number;
  warmupSeconds: number;
  searchSeconds: number;
  searchWarmupSeconds: number;
  renderSeconds: number;
  multipliers: number[];
  offMultipliers: number[];
  nginxMultipliers: number[];
  /** The path mixes of the steps through Nginx, SQLite's and PostgreSQL's. */
  pathMix: PathMix[];
  postgresPathMix: PathMix[];
  /** Rounds of copies kept against not (the last-good tier), through Nginx below saturation. */
  lastGoodRounds: number;
  /** The copies rounds with both arms keeping none (the method's control). */
  copiesControl: boolean;
  keepAliveConnections: number;
  skipNginx: boolean;
  /** Skip the runs with content from PostgreSQL (a throwaway cluster on the generator's core). */
  skipPostgres: boolean;
  hotSetMultipliers: number[];
  skipHotSet: boolean;
  skipBalance: boolean;
  /** Skip the steps at capacity with and without one CMS push a second. */
  skipChurn: boolean;
  /** Rounds without and with pushes below saturation. */
  churnRounds: number;
  connections: number;
  timeoutMs: number;
  /** Bisect until the first failing rate is within this ratio of the last passing one. */
  searchPrecision: number;
  quick: boolean;
  skipReference: boolean;
  /** Given capacity: skip the search and the direct steps. */
  capacity: number | null;
  serverEnv: Record<string, string>;
  outDir: string;
  build: boolean;
  keepStore: boolean;
}

function positive(flag: string, raw: string | undefined, fallback: number): number {
  return numberFlag(flag, raw, (n) => n > 0, 'a positive number') ?? fallback;
}

function churnRounds(raw: string | undefined): number {
  return wholeNumberFlag('--churn-rounds', raw, 0, 1_000) ?? defaultChurnRounds;
}

function multipliers(raw: string | undefined, flag = '--multipliers', fallback = [1, 5, 10, 20]): number[] {
  if (raw === undefined) return fallback;
  const list = raw.split(',').map((part) => positive(flag, part.trim(), 0));
  if (list.length === 0) throw new UsageError(`${flag} needs at least one number`);
  return [...new Set(list)].sort((a, b) => a - b);
}

function mixes(flag: string, raw: string | undefined, fallback: PathMix[]): PathMix[] {
  if (raw === undefined) return fallback;
  const list = raw.split(',').map((part) => part.trim());
  for (const mix of list) {
    if (!(pathMixes as readonly string[]).includes(mix)) throw new UsageError(`${flag} takes ${pathMixes.join(', ')} (comma-separated), got "${mix}"`);
  }
  return pathMixes.filter((mix) => list.includes(mix));
}

function environment(pairs: string[] | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw new UsageError(`--server-env takes KEY=VALUE, got "${pair}"`);
    env[match[1]!] = match[2]!;
  }
  return env;
}

function timestamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

/** Parses the command line; returns null for --help. */
export function readOptions(args: string[], root: string, now = new Date()): BenchOptions | null {
  const parsed = parseCommandLine(args, {
    options: {
      'step-seconds': { type: 'string' },
      'window-seconds': { type: 'string' },
      'warmup-seconds': { type: 'string' },
      'search-seconds': { type: 'string' },
      'search-warmup-seconds': { type: 'string' },
      'render-seconds': { type: 'string' },
      multipliers: { type: 'string' },
      'off-multipliers': { type: 'string' },
      'path-mix': { type: 'string' },
      'postgres-path-mix': { type: 'string' },
      'last-good-rounds': { type: 'string' },
      'copies-control': { type: 'boolean', default: false },
      'hot-set': { type: 'boolean', default: false },
      balance: { type: 'boolean', default: false },
      connections: { type: 'string' },
      'timeout-ms': { type: 'string' },
      quick: { type: 'boolean', default: false },
      'skip-reference': { type: 'boolean', default: false },
      capacity: { type: 'string' },
      'nginx-multipliers': { type: 'string' },
      'keepalive-connections': { type: 'string' },
      'skip-nginx': { type: 'boolean', default: false },
      'skip-postgres': { type: 'boolean', default: false },
      'hot-set-multipliers': { type: 'string' },
      'skip-hot-set': { type: 'boolean', default: false },
      'skip-balance': { type: 'boolean', default: false },
      'skip-churn': { type: 'boolean', default: false },
      'churn-rounds': { type: 'string' },
      'server-env': { type: 'string', multiple: true },
      out: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      'keep-store': { type: 'boolean', default: false },
    },
  });
  if (parsed === null) return null;
  const { values } = parsed;
  const quick = values.quick;
  const connections = positive('--connections', values.connections, 4000);
  if (!Number.isInteger(connections)) throw new UsageError('--connections must be a whole number');
  return {
    stepSeconds: positive('--step-seconds', values['step-seconds'], quick ? 3 : 6),
    windowSeconds: positive('--window-seconds', values['window-seconds'], quick ? 3 : 8),
    warmupSeconds: positive('--warmup-seconds', values['warmup-seconds'], quick ? 1 : 1.5),
    searchSeconds: positive('--search-seconds', values['search-seconds'], quick ? 1.5 : 2.5),
    searchWarmupSeconds: positive('--search-warmup-seconds', values['search-warmup-seconds'], quick ? 0.5 : 0.75),
    renderSeconds: positive('--render-seconds', values['render-seconds'], quick ? 1.5 : 3),
    multipliers: multipliers(values.multipliers),
    offMultipliers: multipliers(values['off-multipliers'], '--off-multipliers', [1]),
    nginxMultipliers: multipliers(values['nginx-multipliers'], '--nginx-multipliers'),
    pathMix: mixes('--path-mix', values['path-mix'], ['uniform', 'zipf']),
    postgresPathMix: mixes('--postgres-path-mix', values['postgres-path-mix'], ['uniform']),
    lastGoodRounds: wholeNumberFlag('--last-good-rounds', values['last-good-rounds'], 0, 1_000) ?? defaultLastGoodRounds,
    copiesControl: values['copies-control'],
    keepAliveConnections: Math.round(positive('--keepalive-connections', values['keepalive-connections'], connections)),
    skipNginx: values['skip-nginx'],
    skipPostgres: values['skip-postgres'],
    hotSetMultipliers: values['hot-set-multipliers'] === undefined ? [5] : multipliers(values['hot-set-multipliers'], '--hot-set-multipliers'),
    skipHotSet: !values['hot-set'] || values['skip-hot-set'],
    skipBalance: !values.balance || values['skip-balance'],
    skipChurn: values['skip-churn'],
    churnRounds: churnRounds(values['churn-rounds']),
    connections,
    timeoutMs: positive('--timeout-ms', values['timeout-ms'], 5000),
    searchPrecision: quick ? 1.2 : 1.05,
    quick,
    skipReference: values['skip-reference'],
    capacity: values.capacity === undefined ? null : positive('--capacity', values.capacity, 0),
    serverEnv: environment(values['server-env']),
    outDir: path.resolve(root, values.out ?? path.join('bench-results', timestamp(now))),
    build: !values['no-build'],
    keepStore: values['keep-store'],
  };
}
