// The processes a bench run starts, each pinned with taskset: Kiosk and the bare node:http
// server on core 0, the generator on core 1. Every child is tracked so an interrupted run
// leaves nothing behind.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accepts, admissionOf, childPids, freePort, freePortRange, loadConfig, nginxBinary, startLocalNginx } from '@kiosk/surface';
import { allowedCpus } from './proc';

export const serverCore = 0;
export const generatorCore = 1;

const children = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGKILLs every child still running, and the workers of any Kiosk primary among them. */
export function killChildren(extraPids: number[] = []): void {
  for (const pid of extraPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const child of children) child.kill('SIGKILL');
}

export function pinned(core: number, command: string, args: string[]): [string, string[]] {
  return ['taskset', ['-c', String(core), command, ...args]];
}

/**
 * Running processes (every thread) moved to the generator's core, off the server's: the
 * orchestrator itself (it only waits, pushes and samples), a PostgreSQL cluster's processes
 * (backends fork from the postmaster later and inherit its affinity).
 */
export function pinToGeneratorCore(pids: readonly number[]): void {
  for (const pid of pids) spawnSync('taskset', ['-a', '-p', '-c', String(generatorCore), String(pid)], { stdio: 'ignore' });
}

export interface ServerUnderTest {
  name: string;
  port: number;
  /** Every process whose CPU and memory count as the server's. */
  pids(): number[];
  /** Cpus_allowed_list of each pid, to show the pinning took. */
  affinity(): string[];
  output(): string;
  /** The Kiosk worker processes (not the primary), if this is Kiosk. */
  workerPids(): number[];
  /** Nginx's access log, when Nginx is in front. */
  accessLog?(): string;
  /** The cluster's /metrics port (METRICS_PORT, on 127.0.0.1), where Kiosk serves it. */
  metricsPort?: number;
  stop(): Promise<void>;
}

// Knobs the bench sets per mode; an operator's shell must not leak into a measurement.
const benchOwnedEnv =
  /^(SSR_|SHED_|CRAWLER_|LAST_GOOD_|PORT$|WEB_CONCURRENCY$|CONTENT_DB_PATH$|CONTENT_DATABASE_URL$|CONTENT_API_URL$|NODE_ENV$|DIST_DIR$|LISTEN_MODE$|HOST$)/;

function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!benchOwnedEnv.test(key)) env[key] = value;
  return { ...env, ...extra };
}

interface StartOptions {
  root: string;
  name: string;
  command: string[];
  env: Record<string, string>;
  ready: (line: string) => number | null | undefined;
  port: number;
  /** The core to pin to; null leaves the process to the scheduler (the balance measurement). */
  core: number | null;
  /** How many "listening" lines mean the server is up (a Kiosk cluster: one per worker). */
  listeners?: number;
  /** How long it may take to listen (30 s; the Express reference reads every page first). */
  startupMs?: number;
  /** Node flags before the command, for every process of it (a worker inherits the primary's). */
  nodeFlags?: readonly string[];
  /** Every line the server writes, as it comes (the output kept is only its tail). */
  onLine?: (line: string) => void;
}

