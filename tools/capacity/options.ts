import { numberFlag, parseCommandLine } from '@kiosk/surface';
import { InputError, parseDuration } from './duration';
import { edgeDefaults, type Lifetimes } from './edge';
import { parseRange, type Range } from './launch';

export const usage = `Usage: npm run capacity -- [options]

Simulates the Elastic Beanstalk fleet second by second under a traffic profile and prints
a minute-by-minute timeline and a summary: what the scaling policy in .ebextensions/ does
when the news breaks. Launch times are drawn per instance, so it runs --runs times and
gives the spread: about a second, --recommend a few (progress shown on a terminal);
nothing is measured or sent anywhere.

The model (docs/capacity-planning.md has the details and the reasons):
  - Page views per second at the edge (--profile). CloudFront answers --cdn-hit of them;
    of the rest, 1 in --pages-per-session is a page load (HTML), the others are /api
    requests from in-browser navigation.
  - One instance does vCPUs × the per-vCPU rates of one worker on one core (from a
    npm run bench result, or flags). A server-rendered page costs 1/SSR rate of an
    instance-second, a shell 1/shell rate, an /api request --api-cost × a page.
  - Load spreads evenly over ready instances. Each renders every page while it can;
    past that it renders as many as fit and answers the rest with the shell; past even
    all-shell it sheds the excess (503). CPU = work / capacity, at most 100%.
  - CloudWatch + EB, as AWS documents them: a datapoint is the statistic of the group's
    CPU over each Period, seen by the alarm --metric-delay after the period ends; every
    minute the alarm looks at its last EvaluationPeriods datapoints and is in ALARM while
    they all breach UpperThreshold (LowerThreshold). In ALARM it invokes its simple scaling
    policy, then again every Period while it stays there; the policy adds
    UpperBreachScaleIncrement (LowerBreachScaleIncrement, negative) within MinSize..MaxSize
    unless an activity is under way or Cooldown runs. A scale-out's activity ends, and its
    cooldown starts, when its last instance is InService; a scale-in's cooldown starts
    after the DeregistrationDelay.
  - EC2 Auto Scaling policies declared in Resources on AWSEBAutoScalingGroup, with the
    CloudWatch alarms that invoke them: step scaling (the step for the alarm's breach, a
    share or a count of the instances past their warm-up, never lowering the desired
    capacity; no cooldown) and target tracking on the group's CPU (3 one-minute datapoints
    above the target to scale out in proportion, 15 below 90% of it to scale in). Alarms
    evaluate their own metric math on the group's CPU and Kiosk's ServerRendered, Shell
    and NginxShell (every shell is Nginx's) at their period: every 10 s for a 10 s or
    30 s period, else every minute; Kiosk's datapoints are seen --custom-metric-delay
    after their period. With DefaultInstanceWarmup on the group, an instance counts in
    the CPU only after it, and no policy scales in while one warms up. Policies invoked at
    once: the largest capacity wins; a scale-in waits while a scale-out is under way.
  - A new instance: InService after --in-service, its app up after --deploy more, then
    the load balancer's health checks (HealthCheckInterval, Healthy/UnhealthyThreshold-
    Count from .ebextensions) before it takes traffic. Times are drawn per instance from
    the ranges; from InService until it takes traffic it reports --warming-cpu, which
    pulls the group's average down. Each run draws anew: --runs runs, from --seed.

Capacity (per vCPU; instance = × vCPUs):
  --bench FILE              a npm run bench result: capacity.ratePerS (server-rendered)
                            and reference.shellPath.ratePerS (shell). Default: the newest
                            bench-results/*/bench.json, unless both flags below are given
  --ssr-per-vcpu N          server-rendered pages per second per vCPU (overrides --bench)
  --shell-per-vcpu N        shells per second per vCPU (overrides --bench)
  --vcpus N                 vCPUs per instance (default: from the instance type's size,
                            xlarge = 4; else 4, a c5.xlarge)
  --api-cost X              an /api request's cost as a fraction of a server-rendered
                            page's (default: a shell's, SSR rate / shell rate)

Scaling policy:
  --ebextensions DIR        where the *.config files are (default .ebextensions/ at the
                            repository root); without it, the newsroom's field policy, with a note
  --field-policy            use the newsroom's field policy even if .ebextensions/ exists
  --option NS:Name=VALUE    set one option over the files, e.g.
                            aws:autoscaling:asg:MaxSize=12 (repeatable)
  --initial N               instances taking traffic at the start (default MinSize)

Launch and metrics (assumptions where AWS gives no figure; docs/capacity-planning.md):
  --in-service RANGE        launch to InService: EC2 boot and status checks, e.g. 45s or
                            30s-60s, drawn per instance (default 30s-60s)
  --deploy RANGE            InService to the app answering /healthz: Elastic Beanstalk's
                            bootstrap and deployment, Nginx and Node starting (default 60s-120s)
  --warming-cpu R           CPU an instance reports from InService until it takes traffic,
                            0 to 1 (default 0.1)
  --metric-delay DURATION   a period's end to its datapoint reaching the alarm: EC2's CPU
                            (default 60s)
  --custom-metric-delay DURATION
                            the same for Kiosk's own metrics, sent with PutMetricData at the
                            end of each METRICS_FLUSH_S (default 60s)
  --runs N                  runs with fresh launch times: the summary gives their spread,
                            --recommend judges each candidate on all of them (default 20)
  --seed N                  the first run's seed; run i uses seed + i (default 1)

Traffic:
  --profile SPEC            steady:RATE | step:FROM:TO@TIME | ramp:FROM:TO@START-END,
                            page views per second at the edge (default step:1000:3000@10m)
  --profile-csv FILE        rows "time,rate": time from the start (0, 90s, 10m), rate in
                            views/s held until the next row (so rows a second or a minute
                            apart both work); first row at 0; # comments; an optional
                            header, "time,views_per_min" for counts per minute
  --duration DURATION       run length (default: 30 min after the rise; a CSV's length;
                            steady: 60 min)
  --rise-at DURATION        when the spike starts, for "time to triple" (default: the
                            step, the ramp's start, or a CSV's first row above 1.25× the first)
  --cdn-hit R               share CloudFront answers, 0 to 1 (default 0.8)
  --pages-per-session N     page views per session (default 3.55)

Edge lifetimes and purges (--edge; docs/capacity-planning.md, "The edge"):
  --edge                    instead of the fleet's timeline: origin requests per 1,000 page
                            views and instances needed, with today's edge lifetimes (front
                            10 s, sections 30 s, articles 60 s, tags 120 s, 30 s
                            stale-while-revalidate) against purge-driven ones below. Views
                            follow a Zipf popularity over the articles, sections and tags;
                            each push purges its article, its section, its tags and the
                            front page at every edge location
  --edge-rate N             page views per second at the edge where the origin is counted
                            (default ${edgeDefaults.viewsPerS}, the newsroom's peak)
  --edge-locations N        edge locations sharing the views (default: calibrated so that
                            today's front page is answered at the edge for --front-hit of
                            its views at --anchor-rate)
  --front-hit R             the anchor: today's front-page hit ratio at the edge locations
                            (default ${edgeDefaults.frontHit})
  --regional-caches N       regional edge caches between the edge locations and the origin,
                            sharing their misses (default: 1 when the distribution in
                            .ebextensions has Origin Shield, as it does, else 0; 0: every
                            edge location's miss reaches the origin)
  --anchor-rate N           page views per second when it was measured (default ${edgeDefaults.anchorViewsPerS})
  --pushes-per-s N          CMS pushes per second, each purging its story's pages (default ${edgeDefaults.pushesPerS})
  --purge-batch DURATION    the purge sender's batch: a page is purged once per batch at most
                            (default ${edgeDefaults.purgeBatchS}s)
  --front-lifetime DURATION, --section-lifetime DURATION, --tag-lifetime DURATION,
  --article-lifetime DURATION
                            the purge-driven lifetimes at the edge (default 10m, 1h, 1h, 1h)
  --articles N              articles read (default ${edgeDefaults.site.articles})
  --zipf S                  popularity exponent within each page type (default ${edgeDefaults.site.zipf})
  --seed N                  also draws each article's section and tags

Output:
  --price USD               per instance-hour, for costs (e.g. 0.17, c5.xlarge on demand in
                            us-east-1 at the time of writing: check yours)
  --svg FILE                write a chart: fleet, traffic, shell share and CPU over time
  --json                    print JSON instead of the text report

Recommendation:
  --recommend               compare the policies over the same runs: EB's CPU trigger alone,
                            the step policies on the shell share alone, both as configured,
                            each from --min-size-floor up to the MinSize that meets
                            --objective, over --day; then, for the CPU trigger alone, the
                            smallest UpperBreachScaleIncrement per MinSize. Met means: no
                            request shed in the whole run, and from the deadline after the
                            step to the end of the hold, in no second more than
                            --max-shell-share of pages get the shell
  --objective B:P@DEADLINE  from B to P page views/s at the edge, met within DEADLINE
                            (default 1000:3000@5m, the newsroom's objectives)
  --settle DURATION         time at the base rate first, from MinSize (default 30m)
  --hold DURATION           time the peak is held, the span costed (default 60m)
  --day DURATION            the comparison's run: settle, hold, then the base rate to its
                            end, for the instance-hours of a day with one spike (default 24h)
  --max-shell-share R       the bound (default 0.05)
  --min-size-floor N        smallest MinSize considered (default 2: two zones)
  --meet-share R            share of the --runs in which a candidate must meet the
                            objective (default 0.9)
  -h, --help                show this help

Examples:
  npm run capacity                                   # newest bench, .ebextensions or the field policy
  npm run capacity -- --ssr-per-vcpu 22.5 --shell-per-vcpu 200 --price 0.17
                                                     # the newsroom's c5.xlarge: 90 and 800 req/s
  npm run capacity -- --bench bench-results/2026-11-22T02-03-59Z/bench.json --cdn-hit 0.5
  npm run capacity -- --profile ramp:600:6000@10m-20m --duration 60m --svg /tmp/ramp.svg
  npm run capacity -- --profile-csv election-night.csv --deploy 2m-4m --json > run.json
  npm run capacity -- --option aws:autoscaling:trigger:UpperBreachScaleIncrement=2 --deploy 3m-5m
  npm run capacity -- --edge --ssr-per-vcpu 22.5 --shell-per-vcpu 200
                                                     # today's edge lifetimes against purge-driven ones
  npm run capacity -- --recommend --objective 1000:3000@5m --ssr-per-vcpu 22.5 --shell-per-vcpu 200 --price 0.17`;

