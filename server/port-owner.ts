// One Kiosk per port. Workers share a port with SO_REUSEPORT, and the kernel lets any socket of
// the same user join that group: a second Kiosk started on the same port would silently take
// half the readers, serving whatever it was built from. So the primary claims its ports before
// it forks, and refuses to start, saying who has them, when it cannot.
import fs from 'node:fs';
import net from 'node:net';
import type { Config } from './config';

export interface PortOwner {
  pid: number;
  /** Null when /proc does not let this user read it. */
  command: string | null;
}

/** A worker that finds its port taken exits with this, so the primary can stop instead of reviving it in a loop. */
export const portTakenExitCode = 78;

/** The one sentence every listening layout, and `npm start`, refuses a taken port with. */
export function portTakenSentence(port: number, owner: PortOwner | null): string {
  const who = owner === null ? 'another process' : owner.command === null ? `PID ${owner.pid}` : `PID ${owner.pid} (${owner.command})`;
  return `Port ${port} is already taken by ${who}, so this Kiosk is not starting: stop that process or set another PORT.`;
}

export function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
}

/** Every port a Kiosk's workers will listen on. */
export function listenPorts(config: Pick<Config, 'port' | 'listenMode' | 'webConcurrency'>): number[] {
  const count = config.listenMode === 'per-worker' ? config.webConcurrency : 1;
  return Array.from({ length: count }, (_, k) => config.port + k);
}

/**
 * The sentence for the first of `ports` something already listens on, or null. Only a look, for
 * refusing before slow work (`npm start` builds first): claimPorts is what decides.
 */
export async function takenPortSentence(ports: readonly number[], host: string): Promise<string | null> {
  for (const port of ports) {
    if (!(await bindsAlone(port, host))) return portTakenSentence(port, findPortOwner(port));
  }
  return null;
}

export interface PortClaim {
  release(): void;
}

export type ClaimResult = { ok: true; claim: PortClaim } | { ok: false; port: number; owner: PortOwner | null; sentence: string };

/**
 * Claims `ports` for this process and its workers: first a lock per port, then a bind without
 * SO_REUSEPORT to see that nothing else listens there.
 *
 * The bind alone would be racy: two Kiosks starting together could each bind, close and then
 * both fork reuse-port workers. The lock is an abstract Unix socket named after the port: binding
 * it is atomic, the kernel frees it when the holder dies however it dies (no stale file to clean
 * up), and it lives in the network namespace, as the TCP port does. Nothing bound to the TCP port
 * is kept, since any socket there without SO_REUSEPORT would refuse the workers' own binds; the
 * lock alone keeps out later Kiosks, and the bind catches everything else (an older Kiosk, any
 * other server), because a socket without SO_REUSEPORT cannot join a port others listen on.
 */
export async function claimPorts(ports: readonly number[], host: string): Promise<ClaimResult> {
  const locks: net.Server[] = [];
  const release = () => {
    for (const lock of locks) lock.close();
  };
  for (const port of ports) {
    const lock = await holdLock(port);
    if (lock === 'taken') {
      release();
      const owner = lockHolder(port) ?? findPortOwner(port);
      return { ok: false, port, owner, sentence: portTakenSentence(port, owner) };
    }
    if (lock !== null) locks.push(lock);
  }
  for (const port of ports) {
    let free: boolean;
    try {
      free = await bindsAlone(port, host);
    } catch (error) {
      release();
      throw error;
    }
    if (!free) {
      release();
      const owner = findPortOwner(port);
      return { ok: false, port, owner, sentence: portTakenSentence(port, owner) };
    }
  }
  return { ok: true, claim: { release } };
}

/** Whether a socket without SO_REUSEPORT can listen on the port now; it is closed again at once. */
export function bindsAlone(port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer((socket) => socket.destroy());
    probe.once('error', (error) => (isAddressInUse(error) ? resolve(false) : reject(error)));
    const options: net.ListenOptions = { port, backlog: 1, exclusive: true };
    if (host) options.host = host;
    probe.listen(options, () => probe.close(() => resolve(true)));
  });
}

function lockName(port: number): string {
  return `kiosk-port-${port}`;
}

/** The lock, 'taken' when another process holds it, or null where abstract sockets do not exist (not Linux). */
function holdLock(port: number): Promise<net.Server | 'taken' | null> {
  return new Promise((resolve) => {
    // Nobody has anything to say to the lock; a connection to it is only ever a mistake.
    const lock = net.createServer((socket) => socket.destroy());
    lock.once('error', (error) => resolve(isAddressInUse(error) ? 'taken' : null));
    lock.listen({ path: `\0${lockName(port)}` }, () => {
      // The workers keep the primary alive; the lock must not keep it alive after them.
      lock.unref();
      resolve(lock);
    });
  });
}

/** The process holding another Kiosk's lock on this port: that Kiosk's primary. */
function lockHolder(port: number): PortOwner | null {
  const inodes = new Set<string>();
  for (const line of readLines('/proc/net/unix')) {
    // Num RefCount Protocol Flags Type St Inode Path; an abstract name shows as "@name".
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 8 && fields[7] === `@${lockName(port)}` && fields[6] !== '0') inodes.add(fields[6]!);
  }
  const pid = pidsHolding(inodes)[0];
  return pid === undefined ? null : { pid, command: commandLine(pid) };
}

/**
 * Who listens on the TCP port, from /proc/net/tcp{,6} and the processes' open sockets. The
 * listeners are usually a cluster's workers: the process to name is then their primary, since a
 * worker stopped alone is replaced. Null when no listener is visible to this user.
 */
export function findPortOwner(port: number): PortOwner | null {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readLines(table)) {
      // sl local_address rem_address st … inode; st 0A is LISTEN, the port is hex after the colon.
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A') continue;
      const local = fields[1]!;
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && fields[9] !== '0') inodes.add(fields[9]!);
    }
  }
  const pids = pidsHolding(inodes);
  if (pids.length === 0) return null;
  const parents = new Set(pids.map(parentPid));
  const [parent] = parents;
  const pid = parents.size === 1 && parent !== null && parent !== undefined && parent > 1 && pids.every(isClusterWorker) ? parent : Math.min(...pids);
  return { pid, command: commandLine(pid) };
}

function readLines(file: string): string[] {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(1);
  } catch {
    return [];
  }
}

/** Processes other than this one with a descriptor open on one of these socket inodes. */
function pidsHolding(inodes: ReadonlySet<string>): number[] {
  if (inodes.size === 0) return [];
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // another user's process, or gone
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = fs.readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) {
        pids.push(Number(entry));
        break;
      }
    }
  }
  return pids;
}

function commandLine(pid: number): string | null {
  try {
    const words = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    if (words.length === 0) return null;
    const line = words.join(' ');
    return line.length > 300 ? `${line.slice(0, 299)}…` : line;
  } catch {
    return null;
  }
}

function parentPid(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid …; comm may itself hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/** Node's cluster gives each worker NODE_UNIQUE_ID in its environment; unreadable means we cannot tell. */
function isClusterWorker(pid: number): boolean {
  try {
    return fs
      .readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .some((pair) => pair.startsWith('NODE_UNIQUE_ID='));
  } catch {
    return false;
  }
}
