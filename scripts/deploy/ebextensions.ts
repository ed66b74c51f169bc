// Reads the deployment configuration the way Elastic Beanstalk will: every .ebextensions/*.config
// as YAML, their option settings flattened, their CloudFormation resources merged. Shared by the
// deployment tests and `npm run bundle`, which refuses to package a configuration that disagrees
// with the Nginx rendering beside it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ebextensionsDir = path.join(root, '.ebextensions');
export const platformDir = path.join(root, '.platform');
export const procfilePath = path.join(root, 'Procfile');

export interface ConfigFile {
  /** File name inside .ebextensions. */
  name: string;
  text: string;
  document: Document;
  /** The file as plain data. */
  data: Record<string, unknown>;
}

export interface OptionSetting {
  file: string;
  namespace: string;
  option: string;
  value: unknown;
  /** 1-based line of the option's name. */
  line: number;
}

/**
 * What to do with a file or setting Elastic Beanstalk would not read as meant: the deployment
 * tests and `npm run bundle` refuse it (the default), the capacity simulator, which reads an
 * operator's files, warns and skips it.
 */
export type Problem = (message: string) => void;
const refuse: Problem = (message) => {
  throw new Error(message);
};

/** Parses one .config file; null when it is empty or, past `problem`, unusable. Invalid YAML always throws. */
export function parseConfigFile(name: string, text: string, problem: Problem = refuse): ConfigFile | null {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (document.errors.length > 0) throw new Error(`${name}: not valid YAML: ${document.errors[0]!.message.split('\n')[0]}`);
  // YAML warnings are CloudFormation's short-form tags (!Ref, !GetAtt): the repository's own
  // files use the long forms, which the deployment tests can evaluate.
  if (problem === refuse && document.warnings.length > 0) throw new Error(`${name}: ${document.warnings.map((w) => w.message).join('; ')}`);
  const data: unknown = document.toJS();
  if (data === null || data === undefined) return null;
  if (typeof data !== 'object' || Array.isArray(data)) {
    problem(`${name}: not a YAML map at the top; skipped.`);
    return null;
  }
  return { name, text, document, data: data as Record<string, unknown> };
}

