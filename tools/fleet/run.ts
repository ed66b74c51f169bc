// A local fleet of real parts for the fleet failure runs: one throwaway PostgreSQL, two
// instances (each the repository's Nginx in front of the built server's workers, as
// `npm run start:nginx` runs them), a health-checking stand-in for
// the load balancer, an open-loop load of GETs through it, and what the runs report (per
// second: requests, pages, 503s, failures, by instance) with an SVG chart. Used by
// tools/fleet/fleet.services.test.ts (short) and `npm run fleet` (long).
//
// openLoad is a load loop of its own, beside the load generators (tools/bench/loadgen.c and
// Gatling), because the runs need each request's send time and the instance that answered it
// (X-Fleet-Instance) to split failures into before, during and after a kill; loadgen reports a
// step's totals and Gatling its own report. At 100 requests a second, fetch is enough.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  admissionOf,
  childPids,
  freePort,
  freePortRange,
  loadConfig,
  seedPostgres,
  startBuiltServer,
  startCluster,
  startLocalNginx,
  type Cluster,
  type LocalNginx,
} from '@kiosk/surface';
import { escapeXml, legend, linearScale, niceMax, panelFrame, polyline, svgDocument, type LineStyle } from '@kiosk/svg';
import { startFrontProxy, type FrontProxy } from './front-proxy';

export const fleetToken = 'ingest-token-for-the-fleet-0123456789abcdef';
export const fleetPreviewSecret = 'preview-secret-for-the-fleet-0123456789abcdef';

export interface Instance {
  /** Nginx's address: the instance as the load balancer reaches it. */
  baseUrl: string;
  /** The Node primary and workers, then Nginx's master and workers: SIGKILL to all at once. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface Fleet {
  database: Cluster;
  proxy: FrontProxy;
  instance(name: 'A' | 'B'): Instance;
  /** SIGKILL to every process of the instance (Nginx and Node), at once: the machine is gone. */
  kill(name: 'A' | 'B'): Promise<void>;
  /** Starts the instance again (Nginx on the same port). */
  restart(name: 'A' | 'B'): Promise<void>;
  close(): Promise<void>;
}

/**
 * One instance as production runs it and `npm run start:nginx` runs it locally: the
 * repository's Nginx config (local rendering) on `nginxPort`, in front of the built server in
 * per-worker mode (each worker on its own loopback port, admission held by Nginx).
 */
async function startInstance(nginxPort: number, workers: number, env: Record<string, string>): Promise<Instance> {
  const firstPort = await freePortRange(workers);
  const node = await startBuiltServer(path.join(os.tmpdir(), 'kiosk-fleet-no-sqlite.sqlite'), {
    ...env,
    PORT: String(firstPort),
    WEB_CONCURRENCY: String(workers),
    LISTEN_MODE: 'per-worker',
  });
  let nginx: LocalNginx;
  try {
    nginx = await startLocalNginx({
      listen: `127.0.0.1:${nginxPort}`,
      workerPorts: Array.from({ length: workers }, (_, i) => firstPort + i),
      workerProcesses: 1,
      admission: admissionOf(loadConfig({ ...env, PORT: String(firstPort) })),
    });
  } catch (error) {
    await node.stop();
    throw error;
  }
  const nginxExited = new Promise<void>((resolve) => {
    if (nginx.process.exitCode !== null || nginx.process.signalCode !== null) resolve();
    else nginx.process.once('exit', () => resolve());
  });
  return {
    baseUrl: `http://127.0.0.1:${nginxPort}`,
    async kill() {
      for (const pid of [node.process.pid!, ...childPids(node.process.pid!), nginx.process.pid!, ...childPids(nginx.process.pid!)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // A process that ended meanwhile.
        }
      }
      await Promise.all([node.exited, nginxExited]);
      fs.rmSync(nginx.prefix, { recursive: true, force: true });
    },
    async stop() {
      await nginx.stop();
      await node.stop();
    },
  };
}

export async function startFleet(options: { workers?: number; published?: number; drafts?: number } = {}): Promise<Fleet> {
  const database = await startCluster({ migrate: true });
  await seedPostgres(database.url, { published: options.published ?? 300, drafts: options.drafts ?? 5 });
  const ports = { A: await freePort(), B: await freePort() };
  const start = (name: 'A' | 'B') =>
    startInstance(ports[name], options.workers ?? 2, {
      CONTENT_DATABASE_URL: database.url,
      INGEST_TOKEN: fleetToken,
      PREVIEW_SECRET: fleetPreviewSecret,
    });
  const instances = { A: await start('A'), B: await start('B') };
  const proxy = await startFrontProxy([
    { name: 'A', url: instances.A.baseUrl },
    { name: 'B', url: instances.B.baseUrl },
  ]);
  return {
    database,
    proxy,
    instance: (name) => instances[name],
    kill: (name) => instances[name].kill(),
    async restart(name) {
      instances[name] = await start(name);
    },
    async close() {
      await proxy.close();
      await Promise.all([instances.A.stop(), instances.B.stop()]);
      database.destroy();
    },
  };
}

