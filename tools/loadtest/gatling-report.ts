// Reads a Gatling 3.15 HTML report. Its simulation.log is binary and undocumented, and the
// report ships no stats.json, so the figures come from what the report shows a person:
// the statistics table of index.html (counts and percentiles of every group and request) and
// the "Ranges" chart of each request's page (its counts per response-time band).
import fs from 'node:fs';
import path from 'node:path';

/** Counts per band of Gatling's ranges chart: OK under the lower bound, between, over the upper, and KO. */
export interface Bands {
  lowerMs: number;
  upperMs: number;
  under: number;
  between: number;
  over: number;
  failed: number;
}

export interface StatsRow {
  /** Gatling's row id: "ROOT" for all requests, "group_…" or "req_…". */
  id: string;
  parent: string | null;
  kind: 'all' | 'group' | 'request';
  name: string;
  /** The row's own page in the report (index.html for all requests). */
  page: string;
  total: number;
  ok: number;
  ko: number;
  /** Gatling's "Cnt/s": the row's count over the whole run's duration. */
  perS: number | null;
  minMs: number | null;
  maxMs: number | null;
  meanMs: number | null;
  /** By rank as the table's header names them: 50 → p50 in ms. */
  percentilesMs: Map<number, number | null>;
}

export interface GatlingReport {
  dir: string;
  rows: StatsRow[];
  /** Bands of every request row and of all requests (ROOT), by row id. Groups have none of their own. */
  bands: Map<string, Bands>;
}

export class ReportFormatError extends Error {
  override name = 'ReportFormatError';
}

function decodeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function stripTags(html: string): string {
  return decodeHtml(html.replace(/<[^>]+>/g, '')).trim();
}

/** "1,234", "12.5", "-" → number or null (Gatling writes "-" where there is nothing to show). */
function cellNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  const clean = text.trim().replace(/,/g, '');
  if (clean === '' || clean === '-') return null;
  const value = Number(clean);
  return Number.isFinite(value) ? value : null;
}

function section(html: string, startMarker: string, endMarker: string): string {
  const start = html.indexOf(startMarker);
  if (start < 0) throw new ReportFormatError(`no ${startMarker} in the report`);
  const end = html.indexOf(endMarker, start);
  return html.slice(start, end < 0 ? undefined : end);
}

/** Column number → header label ("Total", "KO", "50th pct", …). */
function readHeader(html: string): Map<number, string> {
  const head = section(html, 'id="container_statistics_head"', '</thead>');
  const columns = new Map<number, string>();
  for (const match of head.matchAll(/<th[^>]*\bid="col-(\d+)"[^>]*>([\s\S]*?)<\/th>/g)) {
    columns.set(Number(match[1]), stripTags(match[2]!));
  }
  if (columns.size === 0) throw new ReportFormatError('the statistics table has no column headers');
  return columns;
}

/** The statistics table of index.html: every row, in the order shown (parents before children). */
export function readStatsTable(html: string): StatsRow[] {
  const header = readHeader(html);
  const column = (label: string): number => {
    for (const [n, text] of header) if (text.toLowerCase() === label.toLowerCase()) return n;
    throw new ReportFormatError(`the statistics table has no "${label}" column (columns: ${[...header.values()].join(', ')})`);
  };
  const cols = {
    total: column('Total'),
    ok: column('OK'),
    ko: column('KO'),
    perS: column('Cnt/s'),
    min: column('Min'),
    max: column('Max'),
    mean: column('Mean'),
  };
  const percentileColumns: [number, number][] = [];
  for (const [n, text] of header) {
    const match = /^([\d.]+)(?:st|nd|rd|th) pct$/.exec(text);
    if (match) percentileColumns.push([Number(match[1]), n]);
  }

  const table = section(html, 'id="container_statistics_head"', 'id="statistics_table_modal"');
  const rows: StatsRow[] = [];
  for (const match of table.matchAll(/<tr id="([^"]+)"\s*(?:data-parent="([^"]*)")?\s*>([\s\S]*?)<\/tr>/g)) {
    const [, id, parent, body] = match as unknown as [string, string, string | undefined, string];
    const cells = new Map<number, string>();
    for (const cell of body.matchAll(/<td class="value[^"]*\bcol-(\d+)"[^>]*>([\s\S]*?)<\/td>/g)) {
      cells.set(Number(cell[1]), stripTags(cell[2]!));
    }
    const name = /class="ellipsed-name">([\s\S]*?)<\/span>/.exec(body)?.[1];
    const page = /<a href="([^"]+)"/.exec(body)?.[1];
    if (name === undefined || page === undefined) throw new ReportFormatError(`row ${id} has no name or link`);
    const count = (n: number) => cellNumber(cells.get(n)) ?? 0;
    rows.push({
      id,
      parent: parent ?? null,
      kind: id === 'ROOT' ? 'all' : id.startsWith('group_') ? 'group' : 'request',
      name: decodeHtml(name).trim(),
      page: decodeHtml(page),
      total: count(cols.total),
      ok: count(cols.ok),
      ko: count(cols.ko),
      perS: cellNumber(cells.get(cols.perS)),
      minMs: cellNumber(cells.get(cols.min)),
      maxMs: cellNumber(cells.get(cols.max)),
      meanMs: cellNumber(cells.get(cols.mean)),
      percentilesMs: new Map(percentileColumns.map(([rank, n]) => [rank, cellNumber(cells.get(n))])),
    });
  }
  if (!rows.some((r) => r.kind === 'all')) throw new ReportFormatError('the statistics table has no "All Requests" row');
  return rows;
}

/** The counts of a page's "Ranges" chart, with the bounds read from its category labels. */
export function readBands(html: string): Bands {
  const start = html.indexOf("renderTo: 'RangesContainerId'");
  if (start < 0) throw new ReportFormatError('no ranges chart on the page');
  const next = html.indexOf('new Highcharts', start);
  const chart = html.slice(start, next < 0 ? undefined : next);
  const categories = /categories:\s*\[([\s\S]*?)\]/.exec(chart)?.[1];
  const column = /type:\s*'column',\s*data:\s*\[([\s\S]*?)\]\s*\}/.exec(chart)?.[1];
  if (categories === undefined || column === undefined) throw new ReportFormatError('the ranges chart has no categories or counts');
  const bounds = [...categories.matchAll(/(\d+) ms/g)].map((m) => Number(m[1]));
  const counts = [...column.matchAll(/\by:\s*(\d+)/g)].map((m) => Number(m[1]));
  if (counts.length !== 4 || bounds.length < 2) {
    throw new ReportFormatError(`the ranges chart has ${counts.length} counts and bounds ${bounds.join(', ')}; expected 4 counts and 2 bounds`);
  }
  const [under, between, over, failed] = counts as [number, number, number, number];
  return { lowerMs: Math.min(...bounds), upperMs: Math.max(...bounds), under, between, over, failed };
}

export function readReport(dir: string): GatlingReport {
  const indexFile = path.join(dir, 'index.html');
  if (!fs.existsSync(indexFile)) throw new ReportFormatError(`no index.html in ${dir}`);
  const index = fs.readFileSync(indexFile, 'utf8');
  const rows = readStatsTable(index);
  const bands = new Map<string, Bands>();
  for (const row of rows) {
    if (row.kind === 'group') continue;
    const html = row.kind === 'all' ? index : fs.readFileSync(path.join(dir, path.basename(row.page)), 'utf8');
    bands.set(row.id, readBands(html));
  }
  return { dir, rows, bands };
}
