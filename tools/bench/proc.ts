// What the kernel says about our processes and cores (Linux /proc only).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export const clockTicksPerS = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(out.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

function read(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** utime + stime from a /proc stat line (a process's or one thread's), in clock ticks. */
function statTicks(stat: string): number {
  // The command name may hold spaces and parentheses; fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** utime + stime of a process (all its threads), in clock ticks; 0 once it is gone. */
export function cpuTicks(pid: number): number {
  const stat = read(`/proc/${pid}/stat`);
  return stat ? statTicks(stat) : 0;
}

/** utime + stime of a process (all its threads), in milliseconds; 0 once it is gone. */
export function cpuMs(pid: number): number {
  return (cpuTicks(pid) * 1000) / clockTicksPerS;
}

export function rssBytes(pid: number): number {
  const status = read(`/proc/${pid}/status`);
  const match = status ? /^VmRSS:\s+(\d+) kB/m.exec(status) : null;
  return match ? Number(match[1]) * 1024 : 0;
}

export function allowedCpus(pid: number): string {
  const status = read(`/proc/${pid}/status`);
  return (status ? /^Cpus_allowed_list:\s+(\S+)/m.exec(status)?.[1] : undefined) ?? '?';
}

export interface CoreTimes {
  busy: number;
  /** Interrupt and softirq time: loopback TCP is processed here, not in any process. */
  kernel: number;
  steal: number;
  total: number;
}

/** Per-core jiffies from /proc/stat; busy excludes idle, iowait and steal. */
export function coreTimes(): CoreTimes[] {
  const stat = read('/proc/stat') ?? '';
  const cores: CoreTimes[] = [];
  for (const line of stat.split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (!match) continue;
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = match[2]!.trim().split(/\s+/).map(Number);
    const busy = user + nice + system + irq + softirq;
    cores[Number(match[1])] = { busy, kernel: irq + softirq, steal, total: busy + idle + iowait + steal };
  }
  return cores;
}

/** CPU time of a set of processes as a share of one core, between two snapshots. */
export class CpuMeter {
  private startTicks: Map<number, number>;
  private startAt = performance.now();

  constructor(private readonly pids: () => number[]) {
    this.startTicks = new Map(pids().map((pid) => [pid, cpuTicks(pid)]));
  }

  /** Percent of one core used since construction. */
  percent(): number {
    const seconds = (performance.now() - this.startAt) / 1000;
    let ticks = 0;
    for (const pid of this.pids()) ticks += cpuTicks(pid) - (this.startTicks.get(pid) ?? 0);
    return seconds > 0 ? (100 * ticks) / clockTicksPerS / seconds : 0;
  }
}

export type CoreShares = Omit<CoreTimes, 'total'>;

/** Each core's time between two snapshots, in percent. */
export function corePercents(before: CoreTimes[], after: CoreTimes[]): CoreShares[] {
  return after.map((end, core) => {
    const start = before[core] ?? { busy: 0, kernel: 0, steal: 0, total: 0 };
    const total = end.total - start.total;
    const share = (key: keyof CoreShares) => (total > 0 ? (100 * (end[key] - start[key])) / total : 0);
    return { busy: share('busy'), kernel: share('kernel'), steal: share('steal') };
  });
}

/**
 * What the kernel's network stack dropped and sent again, counted since boot (all cores, all
 * sockets). Loopback packets wait in the sending core's input queue (net.core.netdev_max_backlog,
 * 1000 by default) until its softirq takes them; past the limit the kernel drops them, and TCP
 * sends them again only after its retransmission timeout (200 ms at least): a request that waited
 * a second while the worker answered every request it read within 200 ms.
 */
export interface NetCounters {
  /** Packets dropped because a core's input queue was full (/proc/net/softnet_stat, 2nd column). */
  backlogDrops: number;
  /** TCP segments sent again (/proc/net/snmp, Tcp RetransSegs). */
  retransSegs: number;
}

/** Parses /proc/net/softnet_stat (hex, one line per core) and /proc/net/snmp; NaN where unreadable. */
export function parseNetCounters(softnet: string | null, snmp: string | null): NetCounters {
  const lines = softnet?.trim().split('\n').filter(Boolean) ?? [];
  const backlogDrops = softnet === null ? Number.NaN : lines.reduce((sum, line) => sum + parseInt(line.trim().split(/\s+/)[1] ?? '0', 16), 0);
  const tcp = (snmp ?? '').split('\n').filter((line) => line.startsWith('Tcp:'));
  const names = tcp[0]?.split(/\s+/) ?? [];
  const values = tcp[1]?.split(/\s+/) ?? [];
  const at = names.indexOf('RetransSegs');
  return { backlogDrops, retransSegs: at > 0 && values[at] !== undefined ? Number(values[at]) : Number.NaN };
}

export function netCounters(): NetCounters {
  return parseNetCounters(read('/proc/net/softnet_stat'), read('/proc/net/snmp'));
}

/** The input queue's limit on each core, or null where unreadable. */
export function netdevMaxBacklog(): number | null {
  const value = Number(read('/proc/sys/net/core/netdev_max_backlog')?.trim());
  return Number.isFinite(value) && value > 0 ? value : null;
}

/** Name V8's platform threads carry (Node's pool: concurrent marking and sweeping, compiling). */
export const v8HelperThreadName = 'V8Worker';

/** The main thread's and V8's helper threads' share of a worker's time, read from each thread's own /proc entries. */
export interface ThreadTimes {
  /** CPU of the threads named V8Worker, in clock ticks. */
  helperTicks: number;
  /** Time the main thread was ready to run but waited for a core (schedstat's run-queue wait), in ms; NaN where the kernel keeps no schedstat. */
  mainWaitMs: number;
}

/** A worker's thread times now; zeros once it is gone. */
export function threadTimes(pid: number): ThreadTimes {
  let helperTicks = 0;
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return { helperTicks: 0, mainWaitMs: 0 };
  }
  for (const tid of tids) {
    const stat = read(`/proc/${pid}/task/${tid}/stat`);
    if (stat && stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === v8HelperThreadName) helperTicks += statTicks(stat);
  }
  const schedstat = read(`/proc/${pid}/task/${pid}/schedstat`);
  const waitNs = schedstat === null ? Number.NaN : Number(schedstat.split(' ')[1]);
  return { helperTicks, mainWaitMs: waitNs / 1e6 };
}

/** Shares of one core over a window, in percent, of a set of workers' V8 helper threads and of their main threads' waiting. */
export class ThreadMeter {
  private readonly start: Map<number, ThreadTimes>;
  private readonly startAt = performance.now();

  constructor(private readonly pids: () => number[]) {
    this.start = new Map(pids().map((pid) => [pid, threadTimes(pid)]));
  }

  /** Null where there is no worker to read. */
  percents(): { helperCpuPct: number; mainWaitPct: number } | null {
    const pids = this.pids();
    const seconds = (performance.now() - this.startAt) / 1000;
    if (pids.length === 0 || !(seconds > 0)) return null;
    let ticks = 0;
    let waitMs = 0;
    for (const pid of pids) {
      const now = threadTimes(pid);
      const then = this.start.get(pid) ?? { helperTicks: 0, mainWaitMs: 0 };
      ticks += now.helperTicks - then.helperTicks;
      waitMs += now.mainWaitMs - then.mainWaitMs;
    }
    return { helperCpuPct: (100 * ticks) / clockTicksPerS / seconds, mainWaitPct: waitMs / 10 / seconds };
  }
}
