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
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleBuildReason } from './build-state';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tierNames = ['fast', 'services', 'browser'] as const;
type Tier = (typeof tierNames)[number];

const usage = `Usage: tsx scripts/run-tests.ts --fast | --services | --browser | --all

  --fast      *.test.ts: in-process, nothing started (the inner loop)
  --services  *.services.test.ts: real sockets, SQLite files, PostgreSQL, Nginx, moto, the built cluster
  --browser   *.browser.test.ts: real Chromium
  --all       the three in turn`;

const flags = new Set(process.argv.slice(2).map((a) => a.replace(/^--/, '')));
if (flags.has('help') || flags.has('h')) {
  console.log(usage);
  process.exit(0);
}
const unknown = [...flags].filter((f) => f !== 'all' && !(tierNames as readonly string[]).includes(f));
if (flags.size === 0 || unknown.length > 0) {
  console.error(unknown.length > 0 ? `run-tests: unknown ${unknown.map((f) => `--${f}`).join(', ')}\n${usage}` : usage);
  process.exit(2);
}
const tiers = tierNames.filter((tier) => flags.has('all') || flags.has(tier));

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
  const files = all.filter((file) => tierOf(file) === tier);
  if (files.length === 0) {
    console.error(`run-tests: no ${tier} test files found`);
    process.exit(1);
  }
  console.log(`run-tests: ${tier} tier, ${files.length} files`);
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test' },
  });
  results.push({ tier, files: files.length, seconds: (performance.now() - started) / 1000, passed: run.status === 0 });
}

for (const { tier, files, seconds, passed } of results) {
  console.log(`run-tests: ${tier} tier: ${files} files in ${seconds.toFixed(0)} s, ${passed ? 'passed' : 'FAILED'}`);
}
process.exit(results.every((r) => r.passed) ? 0 : 1);
