// `npm run loadtest` end to end: each Gatling simulation, briefly and at a low rate, through the
// real command, against the built server (one worker, a temporary seeded store).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, repositoryRoot, seedTempStore, startBuiltServer, type BuiltServer } from '@kiosk/surface';
import { writeFeed } from './feed';
import { runMaven } from './gatling-run';
import type { RunSummary, StepSummary } from './summary';

const here = path.dirname(fileURLToPath(import.meta.url));
const minutes = 60_000;

let dir: string;
let feed: string;
let server: BuiltServer;
const reports: string[] = [];

before(
  async () => {
    let dbPath: string;
    ({ dir, dbPath } = await seedTempStore(600, 10));
    feed = path.join(dir, 'article-urls.csv');
    writeFeed(dbPath, feed);
    server = await startBuiltServer(dbPath);
    // On a clean machine this downloads Maven, Gatling and the plugin (about 75 MB) once, so
    // the first simulation is timed on its own work.
    const output: string[] = [];
    const code = await runMaven(['--batch-mode', '--no-transfer-progress', '--quiet', 'test-compile', 'gatling:help'], (l) => output.push(l));
    assert.equal(code, 0, `Maven could not compile the simulations:\n${output.join('\n')}`);
  },
  { timeout: 10 * minutes },
);

after(async () => {
  await server?.stop();
  for (const report of reports) fs.rmSync(report, { recursive: true, force: true });
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function loadtest(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'loadtest.ts'), ...args], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a simulation; checks what every run must show and returns its summary. */
async function simulate(args: string[]): Promise<RunSummary> {
  const run = await loadtest([...args, '--base-url', server.baseUrl, '--feed', feed]);
  const said = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  assert.equal(run.code, 0, said);
  const reportUrl = /^HTML report: (file:\S+)$/m.exec(run.stdout)?.[1];
  const summaryFile = /^Summary \(JSON\): (.+)$/m.exec(run.stdout)?.[1];
  assert.ok(reportUrl && summaryFile, said);
  const index = fileURLToPath(reportUrl);
  reports.push(path.dirname(index));
  assert.ok(fs.statSync(index).size > 10_000, 'the HTML report is written');
  assert.match(run.stderr, /\d+ s: [\d,]+ requests, 0 KO/, 'progress was shown');
  assert.match(run.stdout, /^\| step \| requests \|/m, 'the summary table is printed');

  const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as RunSummary;
  assert.equal(summary.all.ko, 0, `no request failed:\n${said}`);
  assert.ok(summary.all.requests > 0);
  assert.equal(summary.all.requests, summary.steps.reduce((n, s) => n + s.requests, 0), 'the steps add up to all requests');
  assert.equal(summary.all.bands.failed, 0);
  for (const step of summary.steps.filter((s) => s.pages !== null)) {
    assert.equal(step.ssr! + step.shell!, step.requests, `${step.name}: every page was ssr or shell`);
    const share = step.ssr! / step.pages!;
    assert.ok(share >= 0 && share <= 1, `${step.name}: server-rendered share ${share}`);
    assert.ok(step.p50Ms !== null && step.p50Ms <= step.p95Ms! && step.p95Ms! <= step.p99Ms!, `${step.name}: percentiles in order`);
    assert.equal(step.bands.under + step.bands.between + step.bands.over, step.requests, `${step.name}: every request in a band`);
  }
  return summary;
}

function step(summary: RunSummary, name: string): StepSummary {
  const found = summary.steps.find((s) => s.name === name);
  assert.ok(found, `a step named "${name}" in ${summary.steps.map((s) => s.name).join(', ')}`);
  return found;
}

test('capacity: each step sends exactly its rate for its hold, and the table has one row per step', { timeout: 5 * minutes }, async () => {
  const summary = await simulate(['--simulation', 'capacity', '--rates', '10,20', '--step-hold', '3', '--warm-up', '1', '--warm-up-rps', '5']);
  assert.deepEqual(summary.steps.map((s) => [s.name, s.requests, s.perS]), [
    ['warm-up', 5, 5],
    ['10 req/s', 30, 10],
    ['20 req/s', 60, 20],
  ]);
});

test('stress: the throttle holds the rate, and every request is reported by render mode', { timeout: 5 * minutes }, async () => {
  const summary = await simulate(['--simulation', 'stress', '--rps', '20', '--reach', '2', '--hold', '0.1', '--users', '10']);
  const page = step(summary, 'article page');
  // 20 req/s: a 2 s ramp (about 20 requests) and a 6 s hold (120).
  assert.ok(page.requests >= 100 && page.requests <= 160, `${page.requests} requests for about 140`);
  assert.deepEqual(summary.steps.map((s) => s.name), ['article page']);
});

test('journey: readers land on a page, then read on through /api, 3 or 4 page views each', { timeout: 5 * minutes }, async () => {
  const summary = await simulate(['--simulation', 'journey', '--rps', '20', '--reach', '1', '--hold', '0.1', '--think', '0.05-0.2']);
  const landing = step(summary, 'landing page');
  assert.ok(landing.requests > 10, `${landing.requests} readers`);
  assert.equal(step(summary, 'api section').requests, landing.requests, 'every reader opened the section');
  assert.equal(step(summary, 'api article').requests, landing.requests, 'and another article');
  const front = summary.steps.find((s) => s.name === 'api front')?.requests ?? 0;
  // 55% of readers go on to the front page: with more than ten readers, none or more than all is a fault.
  assert.ok(front > 0 && front <= landing.requests, `${front} of ${landing.requests} readers went on to the front page`);
  const shellData = summary.steps.find((s) => s.name === 'shell: article')?.requests ?? 0;
  assert.equal(shellData, landing.shell, 'a reader who got the shell loaded its article from /api');
});

test('a bad flag is a usage error (exit 2); an unreachable site stops the run before Maven (exit 1)', async () => {
  const bad = await loadtest(['--simulation', 'capacity', '--rps', '10']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--rps applies to --simulation stress or journey/);
  const port = await freePort();
  const closed = await loadtest(['--base-url', `http://127.0.0.1:${port}`, '--feed', feed]);
  assert.equal(closed.code, 1);
  assert.match(closed.stderr, new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): is the site running there\\?`));
  assert.doesNotMatch(closed.stderr, /started/);
});
