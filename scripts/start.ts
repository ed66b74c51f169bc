// npm start: build if dist/ is missing or stale, seed the content store with demo articles if
// it is empty (the local quick start asks for them: SEED_DEMO_CONTENT=true unless set), then
// run the cluster in production mode on PORT (default 3000).
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config';
import { prepareToServe, root, serverBundle } from './prepare';

const usage = `Usage: npm start [-- --no-build] [-- --no-seed]

Builds Kiosk if the build is missing or older than the sources, seeds the embedded content
store with demo articles if it is empty, and starts one worker per CPU (WEB_CONCURRENCY) on
PORT (default 3000). NODE_ENV defaults to production. This is the local quick start, so it
asks for the demo seed (SEED_DEMO_CONTENT=true) unless SEED_DEMO_CONTENT is set; without
demo content, an empty store is an error. See the configuration table in README.md.

  --no-build   start even if the build looks stale (fails if it is missing)
  --no-seed    do not seed an empty content store (same as SEED_DEMO_CONTENT=false)
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

  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' };
  const contentApi = env.CONTENT_API_URL !== undefined && env.CONTENT_API_URL !== '';
  if (values['no-seed']) env.SEED_DEMO_CONTENT = 'false';
  else if (env.SEED_DEMO_CONTENT === undefined && !contentApi) {
    env.SEED_DEMO_CONTENT = 'true';
    console.log('start: SEED_DEMO_CONTENT=true (the local quick start): an empty content store is seeded with made-up demo articles; set SEED_DEMO_CONTENT=false or pass --no-seed to start without');
  }
  const config = loadConfig(env);

  const preparing = prepareToServe({ build: !values['no-build'], seed: config.seedDemoContent, contentDbPath: config.contentDbPath, name: 'start' });
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
