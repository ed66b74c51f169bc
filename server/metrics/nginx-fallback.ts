import fs from 'node:fs';

// Nginx answers a request itself when every worker is at its limit (a page's last good copy,
// the shell, or the API's 503) or a client is over its share of a write path (429), and writes one line per such answer to a log of its own (nginx/kiosk.conf.template:
// "$msec $kiosk_answer $upstream_addr"). The primary reads what was added since the last
// reading, counts it, and empties the file, so it never grows past one reading's worth. A line
// Nginx appends between the read and the truncate is lost from the count: at most one flush
// of Nginx's 16 KB buffer per reading, noted where the metric is described.

export interface FallbackCounts {
  /** Pages answered from their last good copy (server/last-good/). */
  lastGood: number;
  shell: number;
  busy503: number;
  /** Requests over a client's share of a write path (view beacons, sign-ups): 429. */
  limited: number;
}

const nginx503 = Buffer.from(' nginx-503 ');
const nginx429 = Buffer.from(' nginx-429 ');
const nginxLastGood = Buffer.from(' nginx-last-good ');

function occurrences(data: Buffer, needle: Buffer): number {
  let n = 0;
  for (let at = data.indexOf(needle); at !== -1; at = data.indexOf(needle, at + 1)) n++;
  return n;
}

export class NginxFallbackLog {
  /** Totals since start: counters that only rise. */
  readonly totals: FallbackCounts = { lastGood: 0, shell: 0, busy503: 0, limited: 0 };

  constructor(private readonly file: string) {}

  /** Adds what Nginx wrote since the last call to the totals; a missing file counts nothing. */
  read(): FallbackCounts {
    let data: Buffer;
    try {
      data = fs.readFileSync(this.file);
      if (data.length > 0) fs.truncateSync(this.file, 0);
    } catch {
      return this.totals;
    }
    let lines = 0;
    for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) lines++;
    const busy = occurrences(data, nginx503);
    const limited = occurrences(data, nginx429);
    const lastGood = occurrences(data, nginxLastGood);
    this.totals.lastGood += lastGood;
    this.totals.shell += lines - busy - limited - lastGood;
    this.totals.busy503 += busy;
    this.totals.limited += limited;
    return this.totals;
  }
}
