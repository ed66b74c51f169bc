// Workers held at their limits for the Nginx tests: stopped with SIGSTOP, every request Nginx
// hands one stays in flight, exactly as behind a render that does not finish, until SIGCONT.
import fs from 'node:fs';
import { childPids } from '../scripts/processes';

/** Sends `signal` to every worker of the cluster whose primary is `primaryPid`. */
export function signalWorkers(primaryPid: number, signal: NodeJS.Signals): void {
  for (const pid of childPids(primaryPid)) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}

/** One IPv4 socket as the kernel lists it (/proc/net/tcp). */
interface KernelSocket {
  readonly port: number;
  readonly peerPort: number;
  readonly state: string;
  readonly unread: number;
  readonly inode: string;
}

function kernelSockets(): KernelSocket[] {
  return fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
      const [, local, remote, state, queues, , , , , inode] = line.trim().split(/\s+/);
      if (state === undefined || inode === undefined) return [];
      const port = (address: string | undefined) => parseInt(address?.split(':')[1] ?? '0', 16);
      return [{ port: port(local), peerPort: port(remote), state, unread: parseInt(queues?.split(':')[1] ?? '0', 16), inode }];
    });
}

/** The inodes of the sockets `pid` and its children hold open. */
function socketInodesOf(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const each of [pid, ...childPids(pid)]) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${each}/fd`);
    } catch {
      continue; // gone
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${each}/fd/${fd}`))?.[1];
        if (inode !== undefined) inodes.add(inode);
      } catch {
        // closed meanwhile
      }
    }
  }
  return inodes;
}

/** A connection to a worker's port: its peer's port, whether `from` opened it, its kernel state and unread bytes. */
export interface WorkerConnection {
  readonly port: number;
  readonly peerPort: number;
  readonly ours: boolean;
  readonly state: string;
  readonly unread: number;
}

/**
 * Every IPv4 connection whose local end is one of `workerPorts` (listening sockets left out),
 * each marked `ours` where its other end is a socket of process `from` or its children (the
 * test's Nginx): another test's client on this machine can reach a port these workers took over.
 */
export function connectionsAt(workerPorts: readonly number[], from: number): WorkerConnection[] {
  const ports = new Set(workerPorts);
  const sockets = kernelSockets();
  const inodes = socketInodesOf(from);
  // Each of `from`'s ends by its pair of ports: another process may use the same local port
  // number towards another address, so a worker's end is ours only if its pair is the reverse.
  const ourPairs = new Set(
    sockets.filter(({ inode, peerPort }) => inodes.has(inode) && ports.has(peerPort)).map(({ port, peerPort }) => `${peerPort}:${port}`),
  );
  // One line per connection: a socket listed twice (the kernel's table read in pieces while it
  // changes) counts once. st 0A is LISTEN.
  const seen = new Set<string>();
  return sockets
    .filter(({ port, peerPort, state }) => {
      const pair = `${port}:${peerPort}`;
      if (!ports.has(port) || state === '0A' || seen.has(pair)) return false;
      seen.add(pair);
      return true;
    })
    .map(({ port, peerPort, state, unread }) => ({ port, peerPort, ours: ourPairs.has(`${port}:${peerPort}`), state, unread }));
}

/**
 * Requests that process `from` (the test's Nginx) sent a stopped worker and that wait there
 * unread, as the kernel sees them (/proc/net/tcp): connections to a worker's port, accepted or
 * still in its queue, holding bytes nobody has read. Nginx sends one request per upstream
 * connection, so one each.
 */
export function requestsWaitingAt(workerPorts: readonly number[], from: number): number {
  // st 01 is ESTABLISHED.
  return connectionsAt(workerPorts, from).filter(({ ours, state, unread }) => ours && state === '01' && unread > 0).length;
}

/**
 * Waits until exactly `count` requests from `from` wait at the stopped workers, read the same
 * twice 100 ms apart; fails naming every reading and connection if that does not come within
 * the ceiling. Nginx hands each held request over once and the workers read none, so the count
 * only rises to `count` and stays there. CI once read 7 for 6 with 6 connections listed a moment
 * later (and once before, 8 for 6, when nothing was listed): what that was is not known, but it
 * was no request held, which stays. A request too many stays, and fails here. The ceiling stays under Nginx's proxy_read_timeout
 * (30 s), after which held requests would leave one by one and the count could pass through `count`.
 */
export async function untilHeld(workerPorts: readonly number[], from: number, count: number, what: string, ceilingMs = 10_000): Promise<void> {
  const readings: number[] = [];
  const deadline = performance.now() + ceilingMs;
  let previous = -1;
  for (;;) {
    const now = requestsWaitingAt(workerPorts, from);
    if (readings.at(-1) !== now) readings.push(now);
    if (now === count && previous === count) return;
    if (performance.now() > deadline) {
      throw new Error(
        `${what}: ${now} requests wait at the workers, not ${count} (readings in turn: ${readings.join(', ')}); the connections to them now:\n${describeConnectionsAt(workerPorts, from)}`,
      );
    }
    previous = now;
    await new Promise((resolve) => setTimeout(resolve, now === count ? 100 : 20));
  }
}

/** The connections to the workers' ports, one per line, for a failure message. */
export function describeConnectionsAt(workerPorts: readonly number[], from: number): string {
  const kernelState: Record<string, string> = {
    '01': 'established',
    '06': 'time-wait',
    '08': 'close-wait',
    '04': 'fin-wait-1',
    '05': 'fin-wait-2',
    '09': 'last-ack',
  };
  return connectionsAt(workerPorts, from)
    .map(
      ({ port, peerPort, ours, state, unread }) =>
        `  :${port} from :${peerPort} (${ours ? "the test's Nginx" : 'another process'}), ${kernelState[state] ?? `state ${state}`}, ${unread} bytes unread`,
    )
    .join('\n');
}

/** Settles within `ms`, or is still pending: a fallback answer comes in milliseconds, a held request never. */
export async function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}