/** Parses every .ebextensions/*.config in name order (the order Elastic Beanstalk applies them). */
export function loadConfigFiles(dir = ebextensionsDir, problem: Problem = refuse): ConfigFile[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.config'))
    .sort()
    .flatMap((name) => parseConfigFile(`${path.basename(dir)}/${name}`, fs.readFileSync(path.join(dir, name), 'utf8'), problem) ?? [])
    .map((file) => ({ ...file, name: path.basename(file.name) }));
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/**
 * Every option setting, in either of the two forms Elastic Beanstalk reads: a map of
 * namespace → { option: value }, or a list of { namespace, option_name, value }. A saved
 * configuration's resource prefix ("AWSEBCloudwatchAlarmHigh.aws:autoscaling:trigger") is
 * dropped: the option is the same.
 */
export function optionSettings(files: ConfigFile[], problem: Problem = refuse): OptionSetting[] {
  const settings: OptionSetting[] = [];
  const plain = (namespace: string) => namespace.replace(/^[A-Za-z0-9]+\.(?=aws:)/, '');
  for (const file of files) {
    const node = file.document.get('option_settings', true);
    if (node === undefined || node === null) continue;
    if (isMap(node)) {
      for (const nsPair of node.items) {
        const namespace = plain(String(isScalar(nsPair.key) ? nsPair.key.value : nsPair.key));
        if (!isMap(nsPair.value)) {
          problem(`${file.name}: ${namespace} must be a mapping of options; skipped.`);
          continue;
        }
        for (const pair of nsPair.value.items) {
          if (!isScalar(pair.key)) {
            problem(`${file.name}: an option name in ${namespace} is not a plain name; skipped.`);
            continue;
          }
          settings.push({
            file: file.name,
            namespace,
            option: String(pair.key.value),
            value: isScalar(pair.value) ? pair.value.value : (pair.value as { toJSON(): unknown } | null)?.toJSON(),
            line: lineOf(file.text, pair.key.range?.[0] ?? 0),
          });
        }
      }
    } else if (isSeq(node)) {
      for (const item of node.items) {
        const entry = isMap(item) ? (item.toJSON() as { namespace?: unknown; option_name?: unknown; value?: unknown }) : null;
        // Elastic Beanstalk reads an entry without a namespace as an environment property.
        if (entry && entry.namespace === undefined) entry.namespace = 'aws:elasticbeanstalk:application:environment';
        if (!entry || typeof entry.namespace !== 'string' || typeof entry.option_name !== 'string') {
          problem(`${file.name}: an option_settings entry is not a mapping with namespace and option_name; skipped.`);
          continue;
        }
        const nameNode = isMap(item) ? item.get('option_name', true) : undefined;
        settings.push({
          file: file.name,
          namespace: plain(entry.namespace),
          option: entry.option_name,
          value: entry.value,
          line: lineOf(file.text, isScalar(nameNode) ? (nameNode.range?.[0] ?? 0) : 0),
        });
      }
    } else {
      problem(`${file.name}: option_settings is neither a map nor a list; skipped.`);
    }
  }
  return settings;
}

/** The environment properties the web process gets, as strings (how the platform passes them). */
export function environmentProperties(settings: OptionSetting[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of settings) {
    if (s.namespace === 'aws:elasticbeanstalk:application:environment') env[s.option] = String(s.value);
  }
  return env;
}

/** One setting's value, or undefined; the last file wins, as in Elastic Beanstalk. */
export function settingValue(settings: OptionSetting[], namespace: string, option: string): unknown {
  return settings.filter((s) => s.namespace === namespace && s.option === option).at(-1)?.value;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

/** All files' Resources merged, with the file each came from. */
export function resources(files: ConfigFile[]): Record<string, CfnResource & { file: string }> {
  const merged: Record<string, CfnResource & { file: string }> = {};
  for (const file of files) {
    const own = file.data.Resources as Record<string, CfnResource> | undefined;
    for (const [name, resource] of Object.entries(own ?? {})) {
      if (merged[name]) throw new Error(`resource ${name} is declared in both ${merged[name].file} and ${file.name}`);
      merged[name] = { ...resource, file: file.name };
    }
  }
  return merged;
}

/**
 * Fn::GetOptionSetting replaced by the option's value, or its DefaultValue when no file sets it,
 * as Elastic Beanstalk does before it hands the resources to CloudFormation (for cfn-lint, which
 * knows only CloudFormation's own functions). Settings made on the environment itself (eb setenv,
 * the console) are not in the files: the defaults stand in for them.
 */
export function resolveOptionSettings<T>(node: T, settings: OptionSetting[]): T {
  const walk = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(walk);
    if (!n || typeof n !== 'object') return n;
    const call = (n as Record<string, unknown>)['Fn::GetOptionSetting'] as { Namespace?: string; OptionName: string; DefaultValue?: unknown } | undefined;
    if (call && Object.keys(n).length === 1) {
      const value = settingValue(settings, call.Namespace ?? 'aws:elasticbeanstalk:customoption', call.OptionName);
      return value === undefined ? (call.DefaultValue ?? '') : String(value);
    }
    return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, walk(v)]));
  };
  return walk(node) as T;
}

function upstreamBlock(nginxConf: string, name = 'kiosk_workers'): string {
  const block = new RegExp(`upstream ${name} \\{([\\s\\S]*?)\\n\\s*\\}`).exec(nginxConf);
  if (!block) throw new Error(`no "upstream ${name}" block in the Nginx configuration`);
  return block[1]!;
}

/** The max_conns of each server line in one of Nginx's upstreams (0 for a server marked down). */
export function nginxMaxConns(nginxConf: string, upstream: string): number[] {
  return [...upstreamBlock(nginxConf, upstream).matchAll(/^\s*server\s+[^;]*;/gm)].map((m) => {
    if (/\bdown\b/.test(m[0])) return 0;
    return Number(/\bmax_conns=(\d+)/.exec(m[0])?.[1] ?? NaN);
  });
}

/** The `server host:port ...;` lines of Nginx's kiosk_workers upstream. */
export function nginxUpstreamServers(nginxConf: string): { host: string; port: number }[] {
  return [...upstreamBlock(nginxConf).matchAll(/^\s*server\s+([\d.]+):(\d+)\b[^;]*;/gm)].map((m) => ({ host: m[1]!, port: Number(m[2]) }));
}

/** Values of a directive (`name value;`) in file order, comments skipped. */
export function nginxDirective(nginxConf: string, name: string): string[] {
  return [...nginxConf.matchAll(new RegExp(`^\\s*${name}\\s+([^;]+);`, 'gm'))].map((m) => m[1]!.trim());
}

