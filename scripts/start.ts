// npm start: build if dist/ is missing or stale, seed the content store with demo articles if
// it is empty (the local quick start asks for them: SEED_DEMO_CONTENT=true unless set), then
// run the cluster in production mode on PORT (default 3000).
import { spawn } from 'node:child_process';
import { readCommandLine } from './cli';
import { loadConfig, sqliteContentPath } from '../server/config';
import { listenPorts, takenPortSentence } from '../server/port-owner';
import { askForDemoContent, prepareToServe, root, serverBundle } from './prepare';

const usage = `Usage: npm start [-- --no-build] [-- --no-seed]

Builds Kiosk if the build is missing or older than the sources, seeds the embedded content
store with demo articles if it is empty, and starts one worker per CPU (WEB_CONCURRENCY) on
PORT (default 3000). NODE_ENV defaults to production. This is the local quick start, so it
asks for the demo seed (SEED_DEMO_CONTENT=true) unless SEED_DEMO_CONTENT is set; without
demo content, an empty store is an error. Every setting: docs/configuration.md.

  --no-build   start even if the build looks stale (fails if it is missing)
  --no-seed    do not seed an empty content store (same as SEED_DEMO_CONTENT=false)
  -h, --help   show this help`;

function main() {
  const line = readCommandLine({ name: 'start', usage, options: { 'no-build': { type: 'boolean' }, 'no-seed': { type: 'boolean' } } });
  if (!line.ok) process.exit(line.exitCode);
  const { values } = line;

  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' };
  askForDemoContent(env, values['no-seed'] ?? false, 'start');
  const config = loadConfig(env);

  // Before the build and the seed, which take a while: the server refuses a taken port anyway.
  const preparing = takenPortSentence(listenPorts(config), config.host).then((taken) => {
    if (taken !== null) {
      console.error(`start: ${taken}`);
      process.exit(1);
    }
    return prepareToServe({ build: !values['no-build'], seed: config.seedDemoContent, contentDbPath: sqliteContentPath(env), name: 'start' });
  });
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
