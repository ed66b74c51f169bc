// Traffic profiles: page views per second at the edge (CloudFront), second by second.
//   steady:1000              1,000 views/s throughout
//   step:1000:3000@10m       1,000 views/s, then 3,000 from minute 10 on
//   ramp:1000:3000@5m-15m    1,000, rising linearly from minute 5 to 3,000 at minute 15, then 3,000
//   a CSV file               see parseProfileCsv
import { InputError, parseDuration } from './duration';

export interface Profile {
  description: string;
  /** Page views per second at the edge during second t (t = 0, 1, …). */
  rateAt(t: number): number;
  /** When the spike starts (time to triple counts from here); null: the profile has none. */
  riseAtS: number | null;
  /** How riseAtS was found, for the report. */
  riseNote: string;
  /** Run length when --duration is not given. */
  defaultDurationS: number;
}

const afterRiseS = 30 * 60;

function rate(raw: string, spec: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0) throw new InputError(`--profile ${spec}: "${raw}" is not a rate (views per second)`);
  return value;
}

export function parseProfile(spec: string): Profile {
  const [kind, ...rest] = spec.split(':');
  const body = rest.join(':');
  if (kind === 'steady' && rest.length === 1) {
    const views = rate(body, spec);
    return { description: `steady ${views} views/s`, rateAt: () => views, riseAtS: null, riseNote: 'no rise in a steady profile', defaultDurationS: 60 * 60 };
  }
  const step = /^([^:@]+):([^:@]+)@([^-]+)$/.exec(body);
  if (kind === 'step' && step) {
    const from = rate(step[1]!, spec);
    const to = rate(step[2]!, spec);
    const at = parseDuration(step[3]!, `--profile ${spec}`);
    return {
      description: `${from} views/s, stepping to ${to} at ${step[3]}`,
      rateAt: (t) => (t < at ? from : to),
      riseAtS: to > from ? at : null,
      riseNote: to > from ? 'the step' : 'the step goes down: no rise',
      defaultDurationS: at + afterRiseS,
    };
  }
  const ramp = /^([^:@]+):([^:@]+)@([^-]+)-(.+)$/.exec(body);
  if (kind === 'ramp' && ramp) {
    const from = rate(ramp[1]!, spec);
    const to = rate(ramp[2]!, spec);
    const start = parseDuration(ramp[3]!, `--profile ${spec}`);
    const end = parseDuration(ramp[4]!, `--profile ${spec}`);
    if (end <= start) throw new InputError(`--profile ${spec}: the ramp must end after it starts`);
    return {
      description: `${from} views/s, ramping to ${to} from ${ramp[3]} to ${ramp[4]}`,
      rateAt: (t) => (t < start ? from : t >= end ? to : from + ((to - from) * (t - start)) / (end - start)),
      riseAtS: to > from ? start : null,
      riseNote: to > from ? 'the start of the ramp' : 'the ramp goes down: no rise',
      defaultDurationS: end + afterRiseS,
    };
  }
  throw new InputError(`--profile "${spec}": expected steady:RATE, step:FROM:TO@TIME or ramp:FROM:TO@START-END (e.g. step:1000:3000@10m)`);
}

/** A spike in a CSV starts where the rate first exceeds the first row's by this factor. */
export const csvRiseFactor = 1.25;

/**
 * A CSV of `time,rate` rows: time from the start of the run (90, 90s, 10m), rate in page views
 * per second at the edge. Each rate holds until the next row's time, so rows can be a second
 * apart or a minute apart. The first row is at time 0, times increase. Lines starting with #
 * and blank lines are skipped; a first line that does not start with a time is a header, and a
 * header whose second column ends in "per_min" (e.g. `time,views_per_min`, what a per-minute
 * CloudWatch Sum gives) means the rates are per minute and are divided by 60.
 */
export function parseProfileCsv(text: string, name: string): Profile {
  const rows: [number, number][] = [];
  let perMinute = false;
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const fields = trimmed.split(',').map((f) => f.trim());
    const where = `${name} line ${index + 1}`;
    if (rows.length === 0 && !/^\d/.test(fields[0] ?? '')) {
      perMinute = /per_?min(ute)?$/i.test(fields[1] ?? '');
      continue;
    }
    if (fields.length < 2) throw new InputError(`${where}: expected time,rate`);
    const time = parseDuration(fields[0]!, where);
    const value = Number(fields[1]);
    if (fields[1] === '' || !Number.isFinite(value) || value < 0) throw new InputError(`${where}: "${fields[1]}" is not a rate`);
    if (rows.length === 0 && time !== 0) throw new InputError(`${where}: the first row must be at time 0`);
    if (rows.length > 0 && time <= rows[rows.length - 1]![0]) throw new InputError(`${where}: times must increase`);
    rows.push([time, perMinute ? value / 60 : value]);
  }
  if (rows.length === 0) throw new InputError(`${name}: no rows`);
  const lastGap = rows.length > 1 ? rows[rows.length - 1]![0] - rows[rows.length - 2]![0] : 60;
  const rateAt = (t: number): number => {
    let low = 0;
    let high = rows.length - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (rows[mid]![0] <= t) low = mid;
      else high = mid - 1;
    }
    return rows[low]![1];
  };
  const base = rows[0]![1];
  const rise = rows.find(([, value]) => (base === 0 ? value > 0 : value > base * csvRiseFactor));
  return {
    description: `${name} (${rows.length} rows${perMinute ? ', per minute' : ''})`,
    rateAt,
    riseAtS: rise ? rise[0] : null,
    riseNote: rise ? `the first row above ${csvRiseFactor}× the first row's rate` : `no row above ${csvRiseFactor}× the first row's rate`,
    defaultDurationS: rows[rows.length - 1]![0] + lastGap,
  };
}