export interface CapacityOptions {
  bench: string | null;
  ssrPerVcpu: number | null;
  shellPerVcpu: number | null;
  vcpus: number | null;
  apiCost: number | null;
  ebextensions: string | null;
  designPolicy: boolean;
  overrides: string[];
  inService: Range;
  deploy: Range;
  warmingCpu: number;
  metricDelayS: number;
  customMetricDelayS: number;
  runs: number;
  seed: number;
  initial: number | null;
  profile: string;
  profileCsv: string | null;
  durationS: number | null;
  riseAtS: number | null;
  cdnHit: number;
  pagesPerSession: number;
  price: number | null;
  svg: string | null;
  json: boolean;
  recommend: boolean;
  objective: string;
  settleS: number;
  holdS: number;
  dayS: number;
  maxShellShare: number;
  minSizeFloor: number;
  meetShare: number;
  edge: EdgeOptions | null;
}

export interface EdgeOptions {
  viewsPerS: number;
  locations: number | null;
  frontHit: number;
  anchorViewsPerS: number;
  /** null: from the distribution (1 with Origin Shield, else 0). */
  regionalCaches: number | null;
  pushesPerS: number;
  purgeBatchS: number;
  lifetimes: Lifetimes;
  articles: number;
  zipf: number;
}

const numberIn = numberFlag;

