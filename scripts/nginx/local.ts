// Runs the local rendering of Kiosk's Nginx configuration under a temporary prefix, without
// root: used by `npm run start:nginx`, the Nginx tests and the bench's "through Nginx" row.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { localParams, originSecretConf, renderNginxConfig, type Admission, type NginxParams } from './render';

export function nginxBinary(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx']) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error('nginx is not installed: run scripts/setup-system.sh');
}

export interface CheckResult {
  ok: boolean;
  output: string;
}

/** `nginx -t` on a configuration file; `prefix` keeps the check's own error log out of /var/log. */
export function testConfig(configPath: string, prefix?: string): CheckResult {
  const args = ['-t', '-c', configPath];
  if (prefix) args.push('-p', `${prefix}/`, '-e', path.join(prefix, 'error.log'));
  const result = spawnSync(nginxBinary(), args, { encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

/** The hard limit on open files: the local rendering asks for no more than the shell allows. */
function hardNofile(): number {
  const result = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' });
  const value = Number(result.stdout.trim());
  return Number.isFinite(value) && value > 0 ? value : 1_024;
}

export interface LocalNginxOptions {
  /** Address:port Nginx listens on, e.g. 127.0.0.1:3000. */
  listen: string;
  workerPorts: number[];
  upstreamKeepaliveTimeoutS?: number;
  /** Nginx worker processes; default one per core. */
  workerProcesses?: number;
  /** Runs Nginx under this command, e.g. ['taskset', '-c', '0'] to pin it. */
  wrap?: string[];
  /** The workers' limits (default: what loadConfig() reads from this process's environment). */
  admission?: Admission;
  /** Where Nginx logs its fallback answers (default: fallback.log under the prefix). */
  fallbackLog?: string;
  /**
   * Values of X-Kiosk-Origin-Secret let through (default: ORIGIN_SECRET and ORIGIN_SECRET_PREVIOUS
   * from this process's environment); none: every request is.
   */
  originSecrets?: string[];
}

/** The secrets Nginx accepts, as the platform hook reads them on an instance. */
export function originSecretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return [env.ORIGIN_SECRET, env.ORIGIN_SECRET_PREVIOUS].filter((s): s is string => Boolean(s));
}

export interface LocalNginx {
  prefix: string;
  configPath: string;
  params: NginxParams;
  process: ChildProcess;
  /** Everything Nginx wrote to stderr, plus its error log. */
  errors(): string;
  accessLog(): string;
  /** Graceful stop (SIGQUIT), then removes the prefix. */
  stop(): Promise<void>;
}

export function writeLocalConfig(
  options: LocalNginxOptions,
  prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-nginx-')),
): { prefix: string; configPath: string; params: NginxParams } {
  for (const dir of ['tmp/client_body', 'tmp/proxy', 'tmp/fastcgi', 'tmp/uwsgi', 'tmp/scgi']) {
    fs.mkdirSync(path.join(prefix, dir), { recursive: true });
  }
  const params = localParams(prefix, { ...options, rlimitNofile: Math.min(20_480, hardNofile()) });
  fs.writeFileSync(params.originSecretConf, originSecretConf(options.originSecrets ?? originSecretsFromEnv()), { mode: 0o600 });
  const configPath = path.join(prefix, 'nginx.conf');
  fs.writeFileSync(configPath, renderNginxConfig('local', params));
  return { prefix, configPath, params };
}

function portOf(listen: string): { host: string; port: number } {
  const match = /^(?:(.+):)?(\d+)$/.exec(listen);
  if (!match) throw new Error(`cannot read a port from "${listen}"`);
  return { host: match[1] ?? '127.0.0.1', port: Number(match[2]) };
}

/** Whether something accepts TCP connections there now. */
export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startLocalNginx(options: LocalNginxOptions): Promise<LocalNginx> {
  const { prefix, configPath, params } = writeLocalConfig(options);
  const check = testConfig(configPath, prefix);
  if (!check.ok) throw new Error(`nginx -t failed:\n${check.output}`);

  const errorLog = path.join(prefix, 'error.log');
  const command = [...(options.wrap ?? []), nginxBinary(), '-p', `${prefix}/`, '-c', configPath, '-e', errorLog];
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  const errors = () => `${stderr}${read(errorLog)}`;

  const { host, port } = portOf(options.listen);
  const deadline = Date.now() + 10_000;
  while (!(await accepts(host, port))) {
    if (child.exitCode !== null) throw new Error(`nginx exited during start-up:\n${errors()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not listen on ${options.listen} within 10 s:\n${errors()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  let stopping: Promise<void> | undefined;
  return {
    prefix,
    configPath,
    params,
    process: child,
    errors,
    accessLog: () => read(params.accessLog),
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGQUIT');
          const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(forced);
        }
        fs.rmSync(prefix, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
