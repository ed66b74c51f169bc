// Renders nginx/kiosk.conf.template for Elastic Beanstalk or for a local prefix. One source,
// two renderings: lines marked "@eb " or "@local " belong to one of them, {{name}} is a value.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../../server/config';
import { errors } from '../../server/errors';
import { cacheControl } from '../../server/cache-policy';
import { crawlerPattern } from '../../server/overload';
import {
  assetPolicy,
  busyJsonBody,
  busyPolicy,
  contentTypes,
  errorBody,
  lastGoodPolicy,
  limitedPolicy,
  privateErrorPolicy,
  shellPolicy,
  type AnswerPolicy,
} from '../../server/response-policy';
import { route, routeTable, type Route } from '../../src/request-kinds';
import { pagesDir } from '../../server/last-good/copy-path';
import { environmentProperties, loadConfigFiles, optionSettings } from '../deploy/ebextensions';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const templatePath = path.join(root, 'nginx/kiosk.conf.template');
export const ebConfigPath = path.join(root, '.platform/nginx/nginx.conf');

export type Target = 'eb' | 'local';

export interface NginxParams {
  /** Node worker ports, one upstream server each (per-worker listen mode). */
  workerPorts: number[];
  /** What Nginx listens on: a port, or address:port. */
  listen: string;
  /** dist/client, whose assets/ Nginx serves from disk. */
  clientRoot: string;
  pidPath: string;
  errorLog: string;
  accessLog: string;
  /** Local rendering only: where temporary files go. */
  prefix?: string;
  /** `auto`: one per core. The bench pins Nginx beside the worker and asks for 1. */
  workerProcesses: string;
  workerConnections: number;
  rlimitNofile: number;
  upstreamKeepalive: number;
  /** Must stay below Node's KEEP_ALIVE_TIMEOUT_MS. */
  upstreamKeepaliveTimeoutS: number;
  /** Nginx's listen backlog (capped by the kernel's net.core.somaxconn). */
  listenBacklog: number;
  /** One line per fallback answer, for the primary process to count. */
  fallbackLog: string;
  /** The admission limits and shell settings, from the same settings Node reads. */
  admission: Admission;
  /**
   * The file that maps the origin secret header to $kiosk_origin_verified (originSecretConf):
   * written on the instance by .platform/hooks/prebuild/20-origin-secret.sh, under the local prefix
   * by writeLocalConfig. A relative path is Nginx's configuration directory's.
   */
  originSecretConf: string;
}

/** The header CloudFront adds to every request to the origin (.ebextensions/10-cloudfront.config). */
export const originSecretHeader = 'X-Kiosk-Origin-Secret';
/**
 * What CloudFront sends while ORIGIN_SECRET is unset (.ebextensions/10-cloudfront.config): in the
 * secret's format, so that turning the check on can accept it as ORIGIN_SECRET_PREVIOUS until
 * the distribution sends the new secret everywhere. Known to all, so never a secret.
 */
export const originSecretPlaceholder = 'origin-secret-not-set-placeholder';
/** Long random values only (openssl rand -hex 32): nothing an Nginx string or regex would need to escape. */
export const originSecretPattern = /^[A-Za-z0-9_-]{32,128}$/;

/**
 * The included map: 1 for a request carrying one of the secrets (compared case-sensitively, in
 * full), 0 for any other; with no secret, 1 for every request (nothing is checked). The platform
 * hook writes exactly this text (a test compares them).
 */
export function originSecretConf(secrets: string[]): string {
  for (const secret of secrets) {
    if (!originSecretPattern.test(secret)) throw new Error(`ORIGIN_SECRET must be 32 to 128 letters, digits, "-" or "_" (openssl rand -hex 32)`);
  }
  const variable = `$http_${originSecretHeader.toLowerCase().replace(/-/g, '_')}`;
  const entries = secrets.length === 0 ? ['    default 1;'] : ['    default 0;', ...secrets.map((s) => `    "~^${s}$" 1;`)];
  return [`map ${variable} $kiosk_origin_verified {`, ...entries, '}', ''].join('\n');
}

/** The settings Nginx is rendered from, as the workers read them: admission limits and the write paths' shares. */
const admissionSettings = [
  'ssrQueueLimit',
  'crawlerQueueLimit',
  'apiQueueLimit',
  'shellSMaxAgeS',
  'shedRetryAfterS',
  'clientAddressHops',
  'viewsPerClientPerMinute',
  'signupsPerClientPerHour',
  'lastGoodDir',
  'lastGoodSeconds',
] as const satisfies readonly (keyof Config)[];

export type Admission = Pick<Config, (typeof admissionSettings)[number]>;

export function admissionOf(config: Readonly<Config>): Admission {
  return Object.fromEntries(admissionSettings.map((name) => [name, config[name]])) as Admission;
}

