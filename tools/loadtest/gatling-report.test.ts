// The report reader and the summary on an excerpt of a real report: `npm run loadtest --
// --simulation capacity --rates 100,400 --step-hold 2 --warm-up 0 --share-connections` against
// one worker with SSR_QUEUE_LIMIT=1 and SHED_QUEUE_LIMIT=3, so every render mode and some 503s
// show. Only the statistics table and the ranges charts were kept from its pages.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readBands, readReport, readStatsTable, ReportFormatError } from './gatling-report';
import { loadtestDir } from './feed';
import { renderModeNames, renderSummary, summarize } from './summary';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'capacity-report');

test('the statistics table: every group and request with its counts and percentiles', () => {
  const rows = readStatsTable(fs.readFileSync(path.join(fixture, 'index.html'), 'utf8'));
  assert.deepEqual(
    rows.map((r) => `${r.kind} ${r.name}`),
    ['all All Requests', 'group 100 req/s', 'request ssr', 'request shell', 'request shed', 'group 400 req/s', 'request shed', 'request shell', 'request ssr'],
  );
  const all = rows[0]!;
  assert.equal(all.total, 1000);
  assert.equal(all.ok, 914);
  assert.equal(all.ko, 86);
  assert.deepEqual([...all.percentilesMs.keys()], [50, 95, 99, 99.9]);
  assert.equal(all.percentilesMs.get(50), 4);
  assert.equal(all.percentilesMs.get(99), 97);
  for (const group of rows.filter((r) => r.kind === 'group')) {
    const children = rows.filter((r) => r.parent === group.id);
    assert.equal(children.length, 3);
    assert.equal(group.total, children.reduce((n, c) => n + c.total, 0), group.name);
    assert.equal(group.ko, children.reduce((n, c) => n + c.ko, 0), group.name);
  }
  const shed = rows.filter((r) => r.name === 'shed');
  assert.ok(shed.every((r) => r.ok === 0 && r.ko > 0), 'the 503s are failures');
});

test('bands: each request page has its own, and they add up to all requests', () => {
  const report = readReport(fixture);
  const all = report.bands.get('ROOT')!;
  assert.deepEqual(all, { lowerMs: 800, upperMs: 1200, under: 914, between: 0, over: 0, failed: 86 });
  const requests = report.rows.filter((r) => r.kind === 'request').map((r) => report.bands.get(r.id)!);
  assert.equal(requests.length, 6);
  for (const key of ['under', 'between', 'over', 'failed'] as const) {
    assert.equal(requests.reduce((n, b) => n + b[key], 0), all[key], key);
  }
});

test('summary: one row per step, render modes as shares of its pages, rate over the step', () => {
  const summary = summarize(readReport(fixture), new Map([['100 req/s', 2], ['400 req/s', 2]]));
  assert.deepEqual(
    summary.steps.map(({ name, requests, ok, ko, perS, pages, ssr, shell }) => ({ name, requests, ok, ko, perS, pages, ssr, shell })),
    [
      { name: '100 req/s', requests: 200, ok: 191, ko: 9, perS: 100, pages: 200, ssr: 175, shell: 16 },
      { name: '400 req/s', requests: 800, ok: 723, ko: 77, perS: 400, pages: 800, ssr: 494, shell: 229 },
    ],
  );
  assert.deepEqual([summary.steps[0]!.p50Ms, summary.steps[0]!.p95Ms, summary.steps[0]!.p99Ms], [4, 97, 143]);
  assert.equal(summary.all.requests, 1000);
  assert.equal(summary.all.ssr, 669);
  assert.equal(summary.all.perS, 166.67, "without a duration, Gatling's Cnt/s");

  const table = renderSummary(summary).split('\n');
  assert.match(table[0]!, /^\| step \| requests \| req\/s \| server-rendered \| last good \| shell \| p50 ms \| p95 ms \| p99 ms \| < 800 ms \| 800–1,200 ms \| > 1,200 ms \| failed \(KO\) \|$/);
  assert.equal(table[2], '| 100 req/s | 200 | 100 | 88% | 0% | 8% | 4 | 97 | 143 | 96% | 0% | 0% | 9 (5%) |');
  assert.equal(table[4], '| **all requests** | 1,000 | 167 | 67% | 0% | 25% | 4 | 17 | 97 | 91% | 0% | 0% | 86 (9%) |');
});

test("summary: pages Nginx answered from the last good copy are a column of their own, never server-rendered or shell", () => {
  const report = readReport(fixture);
  // The fixture's first step, with its shell requests renamed as PageViews.java names a page
  // answered "X-Render-Mode: last-good" (by the header's value).
  const firstShell = report.rows.find((r) => r.kind === 'request' && r.name === renderModeNames.shell)!;
  const rows = report.rows.map((r) => (r === firstShell ? { ...r, name: 'last-good' } : r));
  const summary = summarize({ ...report, rows }, new Map([['100 req/s', 2], ['400 req/s', 2]]));
  const [first] = summary.steps;
  assert.deepEqual([first!.ssr, first!.lastGood, first!.shell], [175, 16, 0]);
  assert.equal(summary.all.lastGood, 16);
  assert.equal(renderSummary(summary).split('\n')[2], '| 100 req/s | 200 | 100 | 88% | 8% | 0% | 4 | 97 | 143 | 96% | 0% | 0% | 9 (5%) |');
});

test('a page that is not what the reader expects fails with ReportFormatError, not a wrong figure', () => {
  assert.throws(() => readStatsTable('<html><body>no table</body></html>'), ReportFormatError);
  assert.throws(() => readBands('<html></html>'), ReportFormatError);
  const oneBandShort = "renderTo: 'RangesContainerId' categories: [\"t < 800 ms\", \"t >= 1200 ms\"] type: 'column', data: [{ y: 1 }, { y: 2 }] }";
  assert.throws(() => readBands(oneBandShort), /expected 4 counts/);
  assert.throws(() => readReport(path.join(fixture, 'missing')), /no index\.html/);
});

test('the render-mode names match the ones PageViews.java reports', () => {
  const java = fs.readFileSync(path.join(loadtestDir, 'src/test/java/kiosk/loadtest/PageViews.java'), 'utf8');
  const constant = (name: string) => new RegExp(`String ${name} = "([^"]+)";`).exec(java)?.[1];
  assert.equal(constant('SSR'), renderModeNames.ssr);
  assert.equal(constant('SHELL'), renderModeNames.shell);
  assert.equal(constant('NO_MODE'), renderModeNames.none);
});