/** Starts a pinned server and waits for the line that says it listens; `ready` returns its worker pid, if any. */
async function startServer(options: StartOptions): Promise<ServerUnderTest> {
  const nodeArgs = [...(options.nodeFlags ?? []), ...options.command];
  const [command, args] = options.core === null ? [process.execPath, nodeArgs] : pinned(options.core, process.execPath, nodeArgs);
  const child = track(spawn(command, args, { cwd: options.root, env: serverEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  const workers: number[] = [];
  let listening = false;
  let heard = 0;
  const onLine = (line: string) => {
    options.onLine?.(line);
    const worker = options.ready(line);
    if (worker === undefined) return;
    // Every worker, not the first: workers that start together may log in any order.
    listening = ++heard >= (options.listeners ?? 1);
    if (worker !== null) workers.push(worker);
  };
  let partial = '';
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    // Keep the tail only: a long run must not grow this without bound.
    output = (output + text).slice(-64_000);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    lines.forEach(onLine);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const startupMs = options.startupMs ?? 30_000;
  const deadline = Date.now() + startupMs;
  while (!listening) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${options.name} exited during start-up:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} did not start within ${startupMs / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pids = () => [child.pid!, ...workers];
  return {
    name: options.name,
    port: options.port,
    pids,
    affinity: () => pids().map(allowedCpus),
    output: () => output,
    workerPids: () => [...workers],
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const stopDeadline = Date.now() + 15_000;
      const timer = setTimeout(() => killChildren(workers), 15_000);
      await exited;
      // A worker drains and exits on its own (and writes what --cpu-prof asked of it then), often
      // after its primary: waited for until the same 15 s are up.
      while (Date.now() < stopDeadline && workers.some(isRunning)) await new Promise((resolve) => setTimeout(resolve, 50));
      clearTimeout(timer);
      // A worker that outlived its primary would keep the port and the core busy.
      for (const pid of workers) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
    },
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function workerListening(line: string): number | null | undefined {
  if (!line.includes('"worker listening"')) return undefined;
  try {
    const pid = (JSON.parse(line) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : null;
  } catch {
    return null;
  }
}

/** The production build as operators run it: the throng primary and its workers (one unless env says), on core 0. */
export async function startKiosk(
  root: string,
  name: string,
  dbPath: string,
  env: Record<string, string>,
  options: { core?: number | null; port?: number } & Pick<StartOptions, 'nodeFlags' | 'onLine'> = {},
): Promise<ServerUnderTest> {
  const port = options.port ?? (await freePort());
  // The primary answers /metrics, off the workers' request path: the bench reads the content cache's counters there.
  let metricsPort = env.METRICS_PORT === undefined ? await freePort() : Number(env.METRICS_PORT);
  while (metricsPort === port) metricsPort = await freePort();
  const server = await startServer({
    root,
    name,
    port,
    core: options.core === undefined ? serverCore : options.core,
    command: [path.join(root, 'dist/server/index.cjs')],
    env: {
      NODE_ENV: 'production',
      WEB_CONCURRENCY: '1',
      PORT: String(port),
      CONTENT_DB_PATH: dbPath,
      DIST_DIR: path.join(root, 'dist'),
      SHUTDOWN_GRACE_MS: '1000',
      ...env,
      METRICS_PORT: String(metricsPort),
    },
    ready: workerListening,
    listeners: Number(env.WEB_CONCURRENCY ?? '1'),
    nodeFlags: options.nodeFlags,
    onLine: options.onLine,
  });
  return { ...server, metricsPort };
}

/**
 * Kiosk in per-worker mode behind the local rendering of the production Nginx config: the
 * generator talks to Nginx, which keeps pooled keep-alive connections to the workers. With a
 * core given, Nginx (one worker process per Kiosk worker) is pinned beside Kiosk on it, so the
 * figures stay per core and include Nginx's own cost.
 */
export async function startKioskBehindNginx(
  root: string,
  name: string,
  dbPath: string,
  env: Record<string, string>,
  options: { workers: number; core: number | null },
): Promise<ServerUnderTest> {
  const firstPort = await freePortRange(options.workers);
  const kiosk = await startKiosk(
    root,
    name,
    dbPath,
    { ...env, LISTEN_MODE: 'per-worker', WEB_CONCURRENCY: String(options.workers) },
    { core: options.core, port: firstPort },
  );
  const nginxPort = await freePort();
  let nginx;
  try {
    nginx = await startLocalNginx({
      listen: `127.0.0.1:${nginxPort}`,
      workerPorts: Array.from({ length: options.workers }, (_, i) => firstPort + i),
      workerProcesses: options.workers,
      // Nginx holds each worker to the limits that worker reads.
      admission: admissionOf(loadConfig({ ...env, PORT: String(firstPort) })),
      wrap: options.core === null ? [] : ['taskset', '-c', String(options.core)],
    });
  } catch (error) {
    await kiosk.stop();
    throw error;
  }
  track(nginx.process);
  const nginxPids = () => [nginx.process.pid!, ...childPids(nginx.process.pid!)];
  const pids = () => [...kiosk.pids(), ...nginxPids()];
  return {
    name,
    port: nginxPort,
    pids,
    affinity: () => pids().map(allowedCpus),
    output: () => `${kiosk.output()}${nginx.errors()}`,
    accessLog: () => nginx.accessLog(),
    workerPids: kiosk.workerPids,
    // The workers' counters (memory, pauses, the copies' write time) are read behind Nginx too.
    metricsPort: kiosk.metricsPort,
    async stop() {
      await nginx.stop();
      await kiosk.stop();
    },
  };
}

/** node:http answering fixed bytes: the ceiling for any answer Kiosk can give on this core. */
export async function startBareServer(root: string, bodyFile: string, headersJson: string): Promise<ServerUnderTest> {
  const port = await freePort();
  return startServer({
    root,
    name: 'bare node:http',
    port,
    command: ['--import', 'tsx', path.join(root, 'tools/bench/bare-server.ts'), String(port), bodyFile, headersJson],
    core: serverCore,
    env: { NODE_ENV: 'production' },
    ready: (line) => (line.startsWith('bare server listening') ? null : undefined),
  });
}

/** Runs a pinned Node script to completion and returns its last stdout line. */
/** The bare-Express reference (tools/bench/express-reference.tsx), with every article page's data in memory. */
export async function startExpressReference(root: string, dbPath: string, pathsFile: string): Promise<ServerUnderTest> {
  const port = await freePort();
  return startServer({
    root,
    name: 'bare Express + renderToString',
    port,
    command: ['--import', 'tsx', path.join(root, 'tools/bench/express-reference.tsx'), String(port), dbPath, path.join(root, 'dist'), pathsFile],
    core: serverCore,
    env: { NODE_ENV: 'production' },
    ready: (line) => (line.startsWith('express reference listening') ? null : undefined),
    startupMs: 300_000,
  });
}

export function runPinned(root: string, core: number, args: string[], env: Record<string, string>): Promise<string> {
  const [command, commandArgs] = pinned(core, process.execPath, args);
  const child = track(spawn(command, commandArgs, { cwd: root, env: serverEnv(env), stdio: ['ignore', 'pipe', 'inherit'] }));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    // 'close': its output read to the end (an exit can be reported first; native-generator.ts).
    child.once('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0) resolve(last);
      else reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

/**
 * Nginx and nothing else: one worker process on `core`, answering every request with one
 * file, no logging, keep-alive. The ceiling for any answer Nginx gives from disk on this core,
 * against which its fallback path is measured.
 */
export async function startStaticNginx(file: string, core: number): Promise<ServerUnderTest> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-static-nginx-'));
  const port = await freePort();
  fs.mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
  const conf = [
    'worker_processes 1;',
    'daemon off;',
    `pid ${prefix}/nginx.pid;`,
    `error_log ${prefix}/error.log warn;`,
    'events { worker_connections 10240; multi_accept on; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${prefix}/tmp;`,
    '  sendfile on; tcp_nopush on; tcp_nodelay on;',
    '  keepalive_requests 10000;',
    `  server { listen 127.0.0.1:${port} backlog=16384; root ${path.dirname(file)}; default_type text/html;`,
    `    location / { rewrite ^ /${path.basename(file)} break; } }`,
    '}',
  ].join('\n');
  const configPath = path.join(prefix, 'nginx.conf');
  fs.writeFileSync(configPath, conf);
  const [command, args] = pinned(core, nginxBinary(), ['-p', `${prefix}/`, '-c', configPath, '-e', path.join(prefix, 'error.log')]);
  const child = track(spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts('127.0.0.1', port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bare Nginx did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pids = () => [child.pid!, ...childPids(child.pid!)];
  return {
    name: 'bare Nginx static',
    port,
    pids,
    affinity: () => pids().map(allowedCpus),
    output: () => stderr,
    workerPids: () => [],
    async stop() {
      child.kill('SIGQUIT');
      const forced = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(forced);
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}
