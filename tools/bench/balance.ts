// How evenly one instance's workers share the load: one port shared with SO_REUSEPORT (the
// layout without Nginx) against per-worker ports behind Nginx's least_conn (production). Measured with as
// many workers as cores, unpinned, at the one-core server-rendering capacity.
import type { StepRecord } from './measure';
import type { ServerUnderTest } from './processes';
import { cpuTicks } from './proc';

export interface BalanceLayout {
  name: string;
  env: Record<string, string>;
  nginx: boolean;
}

export const balanceLayouts: BalanceLayout[] = [
  { name: 'one port, LISTEN_MODE=reuse-port (SO_REUSEPORT)', env: { LISTEN_MODE: 'reuse-port' }, nginx: false },
  { name: 'per-worker ports, Nginx least_conn', env: {}, nginx: true },
];

export interface BalanceResult {
  layout: string;
  workers: number;
  offeredPerS: number;
  achievedPerS: number;
  p99Ms: number;
  failures: number;
  /** Each worker's share of the workers' CPU time over the step, largest first. */
  cpuShares: number[];
  /** Each worker's share of the requests, from Nginx's access log (null without Nginx). */
  requestShares: number[] | null;
  /** The busiest worker's CPU over the mean: 1 is perfectly even. */
  maxOverMean: number;
}

function shares(values: number[]): number[] {
  const total = values.reduce((a, b) => a + b, 0);
  return values.map((v) => (total > 0 ? v / total : 0)).sort((a, b) => b - a);
}

function upstreamCounts(log: string): number[] {
  const counts = new Map<string, number>();
  for (const match of log.matchAll(/ ua=(\S+) /g)) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
  return [...counts.values()];
}

/** Runs one step on a started server and reads who did the work. */
export async function measureBalance(
  layout: BalanceLayout,
  server: ServerUnderTest,
  ratePerS: number,
  step: (server: ServerUnderTest, ratePerS: number) => Promise<StepRecord>,
): Promise<BalanceResult> {
  const workers = server.workerPids();
  const before = workers.map(cpuTicks);
  const logOffset = server.accessLog?.().length ?? 0;
  const record = await step(server, ratePerS);
  const cpu = workers.map((pid, i) => cpuTicks(pid) - before[i]!);
  const cpuShares = shares(cpu);
  // Nginx buffers its access log for up to a second.
  if (server.accessLog) await new Promise((resolve) => setTimeout(resolve, 1_200));
  const requestShares = server.accessLog ? shares(upstreamCounts(server.accessLog().slice(logOffset))) : null;
  return {
    layout: layout.name,
    workers: workers.length,
    offeredPerS: record.offeredPerS,
    achievedPerS: record.achievedPerS,
    p99Ms: record.latencyMs.p99,
    failures: record.errors + record.timeouts + record.non2xx,
    cpuShares,
    requestShares,
    maxOverMean: workers.length > 0 ? (cpuShares[0] ?? 0) * workers.length : 0,
  };
}
