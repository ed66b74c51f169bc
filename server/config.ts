import os from 'node:os';
import path from 'node:path';
import { latestListSize } from '../src/content';
import { defaultMonthlyPaths } from './edge/budget';

if ('window' in globalThis) {
  throw new Error('server/config must never be bundled for the browser');
}

export interface Config {
  nodeEnv: 'production' | 'development' | 'test';
  /** The port every worker listens on, or in per-worker mode the first worker's port (worker slot k gets PORT + k). */
  port: number;
  /**
   * `reuse-port` (the default without Nginx): every worker opens its own socket on PORT with
   * SO_REUSEPORT, so the kernel spreads new connections over the workers and none waits in the
   * cluster primary's hand-off. `per-worker`: each worker owns PORT + slot, so Nginx can count
   * and balance each worker's requests (production).
   */
  listenMode: 'reuse-port' | 'per-worker';
  /** Bind address; empty means every interface. Per-worker ports default to loopback: only Nginx needs them. */
  host: string;
  /** Worker processes; throng does not read WEB_CONCURRENCY itself. */
  webConcurrency: number;
  /** Absolute origin used for canonical and Open Graph URLs, without a trailing slash. */
  siteUrl: string;
  /** Where content comes from: one store (server/content/open.ts turns it into the reader, the writer and the rest). */
  content: ContentSetting;
  /**
   * SEED_DEMO_CONTENT=true: an empty or missing SQLite store is filled with made-up demo
   * articles before the cluster starts (dist/server/seed-demo.cjs, which the Procfile runs; npm
   * start asks for it). Off by default: outside a demo, an empty store is a start-up error.
   */
  seedDemoContent: boolean;
  /** Whole exchange with the newsroom API (connect, headers and body), or one database query. */
  contentTimeoutMs: number;
  /**
   * The newsroom API's answers are used this long without asking again (it cannot say what
   * changed); PostgreSQL's, while its listener is away, before they are read again.
   */
  contentFreshS: number;
  /** A kept answer younger than this stands in when the store fails. */
  contentStaleS: number;
  /** Bounds of each worker's content cache (server/content/cache.ts). */
  contentCacheEntries: number;
  contentCacheMb: number;
  /** Build output: dist/client/manifest.json and dist/client/assets/. */
  distDir: string;
  /** Node's keep-alive must outlive the proxy's upstream keep-alive, or the proxy gets 502s. */
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  /** How long SIGTERM waits for in-flight requests before closing the remaining sockets. */
  shutdownGraceMs: number;
  /** Asked of listen(); the kernel caps it at net.core.somaxconn. */
  listenBacklog: number;
  /**
   * Each worker's V8 young generation: the largest semi-space, in MB (V8's --max-semi-space-size);
   * 0 leaves V8's own, which grows to 64 MB a semi-space on a large host.
   */
  workerSemiSpaceMb: number;
  /**
   * How far each worker's V8 old generation may grow past what survived its last major
   * collection before the next, in percent (V8's --heap-growing-percent); 0 leaves V8's own.
   */
  workerHeapGrowingPercent: number;
  /**
   * WORKER_PRETENURING=off (the default): each worker runs with V8's allocation-site pretenuring
   * off. V8 moves an allocation site's objects straight to the old generation once many of them
   * survived a scavenge, and does not take that back: after one slow spell (a cold start reading
   * PostgreSQL, a queue past capacity) every request's objects went to the old generation, which then
   * filled in seconds. `on` gives V8 its own default.
   */
  workerPretenuring: boolean;
  /**
   * WORKER_MEMORY_REDUCER_FAVORS_MEMORY=off (the default): each worker's memory reducer collects
   * as any major collection does. V8's memory reducer starts a collection when a worker has had
   * none for 100 s, busy or not, and by default makes it one that favors memory: every page
   * compacted in the final pause. A worker whose major collections are rare (a calm one, its V8
   * helpers free to use another core) then paused 61-75 ms every 100 s or so, against 7-27 ms
   * for its other collections. `on` gives V8 its own default.
   */
  workerMemoryReducerFavorsMemory: boolean;
  /** Over this many in-flight requests, a page request gets the shell instead of SSR. */
  ssrQueueLimit: number;
  /** Known search-engine crawlers keep SSR up to this higher limit. */
  crawlerQueueLimit: number;
  /**
   * Nginx's cap on /api requests in flight per worker (rendered into its upstream; Node itself
   * lets the API through up to SHED_QUEUE_LIMIT). Its own cap, so the shell's data requests
   * are not crowded out by page requests during a flood.
   */
  apiQueueLimit: number;
  /** Nginx's log of its own fallback answers, which the primary counts; null: not behind Nginx. */
  nginxFallbackLog: string | null;
  /** Over this many in-flight requests, answer 503 with Retry-After: the last resort. */
  shedQueueLimit: number;
  shedRetryAfterS: number;
  /** CDN lifetime of the shell: a few seconds, never the page's own. */
  shellSMaxAgeS: number;
  /**
   * Where the workers keep the last good copy of each page they rendered, for Nginx to answer
   * when every worker is full (server/last-good/); null: no copies (no Nginx in front).
   */
  lastGoodDir: string | null;
  /** The age bound of a last good copy; 0 turns the tier off (pages go straight to the shell). */
  lastGoodSeconds: number;
  /** At most this many copies on disk; past it the oldest are removed. */
  lastGoodMaxCopies: number;
  /** The CMS's bearer token for /api/ingest; null: ingestion is off. */
  ingestToken: string | null;
  /** Key of the HMAC that signs preview links; null: preview is off. */
  previewSecret: string | null;
  /** Previews rendered at once per worker: previews bypass the guard, so they get their own cap. */
  previewConcurrencyLimit: number;
  /** Latest headlines in server-rendered HTML; the browser shows all of them after hydration. */
  ssrLatestItems: number;
  /**
   * DOM_BUDGET=on (the default): the server renders what is above the fold and what search
   * engines need; most read, more from the section and the rest of the latest list render in
   * the browser after hydration. off: the server renders the whole page.
   */
  domBudget: boolean;
  /** How often each worker adds the article views it counted to the content store. */
  viewsFlushS: number;
  /**
   * Which X-Forwarded-For entry names the reader, for the per-client limits on view beacons and
   * sign-ups and for telling repeat views apart: that many proxies back from the end (CloudFront
   * → load balancer → Nginx: 3); 0 takes the socket's peer. Nginx's own limits are rendered from
   * it too (one hop fewer: Nginx is the last). See docs/write-paths.md.
   */
  clientAddressHops: number;
  /** View beacons one client may send a minute to one worker; past it, 429. */
  viewsPerClientPerMinute: number;
  /** Newsletter sign-ups one client may make an hour on one worker; past it, 429. */
  signupsPerClientPerHour: number;
  /** Sign-ups still unconfirmed after this many days are deleted. */
  newsletterUnconfirmedDays: number;
  /** The breaking-news cache of rendered pages per worker; 0 turns it off. */
  pageCacheTtlMs: number;
  pageCacheMaxBytes: number;
  metrics: MetricsConfig;
  /** Purging CloudFront by cache tag from the content change feed (server/edge/). */
  edgePurge: EdgePurgeConfig;
}

