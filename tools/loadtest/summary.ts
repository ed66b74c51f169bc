// The summary `npm run loadtest` prints: one row per step of the run, read from Gatling's report.
import type { Bands, GatlingReport, StatsRow } from './gatling-report';

/**
 * The request names PageViews.java gives a page by its X-Render-Mode (other values go by
 * their own name, such as "shed"); a unit test checks that the two files agree.
 */
export const renderModeNames = { ssr: 'ssr', lastGood: 'last-good', shell: 'shell', none: 'no X-Render-Mode' } as const;

export interface StepSummary {
  /** The group (a rate step, "article page", "landing page") or a request outside any group. */
  name: string;
  requests: number;
  ok: number;
  ko: number;
  /** Requests per second over the step's own duration when known, else Gatling's Cnt/s. */
  perS: number | null;
  /** Page requests among them (the rest are /api calls); null for rows that are not pages. */
  pages: number | null;
  /** Pages answered 200 with X-Render-Mode ssr / last-good (Nginx's last good copy) / shell. */
  ssr: number | null;
  lastGood: number | null;
  shell: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  bands: Bands;
}

export interface RunSummary {
  reportDir: string;
  steps: StepSummary[];
  all: StepSummary;
}

function sumBands(list: Bands[]): Bands {
  const first = list[0];
  if (!first) throw new Error('no bands to add up');
  for (const b of list) {
    if (b.lowerMs !== first.lowerMs || b.upperMs !== first.upperMs) throw new Error('bands with different bounds cannot be added up');
  }
  return list.reduce((a, b) => ({
    ...a,
    under: a.under + b.under,
    between: a.between + b.between,
    over: a.over + b.over,
    failed: a.failed + b.failed,
  }));
}

/** The percentile Gatling's report gives for this row (it computes them; nothing is computed here). */
function reportedPercentile(row: StatsRow, rank: number): number | null {
  if (!row.percentilesMs.has(rank)) {
    throw new Error(`the report has no ${rank}th percentile column; gatling.conf must track 50, 95 and 99`);
  }
  return row.percentilesMs.get(rank) ?? null;
}

interface Modes {
  pages: number;
  ssr: number;
  lastGood: number;
  shell: number;
}

function fromRow(row: StatsRow, bands: Bands, modes: Modes | null, seconds: number | undefined): StepSummary {
  return {
    name: row.name,
    requests: row.total,
    ok: row.ok,
    ko: row.ko,
    perS: seconds ? row.total / seconds : row.perS,
    pages: modes ? modes.pages : null,
    ssr: modes ? modes.ssr : null,
    lastGood: modes ? modes.lastGood : null,
    shell: modes ? modes.shell : null,
    p50Ms: reportedPercentile(row, 50),
    p95Ms: reportedPercentile(row, 95),
    p99Ms: reportedPercentile(row, 99),
    maxMs: row.maxMs,
    bands,
  };
}

/**
 * One row per top-level group or request, in the report's order. Only PageViews.java makes
 * groups, so a group is a step of page requests and its children are named by render mode: their counts and bands add up to the group's, while the
 * percentiles are the group's own (its cumulated response time is its one request's).
 * `stepSeconds` gives the duration of steps whose rate should be counted over that time.
 */
export function summarize(report: GatlingReport, stepSeconds: ReadonlyMap<string, number> = new Map()): RunSummary {
  const bandsOf = (row: StatsRow): Bands => {
    const bands = report.bands.get(row.id);
    if (!bands) throw new Error(`no bands read for ${row.name}`);
    return bands;
  };
  const root = report.rows.find((r) => r.kind === 'all')!;
  const steps: StepSummary[] = [];
  for (const row of report.rows.filter((r) => r.parent === root.id)) {
    if (row.kind === 'request') {
      steps.push(fromRow(row, bandsOf(row), null, stepSeconds.get(row.name)));
      continue;
    }
    const children = report.rows.filter((r) => r.parent === row.id && r.kind === 'request');
    const modes = { pages: row.total, ssr: 0, lastGood: 0, shell: 0 };
    for (const child of children) {
      if (child.name === renderModeNames.ssr) modes.ssr += child.ok;
      else if (child.name === renderModeNames.lastGood) modes.lastGood += child.ok;
      else if (child.name === renderModeNames.shell) modes.shell += child.ok;
    }
    if (children.length === 0) throw new Error(`group ${row.name} has no requests`);
    steps.push(fromRow(row, sumBands(children.map(bandsOf)), modes, stepSeconds.get(row.name)));
  }
  const pages = steps.filter((s) => s.ssr !== null);
  const allModes = pages.length
    ? {
        pages: sum(pages.map((s) => s.pages ?? 0)),
        ssr: sum(pages.map((s) => s.ssr ?? 0)),
        lastGood: sum(pages.map((s) => s.lastGood ?? 0)),
        shell: sum(pages.map((s) => s.shell ?? 0)),
      }
    : null;
  const all = fromRow(root, bandsOf(root), allModes, undefined);
  return { reportDir: report.dir, steps, all: { ...all, name: 'all requests' } };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

const integer = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 });

function count(value: number | null): string {
  return value === null ? '–' : integer.format(value);
}

function share(part: number | null, whole: number | null): string {
  if (part === null || whole === null || whole === 0) return '–';
  const value = (part / whole) * 100;
  return `${value > 0 && value < 1 ? '<1' : Math.round(value)}%`;
}

/**
 * The steps as a markdown table: the newsroom's columns plus percentiles and the bands.
 * Server-rendered, last good and shell are shares of the page requests; the bands and KO of all
 * requests.
 */
export function renderSummary(summary: RunSummary): string {
  const { lowerMs, upperMs } = summary.all.bands;
  const header = [
    'step',
    'requests',
    'req/s',
    'server-rendered',
    'last good',
    'shell',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    `< ${integer.format(lowerMs)} ms`,
    `${integer.format(lowerMs)}–${integer.format(upperMs)} ms`,
    `> ${integer.format(upperMs)} ms`,
    'failed (KO)',
  ];
  const line = (s: StepSummary) => [
    s.name,
    count(s.requests),
    s.perS === null ? '–' : s.perS < 10 ? oneDecimal.format(s.perS) : integer.format(s.perS),
    share(s.ssr, s.pages),
    share(s.lastGood, s.pages),
    share(s.shell, s.pages),
    count(s.p50Ms),
    count(s.p95Ms),
    count(s.p99Ms),
    share(s.bands.under, s.requests),
    share(s.bands.between, s.requests),
    share(s.bands.over, s.requests),
    s.ko === 0 ? '0' : `${count(s.ko)} (${share(s.ko, s.requests)})`,
  ];
  const rows = [...summary.steps.map(line), line(summary.all).map((cell, i) => (i === 0 ? `**${cell}**` : cell))];
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [header, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
