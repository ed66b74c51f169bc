// npm run start:nginx: the production layout on one machine, without root. Nginx on PORT
// (default 3000) in front of one Node worker per CPU, each on its own loopback port from
// PORT + 1, balanced with least_conn. Ctrl-C stops both.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, sqliteContentPath } from '../server/config';
import { readCommandLine } from './cli';
import { accepts, startLocalNginx, type LocalNginx } from './nginx/local';
import { admissionOf } from './nginx/render';
import { askForDemoContent, prepareToServe, root, serverBundle } from './prepare';

const usage = `Usage: npm run start:nginx [-- --port N] [-- --no-build] [-- --no-seed]

Starts Kiosk as it runs in production: Nginx (the local rendering of nginx/kiosk.conf.template,
under a temporary prefix, no root needed) on --port, in front of WEB_CONCURRENCY Node workers
that each listen on their own loopback port from --port + 1 (LISTEN_MODE=per-worker).
Builds first like npm start, and like it asks for demo content (SEED_DEMO_CONTENT=true) unless
SEED_DEMO_CONTENT is set. The workers keep each page's last good copy for Nginx in a temporary
directory (LAST_GOOD_DIR, unless set; LAST_GOOD_SECONDS=0 turns it off). Ctrl-C stops Nginx and
drains the workers.

  --port N     the port Nginx listens on (default: PORT, else 3000)
  --no-build   start even if the build looks stale (fails if it is missing)
  --no-seed    do not seed an empty content store (same as SEED_DEMO_CONTENT=false)
  -h, --help   show this help`;

async function main(): Promise<void> {
  const line = readCommandLine({
    name: 'start:nginx',
    usage,
    options: { port: { type: 'string' }, 'no-build': { type: 'boolean' }, 'no-seed': { type: 'boolean' } },
  });
  if (!line.ok) process.exit(line.exitCode);
  const { values } = line;
  const nginxPort = Number(values.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(nginxPort) || nginxPort < 1 || nginxPort > 65_000) {
    console.error(`--port must be a port number, got "${values.port ?? process.env.PORT}"`);
    process.exit(2);
  }

  // Nginx writes its fallback answers here and the primary counts them (NGINX_FALLBACK_LOG); the
  // workers keep the pages' last good copies beside it for Nginx to answer (LAST_GOOD_DIR).
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-fallback-'));
  const fallbackLog = path.join(runDir, 'fallback.log');
  // Readable by Nginx's workers, which run as nobody when Nginx is started as root.
  fs.chmodSync(runDir, 0o755);
  const env: Record<string, string | undefined> = {
    ...process.env,
    NGINX_FALLBACK_LOG: fallbackLog,
    LAST_GOOD_DIR: process.env.LAST_GOOD_DIR || path.join(runDir, 'last-good'),
    NODE_ENV: process.env.NODE_ENV ?? 'production',
    SITE_URL: process.env.SITE_URL ?? `http://localhost:${nginxPort}`,
    LISTEN_MODE: 'per-worker',
    HOST: '127.0.0.1',
    PORT: String(nginxPort + 1),
    // Nginx appends the reader's address to X-Forwarded-For: one hop back, as Node counts them.
    CLIENT_ADDRESS_HOPS: process.env.CLIENT_ADDRESS_HOPS ?? '1',
  };
  askForDemoContent(env, values['no-seed'] ?? false, 'start:nginx');
  const config = loadConfig(env);
  const workerPorts = Array.from({ length: config.webConcurrency }, (_, i) => config.port + i);
  await prepareToServe({ build: !values['no-build'], seed: config.seedDemoContent, contentDbPath: sqliteContentPath(env), name: 'start:nginx' });

  const cluster = spawn(process.execPath, ['--enable-source-maps', serverBundle], { cwd: root, env, stdio: 'inherit' });
  let nginx: LocalNginx | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await nginx?.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
    if (cluster.exitCode === null && cluster.signalCode === null) {
      cluster.kill('SIGTERM');
      await new Promise((resolve) => cluster.once('exit', resolve));
    }
    process.exit(code);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop(0));
  cluster.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`start:nginx: the Node cluster exited (${signal ?? `code ${code}`}); stopping Nginx`);
    void stop(1);
  });

  const deadline = Date.now() + 30_000;
  for (const port of workerPorts) {
    while (!(await accepts('127.0.0.1', port))) {
      if (stopping) return;
      if (Date.now() > deadline) {
        console.error(`start:nginx: no worker listened on 127.0.0.1:${port} within 30 s`);
        await stop(1);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  try {
    // The same limits the workers read, so Nginx's admission and Node's guard agree.
    nginx = await startLocalNginx({ listen: `${nginxPort}`, workerPorts, admission: admissionOf(config), fallbackLog });
  } catch (error) {
    console.error(`start:nginx: ${(error as Error).message}`);
    await stop(1);
    return;
  }
  nginx.process.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`start:nginx: Nginx exited (${signal ?? `code ${code}`}):\n${nginx?.errors() ?? ''}`);
    void stop(1);
  });
  console.log(
    `start:nginx: Kiosk through Nginx on http://localhost:${nginxPort} (workers on 127.0.0.1:${workerPorts.join(', ')}; ` +
      `Nginx logs in ${nginx.prefix}). Ctrl-C stops both.`,
  );
}

void main();