/** The settings Elastic Beanstalk gives the workers: .ebextensions' environment properties over the defaults. */
export function ebAdmission(): Admission {
  return admissionOf(loadConfig(environmentProperties(optionSettings(loadConfigFiles()))));
}

/**
 * Elastic Beanstalk's rendering. The upstream lists one port per Node worker, so it is
 * rendered for the worker count the environment runs (WEB_CONCURRENCY, one per vCPU of the
 * instance type: 4 on a c5.xlarge). Changing the instance type means re-rendering with
 * `npm run nginx:render -- --workers N` and setting WEB_CONCURRENCY to match.
 */
export function ebParams(workers = 4, basePort = 8080, admission = ebAdmission()): NginxParams {
  return {
    workerPorts: Array.from({ length: workers }, (_, i) => basePort + i),
    listen: '80',
    clientRoot: '/var/app/current/dist/client',
    pidPath: '/var/run/nginx.pid',
    errorLog: '/var/log/nginx/error.log',
    accessLog: '/var/log/nginx/access.log',
    workerProcesses: 'auto',
    workerConnections: 10_240,
    rlimitNofile: 20_480,
    upstreamKeepalive: 16,
    upstreamKeepaliveTimeoutS: 60,
    listenBacklog: ebListenBacklog,
    fallbackLog: '/var/log/kiosk/nginx-fallback.log',
    admission,
    // /etc/nginx/kiosk-origin-secret.conf on the instance.
    originSecretConf: 'kiosk-origin-secret.conf',
  };
}

/** .ebextensions/05-instance.config raises net.core.somaxconn and tcp_max_syn_backlog to this. */
export const ebListenBacklog = 16_384;

export function localParams(
  prefix: string,
  options: {
    listen: string;
    workerPorts: number[];
    upstreamKeepaliveTimeoutS?: number;
    rlimitNofile?: number;
    workerProcesses?: number;
    admission?: Admission;
    fallbackLog?: string;
  },
): NginxParams {
  return {
    workerPorts: options.workerPorts,
    listen: options.listen,
    clientRoot: path.join(root, 'dist/client'),
    pidPath: path.join(prefix, 'nginx.pid'),
    errorLog: path.join(prefix, 'error.log'),
    accessLog: path.join(prefix, 'access.log'),
    prefix,
    workerProcesses: options.workerProcesses ? String(options.workerProcesses) : 'auto',
    workerConnections: 10_240,
    rlimitNofile: options.rlimitNofile ?? 20_480,
    upstreamKeepalive: 16,
    upstreamKeepaliveTimeoutS: options.upstreamKeepaliveTimeoutS ?? 60,
    // The kernel caps it at net.core.somaxconn, which a local run leaves as the machine has it.
    listenBacklog: ebListenBacklog,
    fallbackLog: options.fallbackLog ?? path.join(prefix, 'fallback.log'),
    admission: options.admission ?? admissionOf(loadConfig()),
    originSecretConf: path.join(prefix, 'origin-secret.conf'),
  };
}

/** Each worker's port once, with its cap on requests in flight (0 = take none: every request gets the fallback). */
function servers(ports: number[], maxConns: number): string {
  return ports.map((port) => `        server 127.0.0.1:${port}${maxConns > 0 ? ` max_conns=${maxConns}` : ' down'} max_fails=1 fail_timeout=1s;`).join('\n');
}

/** An Nginx string literal: single-quoted, or double-quoted when the value has single quotes; refuses what would need escaping. */
function quoted(value: string): string {
  if (/[\\$\n]/.test(value) || (value.includes("'") && value.includes('"'))) {
    throw new Error(`cannot put ${JSON.stringify(value)} in an Nginx string without escapes`);
  }
  return value.includes("'") ? `"${value}"` : `'${value}'`;
}

/** HTTPS only for a year: Nginx's, at the HTTPS edge, never Node's. */
export const hsts = 'max-age=31536000';

/**
 * A location's answer as Node's response policy says (server/response-policy.ts): its body's type
 * (default_type, for Nginx's own `return` bodies; a file's type comes from its name) and every
 * header, plus HSTS, which add_header in a location would otherwise drop. `always` but for
 * `onSuccessOnly`, which found files carry and errors do not.
 */
export function policyLines(policy: AnswerPolicy, options: { typeFromFile?: boolean; onSuccessOnly?: readonly string[] } = {}): string {
  const lines: string[] = [];
  if (policy.contentType !== null && !options.typeFromFile) lines.push(`default_type ${quoted(policy.contentType)};`);
  for (const [name, value] of [...Object.entries(policy.headers), ['Strict-Transport-Security', hsts] as const]) {
    lines.push(`add_header ${name} ${quoted(value)}${options.onSuccessOnly?.includes(name) ? '' : ' always'};`);
  }
  return lines.map((line) => `            ${line}`).join('\n');
}

