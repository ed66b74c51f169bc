// A PostgreSQL cluster of our own from Debian's server binaries (scripts/setup-system.sh installs
// them): initdb in a directory, a free port on loopback, pg_ctl to start and stop it. Every
// PostgreSQL test and `npm run db:up` use this one module; nothing assumes a running service.
// PostgreSQL refuses to run as root, so as root the cluster belongs to the unprivileged
// `nobody` and its programs run as that user.
import { execFileSync, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../ports';
import { childPids } from '../processes';
import { migrate } from './migrate';

const binDirs = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];
export const clusterUser = 'kiosk';
export const clusterDatabase = 'kiosk';

export interface Cluster {
  readonly dataDir: string;
  readonly port: number;
  /** postgres://kiosk@127.0.0.1:PORT/kiosk: trust authentication, loopback only. */
  readonly url: string;
  /** Stops the server (fast shutdown: open connections are ended); the data stays. */
  stop(): void;
  /** Starts it again on the same port, with the same data. */
  start(): void;
  /** Freezes the server and its backends (SIGSTOP): a database that accepts connections and never answers. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
  /** Stops the server and deletes the data directory (unless it was given, for db:up). */
  destroy(): void;
  /** The postmaster and its children (empty when stopped): to signal, pin or measure them. */
  processes(): number[];
}

/** The directory of initdb, pg_ctl and postgres; PG_BIN_DIR overrides the Debian locations. */
export function postgresBinDir(): string {
  const candidates = process.env.PG_BIN_DIR ? [process.env.PG_BIN_DIR] : binDirs;
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'initdb')));
  if (found === undefined) {
    throw new Error(`no PostgreSQL server binaries in ${candidates.join(' or ')}: run scripts/setup-system.sh (Debian's postgresql package)`);
  }
  return found;
}

function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function run(bin: string, args: string[], user: { uid: number; gid: number } | null, options: SpawnSyncOptions = {}): string {
  const result = spawnSync(bin, args, {
    encoding: 'utf8',
    // nobody's home does not exist: keep PostgreSQL's programs from looking there.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: os.tmpdir() },
    cwd: os.tmpdir(),
    timeout: 60_000,
    ...(user ?? {}),
    ...options,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.error || result.status !== 0) {
    throw new Error(`${path.basename(bin)} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${output}`);
  }
  return output;
}

export interface ClusterOptions {
  /** Where the data goes; a fresh temporary directory (deleted by destroy) when absent. */
  dataDir?: string;
  port?: number;
  /** Throwaway clusters trade durability for speed (fsync off); db:up keeps it on. */
  durable?: boolean;
  /** Apply the migrations once it is up (what every store test wants). */
  migrate?: boolean;
}

/**
 * Creates (when the directory is empty) and starts a cluster with one database, `kiosk`, whose
 * owner is the superuser `kiosk`. Takes a second or two.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const bin = postgresBinDir();
  const user = runAs();
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-pg-'));
  // The parents stay traversable: as root, the server runs as nobody and must reach its directory.
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user) fs.chownSync(dataDir, user.uid, user.gid);
  const port = options.port ?? (await freePort());
  const logFile = path.join(dataDir, 'server.log');

  const fresh = !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh) {
    run(path.join(bin, 'initdb'), ['-D', dataDir, '-U', clusterUser, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'], user);
  }
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    // The socket goes in the data directory: /var/run/postgresql may not exist or be ours.
    `-c unix_socket_directories=${dataDir}`,
    ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
  ].join(' ');

  function start() {
    run(path.join(bin, 'pg_ctl'), ['start', '-w', '-t', '30', '-D', dataDir, '-l', logFile, '-o', settings], user, { stdio: ['ignore', 'pipe', 'pipe'] });
  }
  function stop() {
    if (!fs.existsSync(path.join(dataDir, 'postmaster.pid'))) return;
    run(path.join(bin, 'pg_ctl'), ['stop', '-w', '-t', '30', '-m', 'fast', '-D', dataDir], user);
  }

  start();
  if (fresh) {
    run(
      path.join(bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', clusterUser, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', `CREATE DATABASE ${clusterDatabase}`],
      user,
    );
  }
  /** The postmaster and its children, by their parent ids in /proc: this cluster's processes only. */
  function processes(): number[] {
    const pidFile = path.join(dataDir, 'postmaster.pid');
    if (!fs.existsSync(pidFile)) return [];
    return processesOf(Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]));
  }
  function signal(name: NodeJS.Signals) {
    for (const pid of processes()) {
      try {
        process.kill(pid, name);
      } catch {
        // A backend that ended meanwhile.
      }
    }
  }

  const url = `postgres://${clusterUser}@127.0.0.1:${port}/${clusterDatabase}`;
  if (options.migrate) await migrate(url);
  return {
    dataDir,
    port,
    url,
    start,
    stop,
    processes,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    destroy() {
      signal('SIGCONT');
      try {
        stop();
      } finally {
        if (temporary) fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** A process and its children. */
export function processesOf(parent: number): number[] {
  return [parent, ...childPids(parent)];
}
