// npm start: build if dist/ is missing or stale, seed the content store if it is empty, then
// run the cluster in production mode on PORT (default 3000).
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config';
import { prepareToServe, root, serverBundle } from './prepare';

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

  const preparing = prepareToServe({ build: !values['no-build'], seed: !values['no-seed'] && config.contentApiUrl === null && config.contentDatabaseUrl === null, contentDbPath: config.contentDbPath, name: 'start' });
  void preparing.then(() => {
    const server = spawn(process.execPath, ['--enable-source-maps', serverBundle], {
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
