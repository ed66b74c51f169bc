// Durations on the command line and in profiles: "90" or "90s" (seconds), "10m", "1.5h".

import { UsageError } from '@kiosk/surface';

/** Input the simulator cannot use (a flag's value, a profile, a policy): a usage error, exit 2. */
export class InputError extends UsageError {}

const unitS: Record<string, number> = { '': 1, s: 1, m: 60, min: 60, h: 3600 };

/** Whole seconds, rounded: the simulation ticks once a second. */
export function parseDuration(raw: string, what: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(s|m|min|h)?\s*$/.exec(raw);
  if (!match) throw new InputError(`${what}: "${raw}" is not a duration (90, 90s, 10m, 1.5h)`);
  return Math.round(Number(match[1]) * unitS[match[2] ?? '']!);
}

/** 870 → "14:30" (minutes:seconds from the start of the run). */
export function clock(s: number): string {
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/** 270 → "4 min 30 s", 300 → "5 min", 45 → "45 s". */
export function span(s: number): string {
  const whole = Math.round(s);
  const minutes = Math.floor(whole / 60);
  const seconds = whole % 60;
  if (minutes === 0) return `${seconds} s`;
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}