export interface EdgePurgeConfig {
  /** CLOUDFRONT_DISTRIBUTION_ID: the distribution to purge; null: a dry run that logs what it would send. */
  distributionId: string | null;
  /** EDGE_PURGE_INTERVAL_MS: changes are gathered this long into one CreateInvalidation call. */
  intervalMs: number;
  /** EDGE_PURGE_MAX_BACKOFF_MS: a failed call is retried after 1 s, doubling up to this. */
  maxBackoffMs: number;
  /** EDGE_PURGE_MONTHLY_PATHS: invalidation paths the sender may spend a month, evenly (server/edge/budget.ts); 0: unlimited. */
  monthlyPaths: number;
  /** AWS_ENDPOINT_URL_CLOUDFRONT: another CloudFront API endpoint (tests' moto); null: AWS's. */
  endpoint: string | null;
}

/**
 * The content store: the SQLite file (CONTENT_DB_PATH, the default), PostgreSQL
 * (CONTENT_DATABASE_URL) or a newsroom API (CONTENT_API_URL); setting both URLs is an error.
 */
export type ContentSetting =
  { store: 'sqlite'; path: string } | { store: 'postgresql'; url: string; poolSize: number } | { store: 'newsroom-api'; url: string };

export interface MetricsConfig {
  /** CloudWatch namespace of every metric, the dashboard and the alarms (METRICS_NAMESPACE). */
  namespace: string;
  /** The Environment dimension (KIOSK_ENV): one per Elastic Beanstalk environment, so staging never pages production. */
  environment: string;
  /** Port of the cluster's /metrics on 127.0.0.1, served by the primary process; 0 turns it off. */
  port: number;
  /** PutMetricData from every process; null unless METRICS_CLOUDWATCH=1. */
  cloudwatch: CloudWatchConfig | null;
}

