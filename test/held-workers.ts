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

/**
 * Requests that reached a stopped worker and wait there unread, as the kernel sees them
 * (/proc/net/tcp): connections to a worker's port, accepted or still in its queue, holding bytes
 * nobody has read. Nginx sends one request per upstream connection, so one each.
 */
export function requestsWaitingAt(workerPorts: readonly number[]): number {
  const ports = new Set(workerPorts.map((port) => port.toString(16).toUpperCase().padStart(4, '0')));
  let waiting = 0;
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue ...; st 01 is ESTABLISHED.
    const [, local, , state, queues] = line.trim().split(/\s+/);
    if (state !== '01' || !ports.has(local?.split(':')[1] ?? '')) continue;
    if (parseInt(queues?.split(':')[1] ?? '0', 16) > 0) waiting += 1;
  }
  return waiting;
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
