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

/** utime + stime of a process (all its threads), in clock ticks; 0 once it is gone. */
export function cpuTicks(pid: number): number {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return 0;
  // The command name may hold spaces and parentheses; fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
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