/** How long a client past its share of view beacons waits (Nginx's share refills within the minute). */
const viewsRetryAfterS = 60;
/** How long a client past its share of sign-ups waits: the hour the share is counted over. */
const signupsRetryAfterS = 3600;

function crawlerUpstream(ports: number[], admission: Admission, keepaliveTimeout: string): string {
  const extra = admission.crawlerQueueLimit - admission.ssrQueueLimit;
  if (extra <= 0) return '';
  return [
    '',
    "    # Crawlers beyond the readers' limit: up to CRAWLER_QUEUE_LIMIT - SSR_QUEUE_LIMIT more per",
    "    # worker, so a worker holds at most CRAWLER_QUEUE_LIMIT page requests, as Node's guard allows.",
    '    upstream kiosk_crawlers {',
    '        zone kiosk_crawlers 64k;',
    '        least_conn;',
    servers(ports, extra),
    `        keepalive ${Math.max(1, extra * ports.length)};`,
    `        keepalive_timeout ${keepaliveTimeout};`,
    '        keepalive_requests 10000;',
    '    }',
  ].join('\n');
}

/**
 * $kiosk_client: the X-Forwarded-For entry `hops` back from the end as Nginx receives the header
 * (before appending its own peer), else the last entry (a shorter chain), else the peer itself.
 */
export function clientAddressMap(hops: number): string {
  if (hops <= 0) return ['    map $remote_addr $kiosk_client {', '        default $remote_addr;', '    }'].join('\n');
  const back = hops > 1 ? `(?:,[^,]*){${hops - 1}}` : '';
  return [
    '    map $http_x_forwarded_for $kiosk_client {',
    '        default $remote_addr;',
    `        "~(?:^|,)\\s*(?<kiosk_hop>[^,\\s]+)\\s*${back}$" $kiosk_hop;`,
    '        "~(?<kiosk_last>[^,\\s]+)\\s*$" $kiosk_last;',
    '    }',
  ].join('\n');
}

/** What a reader sees when Nginx refuses a sign-up over the client's share. */
const signupsLimitedPage =
  '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Too many sign-ups — Kiosk</title>' +
  '<h1>Too many sign-ups</h1><p>There have been several sign-ups from your connection in a short while. Please try again later.</p><p><a href="/">Go to the front page</a></p></html>';

function values(params: NginxParams): Record<string, string> {
  if (params.workerPorts.length === 0) throw new Error('the upstream needs at least one worker port');
  const { admission } = params;
  return {
    worker_processes: params.workerProcesses,
    rlimit_nofile: String(params.rlimitNofile),
    pid_path: params.pidPath,
    error_log: params.errorLog,
    access_log: params.accessLog,
    worker_connections: String(params.workerConnections),
    prefix: params.prefix ?? '',
    upstream_servers: params.workerPorts
      // A dead worker is skipped for a second, about as long as throng takes to replace it.
      .map((port) => `        server 127.0.0.1:${port} max_fails=1 fail_timeout=1s;`)
      .join('\n'),
    upstream_keepalive: String(params.upstreamKeepalive),
    page_servers: servers(params.workerPorts, admission.ssrQueueLimit),
    page_keepalive: String(Math.max(1, admission.ssrQueueLimit * params.workerPorts.length)),
    api_servers: servers(params.workerPorts, admission.apiQueueLimit),
    api_keepalive: String(Math.max(1, admission.apiQueueLimit * params.workerPorts.length)),
    crawler_pattern: `(${crawlerPattern.source})`,
    crawler_upstream: admission.crawlerQueueLimit > admission.ssrQueueLimit ? 'kiosk_crawlers' : 'kiosk_pages',
    crawler_upstream_block: crawlerUpstream(params.workerPorts, admission, `${params.upstreamKeepaliveTimeoutS}s`),
    page_fallback: lastGoodOn(admission) ? '@last_good' : '@shell',
    last_good_location: lastGoodLocation(admission),
    // The shell's file is html: its charset directive and type come from the file.
    policy_shell: policyLines(shellPolicy(admission.shellSMaxAgeS), { typeFromFile: true }),
    policy_api_busy: policyLines(busyPolicy('json', admission.shedRetryAfterS)),
    policy_api_unreachable: policyLines(busyPolicy('json', admission.shedRetryAfterS, null)),
    policy_api_too_large: policyLines(privateErrorPolicy('json')),
    policy_views_limited: policyLines(limitedPolicy(null, viewsRetryAfterS)),
    policy_signups_limited: policyLines(limitedPolicy('html', signupsRetryAfterS)),
    policy_assets: policyLines(assetPolicy, { typeFromFile: true, onSuccessOnly: ['Cache-Control'] }),
    health_path: route('health').exact!,
    no_store: quoted(cacheControl.noStore),
    hsts: quoted(hsts),
    json_type: quoted(contentTypes.json),
    api_busy_body: quoted(busyJsonBody),
    bad_request_body: quoted(errorBody(errors.badRequest)),
    json_error_paths: jsonErrorPaths(),
    api_too_large_body: quoted(errorBody(errors.payloadTooLarge)),
    listen_backlog: String(params.listenBacklog),
    fallback_log: params.fallbackLog,
    upstream_keepalive_timeout: `${params.upstreamKeepaliveTimeoutS}s`,
    listen: params.listen,
    client_root: params.clientRoot,
    origin_secret_conf: params.originSecretConf,
    origin_secret_header: originSecretHeader,
    client_address_map: clientAddressMap(admission.clientAddressHops - 1),
    views_per_client_per_minute: String(admission.viewsPerClientPerMinute),
    views_burst: String(Math.max(1, Math.ceil(admission.viewsPerClientPerMinute / 2))),
    signups_burst: String(Math.max(0, admission.signupsPerClientPerHour - 1)),
    signups_limited_body: quoted(signupsLimitedPage),
    ...locations(),
  };
}

