// A run told minute by minute, and in a few numbers.
import type { ScalingAction, Second, SimulationResult } from './simulate';

export interface MinuteRow {
  minute: number;
  /** At the end of the minute. */
  ready: number;
  booting: number;
  /** Means over the minute. */
  cpu: number;
  groupCpu: number;
  /** The alarms in ALARM at the end of the minute ("high" and "low" are EB's trigger), or "-". */
  alarm: string;
  viewsPerS: number;
  originPerS: number;
  servedPerS: number;
  /** Of the pages (HTML) served in the minute; null when none were. */
  ssrShare: number | null;
  shellShare: number | null;
  shedPerS: number;
  /** Scaling actions taken in the minute (at its start, when the alarm was evaluated). */
  actions: ScalingAction[];
}

export interface Summary {
  durationS: number;
  riseAtS: number | null;
  riseNote: string;
  fleetBeforeRise: number | null;
  /** From the rise until the ready fleet is at least 3× fleetBeforeRise; null: not reached. */
  timeToTripleS: number | null;
  /** The worst second. */
  peakShellShare: number;
  peakShellAtS: number | null;
  /** Last second any page was answered with the shell; null: never. */
  lastShellAtS: number | null;
  shedRequests: number;
  peakFleet: number;
  scaleUps: number;
  scaleDowns: number;
  heldAtLimit: { up: number; down: number };
  /** Launched instances cost from launch: booting ones count. */
  instanceHours: number;
  /** null without a price. */
  cost: number | null;
}

function mean(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
}

export function shellShareOf(second: Pick<Second, 'ssr' | 'shell'>): number {
  const pages = second.ssr + second.shell;
  return pages > 0 ? second.shell / pages : 0;
}

/** An alarm's short name: EB's "high" and "low", a resource's logical id without "Kiosk" and "Alarm". */
export function alarmLabel(name: string): string {
  const short = name.replace(/^Kiosk/, '').replace(/Alarm$/, '');
  return short.charAt(0).toLowerCase() + short.slice(1);
}

function alarmAt(result: SimulationResult, atS: number): string {
  const last = new Map<string, string>();
  for (const change of result.alarmChanges) if (change.atS <= atS) last.set(change.alarm, change.state);
  const inAlarm = [...last].filter(([, state]) => state === 'ALARM').map(([name]) => alarmLabel(name));
  return inAlarm.length > 0 ? inAlarm.join(', ') : '-';
}

export function minuteRows(result: SimulationResult): MinuteRow[] {
  const rows: MinuteRow[] = [];
  for (let start = 0; start < result.seconds.length; start += 60) {
    const slice = result.seconds.slice(start, start + 60);
    const last = slice[slice.length - 1]!;
    const end = start + slice.length;
    const ssr = slice.reduce((sum, s) => sum + s.ssr, 0);
    const shell = slice.reduce((sum, s) => sum + s.shell, 0);
    rows.push({
      minute: start / 60,
      ready: last.ready,
      booting: last.booting,
      cpu: mean(slice.map((s) => s.cpu)),
      groupCpu: mean(slice.map((s) => s.groupCpu)),
      alarm: alarmAt(result, end),
      viewsPerS: mean(slice.map((s) => s.viewsPerS)),
      originPerS: mean(slice.map((s) => s.originPerS)),
      servedPerS: mean(slice.map((s) => s.ssr + s.shell + s.api)),
      ssrShare: ssr + shell > 0 ? ssr / (ssr + shell) : null,
      shellShare: ssr + shell > 0 ? shell / (ssr + shell) : null,
      shedPerS: mean(slice.map((s) => s.shed)),
      actions: result.actions.filter((a) => a.atS >= start && a.atS < end),
    });
  }
  return rows;
}

export function summarize(result: SimulationResult, rise: { atS: number | null; note: string }, pricePerHour: number | null): Summary {
  const { seconds, actions } = result;
  const riseAtS = rise.atS !== null && rise.atS < seconds.length ? rise.atS : null;
  const fleetBeforeRise = riseAtS === null ? null : seconds[riseAtS]!.ready;
  let timeToTripleS: number | null = null;
  if (riseAtS !== null && fleetBeforeRise !== null) {
    const tripled = seconds.findIndex((s, t) => t >= riseAtS && s.ready >= 3 * fleetBeforeRise);
    timeToTripleS = tripled < 0 ? null : tripled - riseAtS;
  }
  let peakShellShare = 0;
  let peakShellAtS: number | null = null;
  let lastShellAtS: number | null = null;
  seconds.forEach((s, t) => {
    const share = shellShareOf(s);
    if (share > peakShellShare) {
      peakShellShare = share;
      peakShellAtS = t;
    }
    if (s.shell > 0) lastShellAtS = t;
  });
  const instanceSeconds = seconds.reduce((sum, s) => sum + s.ready + s.booting, 0);
  return {
    durationS: seconds.length,
    riseAtS,
    riseNote: rise.note,
    fleetBeforeRise,
    timeToTripleS,
    peakShellShare,
    peakShellAtS,
    lastShellAtS,
    shedRequests: seconds.reduce((sum, s) => sum + s.shed, 0),
    peakFleet: Math.max(...seconds.map((s) => s.ready + s.booting)),
    scaleUps: actions.filter((a) => a.direction === 'up').length,
    scaleDowns: actions.filter((a) => a.direction === 'down').length,
    heldAtLimit: result.heldAtLimit,
    instanceHours: instanceSeconds / 3600,
    cost: pricePerHour === null ? null : (instanceSeconds / 3600) * pricePerHour,
  };
}
