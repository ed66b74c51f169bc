// Runs the node:test suites by tier. The files are found here rather than by --test globs, so a
// tier is one list that the three entries below share.
//   --unit     *.test.ts(x): unit tests and the app over a real socket (seconds, no build needed)
//   --browser  *.browser.test.ts and *.e2e.test.ts: the built server, the cluster and real Chromium
//   --all      both
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tiers = new Set(process.argv.slice(2).map((a) => a.replace(/^--/, '')));
if (tiers.size === 0 || tiers.has('help') || tiers.has('h')) {
  console.log('Usage: tsx scripts/run-tests.ts --unit | --browser | --all');
  process.exit(tiers.size === 0 ? 2 : 0);
}

function find(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return find(full);
    return /\.test\.tsx?$/.test(entry.name) ? [path.relative(root, full)] : [];
  });
}

const isSlow = (file: string) => /\.(browser|e2e)\.test\.tsx?$/.test(file);
const all = ['src', 'server', 'client', 'scripts', 'tools', 'test'].flatMap((d) => find(path.join(root, d))).sort();
const files = all.filter((f) => tiers.has('all') || (tiers.has('unit') && !isSlow(f)) || (tiers.has('browser') && isSlow(f)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'test' },
});
process.exit(result.status ?? 1);