/** Whether pages fall back to their last good copy before the shell: a directory and a bound above 0 (server/last-good/). */
function lastGoodOn(admission: Admission): admission is Admission & { lastGoodDir: string } {
  return admission.lastGoodDir !== null && admission.lastGoodSeconds > 0;
}

/**
 * The last good copies' location: the copy the workers wrote of the path ($uri, which ignores
 * the query string: no page's content depends on it), else the shell. No open_file_cache: a
 * copy the primary removed must not be answered from a descriptor Nginx kept open.
 */
function lastGoodLocation(admission: Admission): string {
  if (!lastGoodOn(admission)) return '        # No last good copies (LAST_GOOD_DIR unset or LAST_GOOD_SECONDS=0): pages fall back to the shell.';
  return [
    '        location @last_good {',
    `            root ${pagesDir(admission.lastGoodDir)};`,
    '            # Before try_files; @shell sets its own when there is no copy.',
    '            set $kiosk_fallback_answer nginx-last-good;',
    '            try_files $uri/index.html @shell;',
    '            charset utf-8;',
    policyLines(lastGoodPolicy(admission.shellSMaxAgeS), { typeFromFile: true }),
    '        }',
  ].join('\n');
}

/** The paths whose errors Node answers as JSON (the route table's `body`), as patterns of the request's target for the map that makes Nginx's own errors there JSON too. */
function jsonErrorPaths(): string {
  const escape = (path: string) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (routeTable as readonly Route[])
    .filter(({ body }) => body === 'json')
    .map(({ exact, prefix }) => `        "~^${exact !== undefined ? `${escape(exact)}(\\?|$)` : escape(prefix!)}" 1;`)
    .join('\n');
}

/** Each kind's location, from the one table of what a request is: `= /path` for an exact path, the prefix otherwise. */
function locations(): Record<string, string> {
  return Object.fromEntries(
    (routeTable as readonly Route[]).map(({ name, exact, prefix }) => [`location_${name}`, exact !== undefined ? `= ${exact}` : prefix!]),
  );
}

export function renderNginxConfig(target: Target, params: NginxParams, template = fs.readFileSync(templatePath, 'utf8')): string {
  if (target === 'local' && !params.prefix) throw new Error('the local rendering needs a prefix');
  const filled = values(params);
  const lines: string[] = [];
  for (const line of template.split('\n')) {
    const marker = /^@(eb|local) /.exec(line);
    if (marker) {
      if (marker[1] === target) lines.push(line.slice(marker[0].length));
      continue;
    }
    lines.push(line);
  }
  const used = new Set<string>();
  const rendered = lines.join('\n').replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = filled[name];
    if (value === undefined) throw new Error(`nginx/kiosk.conf.template uses {{${name}}}, which the renderer does not know`);
    used.add(name);
    return value;
  });
  // A kind the server and the browser know, which Nginx would otherwise send to the pages' upstream.
  const missing = (routeTable as readonly Route[]).filter(({ name }) => !used.has(`location_${name}`));
  if (missing.length > 0 && template.includes('location ')) {
    throw new Error(
      `nginx/kiosk.conf.template has no location for ${missing.map(({ name, kind }) => `{{location_${name}}} (${kind})`).join(', ')}: every kind in src/request-kinds.ts needs one`,
    );
  }
  return rendered;
}

export const ebHeader = '# Generated by `npm run nginx:render` from nginx/kiosk.conf.template: edit that, not this.\n';

export function renderEbConfig(workers?: number): string {
  return ebHeader + renderNginxConfig('eb', ebParams(workers));
}
