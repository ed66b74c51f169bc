// Runs the node:test suites by tier. A test file's name says what it starts, and so its tier:
//   fast      *.test.ts           in the test's own process, starting nothing: no socket, no child
//                                 process, no database (logic, configuration, renderings as text)
//   services  *.services.test.ts  real services the test starts itself: loopback sockets, SQLite
//                                 files, PostgreSQL clusters, Nginx, moto, cfn-lint, the C compiler,
//                                 Gatling, child processes, the built cluster
//   browser   *.browser.test.ts   real Chromium against the built server
// The files are found here rather than by --test globs, so each tier is one list. The services
// and browser tiers build first when dist/ is stale, as npm start does. Each tier is one
// `node --test` run and prints its wall time; --all runs the three in turn and fails if any did.
//
// Two files run at once (--concurrency), not node's default of one fewer than the cores (one
// here): most services files wait on a child process, a socket or a database, so the second
// file fills the wait (on 2 cores the services tier takes about two thirds of the time it takes
// one file at a time). Every test must hold on a busy machine anyway (CI passes with another
// whole suite beside it), so this asks nothing new of them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleBuildReason } from './build-state';
import { readCommandLine, refuse } from './cli';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tierNames = ['fast', 'services', 'browser'] as const;
type Tier = (typeof tierNames)[number];

const usage = `Usage: tsx scripts/run-tests.ts --fast | --services | --browser | --all [--concurrency N]

  --fast           *.test.ts: in-process, nothing started (the inner loop)
  --services       *.services.test.ts: real sockets, SQLite files, PostgreSQL, Nginx, moto, the built cluster
  --browser        *.browser.test.ts: real Chromium
  --all            the three in turn
  --concurrency N  test files run at once in each tier (default 2; 1 runs them one after another)
  --record-timings keep each file's measured seconds in scripts/test-timings.json, the order the
                   next runs start the files in (longest first)`;

const command = { name: 'run-tests', usage };
const line = readCommandLine({
  ...command,
  options: {
    fast: { type: 'boolean', default: false },
    services: { type: 'boolean', default: false },
    browser: { type: 'boolean', default: false },
    all: { type: 'boolean', default: false },
    concurrency: { type: 'string' },
    'record-timings': { type: 'boolean', default: false },
  },
});
if (!line.ok) process.exit(line.exitCode);
const { values } = line;
const tiers = tierNames.filter((tier) => values.all || values[tier]);
const concurrency = values.concurrency === undefined ? 2 : Number(values.concurrency);
if (tiers.length === 0) process.exit(refuse(command, 'name a tier: --fast, --services, --browser or --all'));
if (!/^\d+$/.test(values.concurrency ?? '2') || concurrency < 1) {
  process.exit(refuse(command, `--concurrency must be a whole number of files, 1 or more, got "${values.concurrency}"`));
}

// The longest files start first, so a tier does not end with one long file running alone on an
// idle core. How long each takes is measured, not written here: scripts/test-timings.json, which
// `--record-timings` writes from the run's own durations. A file it does not name yet starts
// among the first (its length is unknown); every file found runs either way.
const timingsFile = path.join(root, 'scripts', 'test-timings.json');
const recorded: Record<string, number> = fs.existsSync(timingsFile) ? (JSON.parse(fs.readFileSync(timingsFile, 'utf8')) as Record<string, number>) : {};
const secondsOf = (file: string) => recorded[file] ?? Number.POSITIVE_INFINITY;
const longestFirst = (a: string, b: string) => (secondsOf(a) === secondsOf(b) ? 0 : secondsOf(a) > secondsOf(b) ? -1 : 1);

function tierOf(file: string): Tier {
  if (/\.services\.test\.tsx?$/.test(file)) return 'services';
  if (/\.browser\.test\.tsx?$/.test(file)) return 'browser';
  return 'fast';
}

function find(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return find(full);
    return /\.test\.tsx?$/.test(entry.name) ? [path.relative(root, full)] : [];
  });
}

const all = ['src', 'server', 'client', 'scripts', 'tools', 'test'].flatMap((d) => find(path.join(root, d))).sort();

if (tiers.some((tier) => tier !== 'fast')) {
  const stale = staleBuildReason(root);
  if (stale) {
    console.log(`run-tests: building first (${stale})`);
    const build = spawnSync('npx', ['webpack', '--mode', 'production'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
}

const results: { tier: Tier; files: number; seconds: number; passed: boolean }[] = [];
for (const tier of tiers) {
  const files = all.filter((file) => tierOf(file) === tier).sort(longestFirst);
  if (files.length === 0) {
    console.error(`run-tests: no ${tier} test files found`);
    process.exit(1);
  }
  console.log(`run-tests: ${tier} tier, ${files.length} files, ${concurrency} at a time`);
  const started = performance.now();
  const timingsOut = path.join(os.tmpdir(), `kiosk-test-timings-${process.pid}-${tier}.json`);
  const reporters = values['record-timings']
    ? [
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${path.join(root, 'scripts', 'test-timings-reporter.mjs')}`,
        `--test-reporter-destination=${timingsOut}`,
      ]
    : ['--test-reporter=spec'];
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters, ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test' },
  });
  if (values['record-timings'] && fs.existsSync(timingsOut)) {
    for (const [file, seconds] of Object.entries(JSON.parse(fs.readFileSync(timingsOut, 'utf8')) as Record<string, number>)) {
      recorded[path.relative(root, file)] = Math.round(seconds * 10) / 10;
    }
    fs.rmSync(timingsOut, { force: true });
  }
  results.push({ tier, files: files.length, seconds: (performance.now() - started) / 1000, passed: run.status === 0 });
}

if (values['record-timings']) {
  const known = Object.fromEntries(
    Object.entries(recorded)
      .filter(([file]) => all.includes(file))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  fs.writeFileSync(timingsFile, `${JSON.stringify(known, null, 2)}\n`);
  console.log(`run-tests: wrote ${Object.keys(known).length} files' seconds to ${path.relative(root, timingsFile)}`);
}

for (const { tier, files, seconds, passed } of results) {
  console.log(`run-tests: ${tier} tier: ${files} files in ${seconds.toFixed(0)} s, ${passed ? 'passed' : 'FAILED'}`);
}
process.exit(results.every((r) => r.passed) ? 0 : 1);
