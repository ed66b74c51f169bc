// npm run dev: webpack in watch mode (development) and a server that restarts whenever a
// new build lands. One worker by default so restarts are quick; WEB_CONCURRENCY overrides.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isEmptyStore, seedStore } from '../server/content/seed';
import { loadConfig } from '../server/config';
import { readCommandLine } from './cli';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverBundle = path.join(root, 'dist/server/index.cjs');
const manifest = path.join(root, 'dist/client/manifest.json');

const line = readCommandLine({
  name: 'dev',
  usage: 'Usage: npm run dev\n\nRebuilds on every change (webpack --watch, development mode) and restarts the server on PORT.\n\n  -h, --help  show this help',
  options: {},
});
if (!line.ok) process.exit(line.exitCode);

const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development', WEB_CONCURRENCY: process.env.WEB_CONCURRENCY ?? '1' };
const config = loadConfig(env);
if (config.content.store === 'sqlite' && isEmptyStore(config.content.path)) await seedStore(config.content.path, { log: (line) => console.log(line) });

let server: ChildProcess | null = null;
let restartTimer: NodeJS.Timeout | undefined;

function startServer() {
  server = spawn(process.execPath, ['--enable-source-maps', serverBundle], { cwd: root, env, stdio: 'inherit' });
  server.on('exit', () => (server = null));
}

function restart() {
  clearTimeout(restartTimer);
  // Both bundles finish within a moment of each other; restart once, after the last.
  restartTimer = setTimeout(() => {
    if (!fs.existsSync(serverBundle) || !fs.existsSync(manifest)) return;
    console.log('dev: build changed, restarting the server');
    if (server) {
      server.once('exit', startServer);
      server.kill('SIGTERM');
    } else {
      startServer();
    }
  }, 300);
}

const webpack = spawn('npx', ['webpack', '--mode', 'development', '--watch'], { cwd: root, stdio: 'inherit' });
fs.mkdirSync(path.dirname(serverBundle), { recursive: true });
fs.watch(path.join(root, 'dist'), { recursive: true }, (_event, file) => {
  if (file && (file.endsWith('index.cjs') || file.endsWith('manifest.json'))) restart();
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    webpack.kill(signal);
    server?.kill(signal);
    process.exit(0);
  });
}