export function seconds(value: string): number {
  const match = /^(\d+)(ms|s|m)?$/.exec(value);
  if (!match) throw new Error(`cannot read a duration from "${value}"`);
  const n = Number(match[1]);
  return match[2] === 'ms' ? n / 1000 : match[2] === 'm' ? n * 60 : n;
}

/**
 * What must agree between the environment properties and .platform/nginx/nginx.conf, which
 * are written in different places and read by different programs: one line per disagreement.
 */
export function disagreements(env: Record<string, string>, nginxConf: string): string[] {
  const problems: string[] = [];
  const upstream = nginxUpstreamServers(nginxConf);
  const workers = Number(env.WEB_CONCURRENCY);
  const firstPort = Number(env.PORT);
  if (env.LISTEN_MODE !== 'per-worker') {
    problems.push(`LISTEN_MODE is "${env.LISTEN_MODE}": Nginx proxies to one port per worker, which needs per-worker`);
  }
  if (!Number.isInteger(workers) || workers < 1) problems.push(`WEB_CONCURRENCY "${env.WEB_CONCURRENCY}" is not a worker count`);
  if (!Number.isInteger(firstPort) || firstPort < 1) problems.push(`PORT "${env.PORT}" is not a port`);
  if (problems.length > 0) return problems;
  const expected = Array.from({ length: workers }, (_, i) => firstPort + i);
  const ports = upstream.map((s) => s.port);
  if (ports.join() !== expected.join()) {
    problems.push(
      `WEB_CONCURRENCY=${workers} and PORT=${firstPort} mean worker ports ${expected.join(', ')}, but Nginx's upstream lists ` +
        `${ports.join(', ') || 'none'}: run "npm run nginx:render -- --workers ${workers}" or change the environment properties`,
    );
  }
  const hosts = new Set(upstream.map((s) => s.host));
  if (hosts.size !== 1 || !hosts.has(env.HOST ?? '')) {
    problems.push(`the workers bind HOST=${env.HOST} but Nginx's upstream names ${[...hosts].join(', ')}`);
  }
  const assetsRoot = /location \/assets\/ \{[^}]*?\broot\s+([^;]+);/.exec(nginxConf)?.[1];
  if (env.DIST_DIR === undefined || assetsRoot !== path.posix.join(env.DIST_DIR, 'client')) {
    problems.push(`Nginx serves /assets/ from ${assetsRoot}, not from DIST_DIR/client (DIST_DIR=${env.DIST_DIR})`);
  }
  // Admission: Nginx's per-worker caps are the guard's limits (scripts/nginx/render.ts).
  const caps: [string, string, number][] = [
    ['kiosk_pages', 'SSR_QUEUE_LIMIT', Number(env.SSR_QUEUE_LIMIT ?? 15)],
    ['kiosk_api', 'API_QUEUE_LIMIT', Number(env.API_QUEUE_LIMIT ?? 30)],
  ];
  const crawlerExtra = Number(env.CRAWLER_QUEUE_LIMIT ?? 30) - Number(env.SSR_QUEUE_LIMIT ?? 15);
  if (crawlerExtra > 0) caps.push(['kiosk_crawlers', 'CRAWLER_QUEUE_LIMIT - SSR_QUEUE_LIMIT', crawlerExtra]);
  for (const [upstream, setting, limit] of caps) {
    const found = nginxMaxConns(nginxConf, upstream);
    if (found.length !== workers || found.some((n) => n !== limit)) {
      problems.push(`${setting} is ${limit} but Nginx's ${upstream} caps its workers at ${found.join(', ')}: run "npm run nginx:render"`);
    }
  }
  const shellAge = /s-maxage=(\d+)/.exec(/location @shell \{[\s\S]*?\n {8}\}/.exec(nginxConf)?.[0] ?? '')?.[1];
  if (Number(shellAge) !== Number(env.SHELL_S_MAXAGE_S ?? 2)) {
    problems.push(`SHELL_S_MAXAGE_S is ${env.SHELL_S_MAXAGE_S} but Nginx's shell says s-maxage=${shellAge}: run "npm run nginx:render"`);
  }
  const upstreamIdle = seconds(nginxDirective(upstreamBlock(nginxConf), 'keepalive_timeout')[0] ?? '0');
  const nodeIdleS = Number(env.KEEP_ALIVE_TIMEOUT_MS ?? 65_000) / 1000;
  if (!(nodeIdleS > upstreamIdle)) {
    problems.push(`Node's keep-alive (${nodeIdleS} s) must outlast Nginx's upstream keep-alive (${upstreamIdle} s), or Nginx gets 502s`);
  }
  return problems;
}