export interface CloudWatchConfig {
  region: string;
  /** AWS_ENDPOINT_URL_CLOUDWATCH or AWS_ENDPOINT_URL (an emulator in tests); null for AWS's own. */
  endpoint: string | null;
  flushIntervalS: number;
  /** 60: standard resolution; 1: high resolution (per-second data, priced higher). */
  storageResolutionS: 1 | 60;
  /** Metric data held while CloudWatch is slow or down, per process; past it the oldest are dropped. */
  bufferMaxDatums: number;
  /** One PutMetricData call, retries included; a hung endpoint costs at most this per flush. */
  timeoutMs: number;
  /** AWS_EC2_METADATA_SERVICE_ENDPOINT and AWS_EC2_METADATA_DISABLED, as the SDKs read them. */
  instanceMetadataEndpoint: string | undefined;
  instanceMetadataDisabled: boolean;
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function nodeEnv(env: Env): Config['nodeEnv'] {
  const raw = env.NODE_ENV ?? 'development';
  if (raw === 'production' || raw === 'development' || raw === 'test') return raw;
  throw new ConfigError(`NODE_ENV must be production, development or test, got "${raw}"`);
}

function siteUrl(env: Env, port: number): string {
  const raw = env.SITE_URL ?? `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`SITE_URL must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`SITE_URL must be http or https, got "${raw}"`);
  }
  return url.origin;
}

function listenMode(env: Env): Config['listenMode'] {
  const raw = env.LISTEN_MODE ?? 'reuse-port';
  if (raw === 'reuse-port' || raw === 'per-worker') return raw;
  throw new ConfigError(`LISTEN_MODE must be reuse-port or per-worker, got "${raw}"`);
}

/**
 * Settings that are gone, each with the one value that meant what Kiosk now always does. Any
 * other value stops the start rather than being ignored: whoever set it expected a behaviour.
 */
const removedSettings: Record<string, { same: string; why: string }> = {
  TRUST_PROXY: { same: 'loopback', why: 'X-Forwarded-* is believed from a proxy on loopback alone (the instance’s Nginx)' },
  SSR_MAX_EVENT_LOOP_DELAY_MS: { same: '0', why: 'the overload guard reads the in-flight count alone (docs/overload.md)' },
};

function refuseRemovedSettings(env: Env): void {
  for (const [name, { same, why }] of Object.entries(removedSettings)) {
    const raw = env[name];
    if (raw === undefined || raw === '' || raw === same) continue;
    throw new ConfigError(`${name} is no longer a setting: ${why}. Unset it`);
  }
}

function host(env: Env, mode: Config['listenMode']): string {
  const raw = env.HOST;
  if (raw === undefined) return mode === 'per-worker' ? '127.0.0.1' : '';
  if (raw !== '' && !/^[0-9A-Za-z.:-]+$/.test(raw)) throw new ConfigError(`HOST must be an address or host name, got "${raw}"`);
  return raw;
}

const minSecretLength = 32;

