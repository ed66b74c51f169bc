// npm start: build if dist/ is missing or stale, seed the content store if it is empty, then
// run the cluster in production mode on PORT (default 3000).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isEmptyStore, seedStore } from '../server/content/seed';
import { loadConfig } from '../server/config';
import { staleBuildReason } from './build-state';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const usage = `Usage: npm start [-- --no-build] [-- --no-seed]

Builds Kiosk if the build is missing or older than the sources, seeds the embedded content
store if it is empty, and starts one worker per CPU (WEB_CONCURRENCY) on PORT (default 3000).
NODE_ENV defaults to production. See the configuration table in README.md.

  --no-build   start even if the build looks stale (fails if it is missing)
  --no-seed    do not seed an empty content store
  -h, --help   show this help`;

function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { 'no-build': { type: 'boolean' }, 'no-seed': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(usage);
    return;
  }

  const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' };
  const config = loadConfig(env);

  const stale = staleBuildReason(root);
  if (stale && !values['no-build']) {
    console.log(`start: building (${stale})`);
    const build = spawnSync('npx', ['webpack', '--mode', 'production'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }

  const seeding =
    !values['no-seed'] && isEmptyStore(config.contentDbPath)
      ? seedStore(config.contentDbPath, { log: (line) => console.log(line) })
      : Promise.resolve();

  void seeding.then(() => {
    const server = spawn(process.execPath, ['--enable-source-maps', path.join(root, 'dist/server/index.cjs')], {
      cwd: root,
      env,
      stdio: 'inherit',
    });
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => server.kill(signal));
    }
    server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}

main();