export interface Sample {
  atMs: number;
  status: number | 'failed';
  ms: number;
  instance: string | null;
}

export interface Load {
  samples: Sample[];
  stop(): Promise<void>;
}

/** GETs through `url` at `ratePerS`, whatever the answers take (open loop), each with a 5 s timeout. */
export function openLoad(url: string, paths: string[], ratePerS: number): Load {
  const samples: Sample[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) * ratePerS) / 1000);
    for (; sent < due; sent += 1) {
      const p = paths[sent % paths.length]!;
      const at = performance.now();
      const request = fetch(url + p, { signal: AbortSignal.timeout(5_000) })
        .then(async (response) => {
          await response.arrayBuffer();
          samples.push({ atMs: at, status: response.status, ms: performance.now() - at, instance: response.headers.get('x-fleet-instance') });
        })
        .catch(() => {
          samples.push({ atMs: at, status: 'failed', ms: performance.now() - at, instance: null });
        })
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
  }, 5);
  return {
    samples,
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

export interface Second {
  second: number;
  requests: number;
  pages: number;
  unavailable: number;
  failed: number;
  byInstance: Record<string, number>;
}

/** Per second since `originMs`: 200s, 503s, and everything else (5xx, resets, timeouts) as failed. */
export function perSecond(samples: Sample[], originMs: number): Second[] {
  const seconds: Second[] = [];
  for (const s of samples) {
    const second = Math.floor((s.atMs - originMs) / 1000);
    if (second < 0) continue;
    while (seconds.length <= second) seconds.push({ second: seconds.length, requests: 0, pages: 0, unavailable: 0, failed: 0, byInstance: {} });
    const bucket = seconds[second]!;
    bucket.requests += 1;
    if (s.status === 200) bucket.pages += 1;
    else if (s.status === 503) bucket.unavailable += 1;
    else bucket.failed += 1;
    if (s.instance) bucket.byInstance[s.instance] = (bucket.byInstance[s.instance] ?? 0) + 1;
  }
  return seconds;
}

/** Requests/s by instance, 503s and failures over time, with the events marked. */
export function chartSvg(seconds: Second[], events: { second: number; label: string }[], title: string): string {
  const width = 900;
  const panel = { left: 80, right: 880, top: 50, bottom: 300 };
  const max = niceMax(Math.max(10, ...seconds.map((s) => s.requests)));
  const x = linearScale(0, Math.max(1, seconds.length), panel.left, panel.right);
  const y = linearScale(0, max, panel.bottom, panel.top);
  const series: [string, LineStyle, (s: Second) => number][] = [
    ['served by A', { colour: '#1f77b4', width: 1.5 }, (s) => s.byInstance.A ?? 0],
    ['served by B', { colour: '#2ca02c', width: 1.5 }, (s) => s.byInstance.B ?? 0],
    ['503 (designed)', { colour: '#ff7f0e', width: 1.5 }, (s) => s.unavailable],
    ['failed', { colour: '#d62728', width: 1.5 }, (s) => s.failed],
  ];
  return `${svgDocument(width, 380, title, panel.left, [
    panelFrame(
      panel,
      'requests per second',
      [0, 0.5, 1].map((f) => [y(max * f), String(max * f)]),
    ),
    `<text x="${panel.right}" y="${panel.bottom + 16}" text-anchor="end">${seconds.length} s</text>`,
    ...events.map(
      (e) =>
        `<line x1="${x(e.second).toFixed(1)}" y1="${panel.top}" x2="${x(e.second).toFixed(1)}" y2="${panel.bottom}" stroke="#999" stroke-dasharray="4 3"/>` +
        `<text x="${(x(e.second) + 3).toFixed(1)}" y="${panel.top + 10}" fill="#555">${escapeXml(e.label)}</text>`,
    ),
    ...series.map(([, style, value]) =>
      polyline(
        seconds.map((s) => [x(s.second + 0.5), y(value(s))]),
        style,
      ),
    ),
    legend(
      panel.left,
      panel.bottom + 40,
      series.map(([name, style]) => [name, style]),
      190,
    ),
  ])}\n`;
}