function flag(env: Env, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (/^(1|true|on|yes)$/i.test(raw)) return true;
  if (/^(0|false|off|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * A feature that needs a secret: on when asked (`*_ENABLED=true`) or when its secret is set.
 * Asked for without a usable secret, the process refuses to start: there is no built-in one.
 */
function secretFor(env: Env, feature: string, enabledName: string, secretName: string): string | null {
  const secret = env[secretName] ?? '';
  const enabled = flag(env, enabledName) ?? secret !== '';
  if (!enabled) return null;
  if (secret === '') throw new ConfigError(`${enabledName} is on but ${secretName} is not set: ${feature} needs a secret of its own`);
  if (secret.length < minSecretLength) {
    throw new ConfigError(`${secretName} must be at least ${minSecretLength} characters (try: openssl rand -hex 32)`);
  }
  return secret;
}

function contentApiUrl(env: Env): string | null {
  const raw = env.CONTENT_API_URL;
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`CONTENT_API_URL must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`CONTENT_API_URL must be http or https, got "${raw}"`);
  if (url.username || url.password) throw new ConfigError('CONTENT_API_URL must not carry credentials');
  if (url.search || url.hash) throw new ConfigError(`CONTENT_API_URL must not have a query string or fragment, got "${raw}"`);
  return url.href.replace(/\/+$/, '');
}

function contentDatabaseUrl(env: Env): string | null {
  const raw = env.CONTENT_DATABASE_URL;
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Never echoed: the URL may carry a password.
    throw new ConfigError('CONTENT_DATABASE_URL must be a postgres://user:password@host:port/database URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new ConfigError(`CONTENT_DATABASE_URL must be postgres:// or postgresql://, got ${url.protocol}`);
  if (url.hostname === '' || url.pathname.length <= 1) throw new ConfigError('CONTENT_DATABASE_URL must name a host and a database');
  return raw;
}

/**
 * LAST_GOOD_DIR: an absolute path Nginx can put in its configuration as it is (no spaces, quotes,
 * braces or semicolons); the primary empties it at start, so never "/" or a system directory.
 */
function lastGoodDir(env: Env): string | null {
  const raw = env.LAST_GOOD_DIR;
  if (raw === undefined || raw === '') return null;
  if (!path.isAbsolute(raw) || !/^[A-Za-z0-9._/-]+$/.test(raw)) {
    throw new ConfigError(`LAST_GOOD_DIR must be an absolute path of letters, digits, ".", "_", "-" and "/", got "${raw}"`);
  }
  const dir = path.resolve(raw);
  if (dir.split('/').filter(Boolean).length < 2) throw new ConfigError(`LAST_GOOD_DIR must be a directory of its own (it is emptied at start), got "${raw}"`);
  return dir;
}

/** The SQLite file tools default to (CONTENT_DB_PATH), whichever store the server reads. */
export function sqliteContentPath(env: Env = process.env): string {
  return path.resolve(env.CONTENT_DB_PATH || 'data/kiosk.sqlite');
}

function contentSetting(env: Env): ContentSetting {
  const apiUrl = contentApiUrl(env);
  const databaseUrl = contentDatabaseUrl(env);
  const poolSize = integer(env, 'CONTENT_DB_POOL_SIZE', 4, 1, 100);
  if (apiUrl !== null && databaseUrl !== null) {
    throw new ConfigError('CONTENT_API_URL and CONTENT_DATABASE_URL are both set: content comes from one place. Unset one');
  }
  if (databaseUrl !== null) return { store: 'postgresql', url: databaseUrl, poolSize };
  if (apiUrl !== null) return { store: 'newsroom-api', url: apiUrl };
  return { store: 'sqlite', path: sqliteContentPath(env) };
}

type StoreAbility = 'writes' | 'drafts' | 'demoSeed';

/** What each store cannot do, and why, for the message that refuses a feature beside it. */
const storeLimits: Record<ContentSetting['store'], { setting: string; cannot: Partial<Record<StoreAbility, string>> }> = {
  sqlite: { setting: 'CONTENT_DB_PATH', cannot: {} },
  postgresql: {
    setting: 'CONTENT_DATABASE_URL',
    cannot: {
      demoSeed: 'content comes from PostgreSQL, not the SQLite store; seed PostgreSQL once with "npm run seed -- --database-url URL"',
    },
  },
  'newsroom-api': {
    setting: 'CONTENT_API_URL',
    cannot: {
      writes: 'the newsroom API takes no writes (the newsroom ingests there)',
      drafts: "the newsroom API (Kiosk's /api shapes) serves no drafts",
      demoSeed: 'content comes from the newsroom API, not the SQLite store',
    },
  },
};

/** Features that need something of the store, each as the operator turns it on. */
const featureNeeds: { setting: string; on(config: Config): boolean; needs: StoreAbility; what: string; off: string }[] = [
  { setting: 'INGEST_TOKEN', on: (c) => c.ingestToken !== null, needs: 'writes', what: 'ingestion writes articles', off: ', or set INGEST_ENABLED=false' },
  { setting: 'PREVIEW_SECRET', on: (c) => c.previewSecret !== null, needs: 'drafts', what: 'previews need drafts', off: ', or set PREVIEW_ENABLED=false' },
  { setting: 'SEED_DEMO_CONTENT=true', on: (c) => c.seedDemoContent, needs: 'demoSeed', what: 'the demo seed at start fills the SQLite store', off: '' },
];

/** Refuses a feature the chosen store cannot serve: a push would vanish, a preview find no draft. */
function requireStoreAbilities(config: Config): void {
  const limits = storeLimits[config.content.store];
  for (const feature of featureNeeds) {
    const why = limits.cannot[feature.needs];
    if (feature.on(config) && why !== undefined) {
      throw new ConfigError(`${feature.setting} and ${limits.setting} are both set: ${feature.what}, but ${why}. Unset one${feature.off}`);
    }
  }
}

function pattern(env: Env, name: string, fallback: string, re: RegExp, rule: string): string {
  const raw = env[name] || fallback;
  if (!re.test(raw)) throw new ConfigError(`${name} must be ${rule}, got "${raw}"`);
  return raw;
}

function endpointUrl(env: Env, name: string): string | null {
  const raw = env[name];
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return raw;
  } catch {
    // reported below
  }
  throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
}

function metricsConfig(env: Env, nodeEnv: Config['nodeEnv'], port: number): MetricsConfig {
  const metricsPort = integer(env, 'METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) throw new ConfigError(`METRICS_PORT must differ from PORT (${port})`);
  let cloudwatch: CloudWatchConfig | null = null;
  if (flag(env, 'METRICS_CLOUDWATCH') ?? false) {
    const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
    if (!region) throw new ConfigError('METRICS_CLOUDWATCH=1 needs AWS_REGION (the region CloudWatch metrics go to)');
    if (!/^[a-z0-9-]+$/.test(region)) throw new ConfigError(`AWS_REGION must be a region name such as eu-west-1, got "${region}"`);
    const storageResolutionS = integer(env, 'METRICS_STORAGE_RESOLUTION_S', 60, 1, 60);
    if (storageResolutionS !== 1 && storageResolutionS !== 60) {
      throw new ConfigError(`METRICS_STORAGE_RESOLUTION_S must be 1 or 60, got ${storageResolutionS}`);
    }
    cloudwatch = Object.freeze({
      region,
      endpoint: endpointUrl(env, 'AWS_ENDPOINT_URL_CLOUDWATCH') ?? endpointUrl(env, 'AWS_ENDPOINT_URL'),
      flushIntervalS: integer(env, 'METRICS_FLUSH_S', 60, 1, 3_600),
      storageResolutionS,
      bufferMaxDatums: integer(env, 'METRICS_BUFFER_MAX_DATUMS', 5_000, 10, 1_000_000),
      timeoutMs: integer(env, 'METRICS_TIMEOUT_MS', 5_000, 100, 60_000),
      instanceMetadataEndpoint: endpointUrl(env, 'AWS_EC2_METADATA_SERVICE_ENDPOINT') ?? undefined,
      instanceMetadataDisabled: (env.AWS_EC2_METADATA_DISABLED ?? '').toLowerCase() === 'true',
    });
  }
  return Object.freeze({
    namespace: pattern(
      env,
      'METRICS_NAMESPACE',
      'Kiosk',
      /^(?!AWS\/)[A-Za-z0-9._\-/#:]{1,255}$/,
      'up to 255 letters, digits or . _ - / # : and not start with AWS/',
    ),
    environment: pattern(env, 'KIOSK_ENV', nodeEnv, /^[A-Za-z0-9._-]{1,64}$/, 'up to 64 letters, digits or . _ -'),
    port: metricsPort,
    cloudwatch,
  });
}

function edgePurgeConfig(env: Env): EdgePurgeConfig {
  const distributionId = env.CLOUDFRONT_DISTRIBUTION_ID || null;
  if (distributionId !== null && !/^[A-Z0-9]{1,64}$/.test(distributionId)) {
    throw new ConfigError(`CLOUDFRONT_DISTRIBUTION_ID must be a distribution id such as E2QWRUHAPOMQZL (capital letters and digits), got "${distributionId}"`);
  }
  return Object.freeze({
    distributionId,
    intervalMs: integer(env, 'EDGE_PURGE_INTERVAL_MS', 1_000, 50, 60_000),
    maxBackoffMs: integer(env, 'EDGE_PURGE_MAX_BACKOFF_MS', 30_000, 1_000, 600_000),
    monthlyPaths: purgeBudget(env),
    endpoint: endpointUrl(env, 'AWS_ENDPOINT_URL_CLOUDFRONT') ?? endpointUrl(env, 'AWS_ENDPOINT_URL'),
  });
}

/**
 * EDGE_PURGE_MONTHLY_PATHS (server/edge/budget.ts, docs/operations.md "The purge budget"); 0 is
 * unlimited. Below the 1,000 paths CloudFront gives free a month it would purge little but "/*".
 */
function purgeBudget(env: Env): number {
  const paths = integer(env, 'EDGE_PURGE_MONTHLY_PATHS', defaultMonthlyPaths, 0, 1_000_000_000);
  if (paths !== 0 && paths < 1_000) throw new ConfigError(`EDGE_PURGE_MONTHLY_PATHS must be 0 (unlimited) or from 1000 to 1000000000, got ${paths}`);
  return paths;
}

/**
 * Edge purge is on: a distribution to purge and a store whose change feed says what changed (the
 * newsroom API has none). Only then do pages get the long edge lifetimes (server/cache-policy.ts).
 */
export function edgePurgeActive(config: Pick<Config, 'edgePurge' | 'content'>): boolean {
  return config.edgePurge.distributionId !== null && config.content.store !== 'newsroom-api';
}

/** Reads the environment once; throws ConfigError with a readable message on bad input. */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  refuseRemovedSettings(env);
  // Workers that each bound port 0 would each get a different port: a port is always fixed
  // (tests and tools pick a free one first).
  const port = integer(env, 'PORT', 3000, 1, 65535);
  const keepAliveTimeoutMs = integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 65_000, 1_000, 600_000);
  const environment = nodeEnv(env);
  const mode = listenMode(env);
  const webConcurrency = integer(env, 'WEB_CONCURRENCY', os.availableParallelism(), 1, 256);
  if (mode === 'per-worker' && port + webConcurrency - 1 > 65535) {
    throw new ConfigError(`per-worker ports ${port}..${port + webConcurrency - 1} run past 65535`);
  }
  const config: Config = {
    nodeEnv: environment,
    port,
    listenMode: mode,
    host: host(env, mode),
    webConcurrency,
    siteUrl: siteUrl(env, port),
    content: contentSetting(env),
    seedDemoContent: flag(env, 'SEED_DEMO_CONTENT') ?? false,
    distDir: path.resolve(env.DIST_DIR || 'dist'),
    keepAliveTimeoutMs,
    // Node requires headersTimeout > keepAliveTimeout, or idle sockets race the header timer.
    headersTimeoutMs: keepAliveTimeoutMs + 1_000,
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 120_000),
    listenBacklog: integer(env, 'LISTEN_BACKLOG', 65_535, 1, 65_535),
    workerSemiSpaceMb: integer(env, 'WORKER_SEMI_SPACE_MB', 8, 0, 256),
    workerHeapGrowingPercent: integer(env, 'WORKER_HEAP_GROWING_PERCENT', 50, 0, 400),
    workerPretenuring: flag(env, 'WORKER_PRETENURING') ?? false,
    workerMemoryReducerFavorsMemory: flag(env, 'WORKER_MEMORY_REDUCER_FAVORS_MEMORY') ?? false,
    ssrQueueLimit: integer(env, 'SSR_QUEUE_LIMIT', 15, 0, 1_000_000),
    // A crawler limit below the readers' would make crawlers worse off than readers.
    crawlerQueueLimit: Math.max(integer(env, 'CRAWLER_QUEUE_LIMIT', 30, 0, 1_000_000), integer(env, 'SSR_QUEUE_LIMIT', 15, 0, 1_000_000)),
    apiQueueLimit: integer(env, 'API_QUEUE_LIMIT', 30, 1, 1_000_000),
    nginxFallbackLog: env.NGINX_FALLBACK_LOG ? path.resolve(env.NGINX_FALLBACK_LOG) : null,
    shedQueueLimit: integer(env, 'SHED_QUEUE_LIMIT', 1_000, 1, 1_000_000),
    shedRetryAfterS: integer(env, 'SHED_RETRY_AFTER_S', 5, 1, 3_600),
    shellSMaxAgeS: integer(env, 'SHELL_S_MAXAGE_S', 2, 0, 10),
    lastGoodDir: lastGoodDir(env),
    lastGoodSeconds: integer(env, 'LAST_GOOD_SECONDS', 600, 0, 86_400),
    lastGoodMaxCopies: integer(env, 'LAST_GOOD_MAX_COPIES', 20_000, 1, 1_000_000),
    ingestToken: secretFor(env, 'ingestion', 'INGEST_ENABLED', 'INGEST_TOKEN'),
    previewSecret: secretFor(env, 'preview', 'PREVIEW_ENABLED', 'PREVIEW_SECRET'),
    previewConcurrencyLimit: integer(env, 'PREVIEW_CONCURRENCY_LIMIT', 2, 1, 100),
    ssrLatestItems: integer(env, 'SSR_LATEST_ITEMS', 5, 0, latestListSize),
    domBudget: flag(env, 'DOM_BUDGET') ?? true,
    viewsFlushS: integer(env, 'VIEWS_FLUSH_S', 5, 1, 60),
    clientAddressHops: integer(env, 'CLIENT_ADDRESS_HOPS', 0, 0, 10),
    viewsPerClientPerMinute: integer(env, 'VIEWS_PER_CLIENT_PER_MINUTE', 60, 1, 100_000),
    signupsPerClientPerHour: integer(env, 'SIGNUPS_PER_CLIENT_PER_HOUR', 5, 1, 10_000),
    newsletterUnconfirmedDays: integer(env, 'NEWSLETTER_UNCONFIRMED_DAYS', 7, 1, 365),
    pageCacheTtlMs: integer(env, 'PAGE_CACHE_TTL_MS', 0, 0, 60_000),
    pageCacheMaxBytes: integer(env, 'PAGE_CACHE_MAX_MB', 64, 1, 4_096) * 1024 * 1024,
    contentTimeoutMs: integer(env, 'CONTENT_TIMEOUT_MS', 1_500, 50, 60_000),
    contentFreshS: integer(env, 'CONTENT_FRESH_S', 5, 0, 3_600),
    contentStaleS: integer(env, 'CONTENT_STALE_S', 86_400, 0, 7 * 86_400),
    contentCacheEntries: integer(env, 'CONTENT_CACHE_ENTRIES', 20_000, 1, 1_000_000),
    contentCacheMb: integer(env, 'CONTENT_CACHE_MB', 64, 1, 4_096),
    metrics: metricsConfig(env, environment, port),
    edgePurge: edgePurgeConfig(env),
  };
  requireStoreAbilities(config);
  return Object.freeze(config);
}