const positive = (n: number) => n > 0;
const share = (n: number) => n >= 0 && n <= 1;
const whole = (n: number) => Number.isInteger(n) && n >= 1;

/** Parses the command line; null for --help. */
export function readOptions(args: string[]): CapacityOptions | null {
  const parsed = parseCommandLine(args, {
    options: {
      bench: { type: 'string' },
      'ssr-per-vcpu': { type: 'string' },
      'shell-per-vcpu': { type: 'string' },
      vcpus: { type: 'string' },
      'api-cost': { type: 'string' },
      ebextensions: { type: 'string' },
      'field-policy': { type: 'boolean', default: false },
      option: { type: 'string', multiple: true },
      boot: { type: 'string' },
      'in-service': { type: 'string' },
      deploy: { type: 'string' },
      'warming-cpu': { type: 'string' },
      'metric-delay': { type: 'string' },
      'custom-metric-delay': { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      'meet-share': { type: 'string' },
      initial: { type: 'string' },
      profile: { type: 'string' },
      'profile-csv': { type: 'string' },
      duration: { type: 'string' },
      'rise-at': { type: 'string' },
      'cdn-hit': { type: 'string' },
      'pages-per-session': { type: 'string' },
      price: { type: 'string' },
      svg: { type: 'string' },
      json: { type: 'boolean', default: false },
      recommend: { type: 'boolean', default: false },
      objective: { type: 'string' },
      settle: { type: 'string' },
      hold: { type: 'string' },
      day: { type: 'string' },
      'max-shell-share': { type: 'string' },
      'min-size-floor': { type: 'string' },
      edge: { type: 'boolean', default: false },
      'edge-rate': { type: 'string' },
      'edge-locations': { type: 'string' },
      'front-hit': { type: 'string' },
      'anchor-rate': { type: 'string' },
      'regional-caches': { type: 'string' },
      'pushes-per-s': { type: 'string' },
      'purge-batch': { type: 'string' },
      'front-lifetime': { type: 'string' },
      'section-lifetime': { type: 'string' },
      'tag-lifetime': { type: 'string' },
      'article-lifetime': { type: 'string' },
      articles: { type: 'string' },
      zipf: { type: 'string' },
    },
  });
  if (parsed === null) return null;
  const { values } = parsed;
  if (values.boot !== undefined) {
    throw new InputError(
      '--boot is gone: launch to traffic is now --in-service and --deploy (ranges, drawn per instance) plus the health checks from .ebextensions',
    );
  }
  if (values.profile !== undefined && values['profile-csv'] !== undefined) throw new InputError('--profile and --profile-csv: one or the other');
  const duration = (flag: string, raw: string | undefined) => (raw === undefined ? null : parseDuration(raw, flag));
  const durationS = duration('--duration', values.duration);
  if (durationS !== null && durationS <= 0) throw new InputError('--duration must be above 0');
  const pagesPerSession = numberIn('--pages-per-session', values['pages-per-session'], (n) => n >= 1, 'at least 1') ?? 3.55;
  const cdnHit = numberIn('--cdn-hit', values['cdn-hit'], (n) => n >= 0 && n < 1, 'a share from 0 to below 1') ?? 0.8;
  return {
    bench: values.bench ?? null,
    ssrPerVcpu: numberIn('--ssr-per-vcpu', values['ssr-per-vcpu'], positive, 'a positive number'),
    shellPerVcpu: numberIn('--shell-per-vcpu', values['shell-per-vcpu'], positive, 'a positive number'),
    vcpus: numberIn('--vcpus', values.vcpus, whole, 'a whole number ≥ 1'),
    apiCost: numberIn('--api-cost', values['api-cost'], positive, 'a positive number'),
    ebextensions: values.ebextensions ?? null,
    designPolicy: values['field-policy'],
    overrides: values.option ?? [],
    inService: values['in-service'] === undefined ? { minS: 30, maxS: 60 } : parseRange(values['in-service'], '--in-service'),
    deploy: values.deploy === undefined ? { minS: 60, maxS: 120 } : parseRange(values.deploy, '--deploy'),
    warmingCpu: numberIn('--warming-cpu', values['warming-cpu'], share, 'a share from 0 to 1') ?? 0.1,
    metricDelayS: duration('--metric-delay', values['metric-delay']) ?? 60,
    customMetricDelayS: duration('--custom-metric-delay', values['custom-metric-delay']) ?? 60,
    runs: numberIn('--runs', values.runs, (n) => whole(n) && n <= 1000, 'a whole number from 1 to 1000') ?? 20,
    seed: numberIn('--seed', values.seed, (n) => Number.isInteger(n) && n >= 0, 'a whole number ≥ 0') ?? 1,
    initial: numberIn('--initial', values.initial, whole, 'a whole number ≥ 1'),
    profile: values.profile ?? 'step:1000:3000@10m',
    profileCsv: values['profile-csv'] ?? null,
    durationS,
    riseAtS: duration('--rise-at', values['rise-at']),
    cdnHit,
    pagesPerSession,
    price: numberIn('--price', values.price, (n) => n >= 0, 'a number ≥ 0'),
    svg: values.svg ?? null,
    json: values.json,
    recommend: values.recommend,
    objective: values.objective ?? '1000:3000@5m',
    settleS: duration('--settle', values.settle) ?? 30 * 60,
    holdS: duration('--hold', values.hold) ?? 60 * 60,
    dayS: duration('--day', values.day) ?? 24 * 60 * 60,
    maxShellShare: numberIn('--max-shell-share', values['max-shell-share'], share, 'a share from 0 to 1') ?? 0.05,
    minSizeFloor: numberIn('--min-size-floor', values['min-size-floor'], whole, 'a whole number ≥ 1') ?? 2,
    meetShare: numberIn('--meet-share', values['meet-share'], (n) => n > 0 && n <= 1, 'a share above 0, at most 1') ?? 0.9,
    edge: values.edge ? readEdgeOptions(values) : noEdgeFlags(values),
  };
}

const edgeFlags = [
  'edge-rate',
  'edge-locations',
  'front-hit',
  'anchor-rate',
  'regional-caches',
  'pushes-per-s',
  'purge-batch',
  'front-lifetime',
  'section-lifetime',
  'tag-lifetime',
  'article-lifetime',
  'articles',
  'zipf',
];

/** The edge model's flags without --edge would be ignored: say so instead. */
function noEdgeFlags(values: Record<string, unknown>): null {
  const given = edgeFlags.find((flag) => values[flag] !== undefined);
  if (given) throw new InputError(`--${given} goes with --edge`);
  return null;
}

function readEdgeOptions(values: Record<string, string | boolean | string[] | undefined>): EdgeOptions {
  const text = (name: string) => values[name] as string | undefined;
  if (values.recommend) throw new InputError('--edge and --recommend: one or the other');
  const lifetime = (flag: string, fallback: number) => {
    const raw = text(flag);
    if (raw === undefined) return fallback;
    const s = parseDuration(raw, `--${flag}`);
    if (s < 1) throw new InputError(`--${flag} must be at least 1 s`);
    return s;
  };
  const batch = text('purge-batch') === undefined ? edgeDefaults.purgeBatchS : parseDuration(text('purge-batch')!, '--purge-batch');
  if (batch < 1) throw new InputError('--purge-batch must be at least 1 s');
  const defaults = edgeDefaults.newLifetimes;
  return {
    viewsPerS: numberIn('--edge-rate', text('edge-rate'), positive, 'a positive number') ?? edgeDefaults.viewsPerS,
    locations: numberIn('--edge-locations', text('edge-locations'), (n) => whole(n) && n <= 100_000, 'a whole number from 1 to 100000'),
    frontHit: numberIn('--front-hit', text('front-hit'), (n) => n > 0 && n < 1, 'a share above 0, below 1') ?? edgeDefaults.frontHit,
    anchorViewsPerS: numberIn('--anchor-rate', text('anchor-rate'), positive, 'a positive number') ?? edgeDefaults.anchorViewsPerS,
    regionalCaches: numberIn('--regional-caches', text('regional-caches'), (n) => Number.isInteger(n) && n >= 0 && n <= 100, 'a whole number from 0 to 100'),
    pushesPerS: numberIn('--pushes-per-s', text('pushes-per-s'), (n) => n >= 0 && n <= 1_000, 'a number from 0 to 1000') ?? edgeDefaults.pushesPerS,
    purgeBatchS: batch,
    lifetimes: {
      front: lifetime('front-lifetime', defaults.front),
      section: lifetime('section-lifetime', defaults.section),
      tag: lifetime('tag-lifetime', defaults.tag),
      article: lifetime('article-lifetime', defaults.article),
    },
    articles: numberIn('--articles', text('articles'), (n) => whole(n) && n <= 1_000_000, 'a whole number from 1 to 1000000') ?? edgeDefaults.site.articles,
    zipf: numberIn('--zipf', text('zipf'), (n) => n >= 0 && n <= 3, 'a number from 0 to 3') ?? edgeDefaults.site.zipf,
  };
}
