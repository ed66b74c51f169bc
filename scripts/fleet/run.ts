// A local fleet of real parts for issue 18's failure runs: one throwaway PostgreSQL, two
// instances of the built server (each a cluster of workers), a health-checking stand-in for
// the load balancer, an open-loop load of GETs through it, and what the runs report (per
// second: requests, pages, 503s, failures, by instance) with an SVG chart. Used by
// scripts/fleet/fleet.e2e.test.ts (short) and `npm run fleet` (long).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seedPostgres } from '../../server/content/postgres-seed';
import { freePort, startBuiltServer, type BuiltServer } from '../../test/server';
import { startCluster, type Cluster } from '../db/cluster';
import { startFrontProxy, type FrontProxy } from './front-proxy';

export const fleetToken = 'ingest-token-for-the-fleet-0123456789abcdef';
export const fleetPreviewSecret = 'preview-secret-for-the-fleet-0123456789abcdef';

export interface Fleet {
  database: Cluster;
  proxy: FrontProxy;
  instance(name: 'A' | 'B'): BuiltServer;
  /** SIGKILL to the primary and every worker of the instance, at once. */
  kill(name: 'A' | 'B'): Promise<void>;
  /** Starts the instance again on its port. */
  restart(name: 'A' | 'B'): Promise<void>;
  close(): Promise<void>;
}

export async function startFleet(options: { workers?: number; published?: number; drafts?: number } = {}): Promise<Fleet> {
  const database = await startCluster({ migrate: true });
  await seedPostgres(database.url, { published: options.published ?? 300, drafts: options.drafts ?? 5 });
  const ports = { A: await freePort(), B: await freePort() };
  const start = (name: 'A' | 'B') =>
    startBuiltServer(path.join(os.tmpdir(), 'kiosk-fleet-no-sqlite.sqlite'), {
      PORT: String(ports[name]),
      WEB_CONCURRENCY: String(options.workers ?? 2),
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
    async kill(name) {
      for (const pid of processesOf(instances[name].process.pid!)) process.kill(pid, 'SIGKILL');
      await instances[name].exited;
    },
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

/** A process and its children, found by parent id in /proc. */
export function processesOf(parent: number): number[] {
  const children = fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [parent, ...children];
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
  const height = 360;
  const left = 50;
  const bottom = 300;
  const top = 40;
  const max = Math.max(10, ...seconds.map((s) => s.requests));
  const x = (second: number) => left + (second / Math.max(1, seconds.length)) * (width - left - 20);
  const y = (value: number) => bottom - (value / max) * (bottom - top);
  const line = (value: (s: Second) => number) =>
    seconds.map((s, i) => `${i === 0 ? 'M' : 'L'}${x(s.second + 0.5).toFixed(1)},${y(value(s)).toFixed(1)}`).join(' ');
  const series = [
    { name: 'served by A', color: '#1f77b4', value: (s: Second) => s.byInstance.A ?? 0 },
    { name: 'served by B', color: '#2ca02c', value: (s: Second) => s.byInstance.B ?? 0 },
    { name: '503 (designed)', color: '#ff7f0e', value: (s: Second) => s.unavailable },
    { name: 'failed', color: '#d62728', value: (s: Second) => s.failed },
  ];
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${left}" y="20" font-size="14">${escape(title)}</text>`,
    `<line x1="${left}" y1="${bottom}" x2="${width - 20}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#333"/>`,
    `<text x="${left - 5}" y="${top + 4}" text-anchor="end">${max}/s</text>`,
    `<text x="${left - 5}" y="${bottom}" text-anchor="end">0</text>`,
    `<text x="${width - 20}" y="${bottom + 15}" text-anchor="end">${seconds.length} s</text>`,
    ...events.map(
      (e) =>
        `<line x1="${x(e.second).toFixed(1)}" y1="${top}" x2="${x(e.second).toFixed(1)}" y2="${bottom}" stroke="#999" stroke-dasharray="4 3"/>` +
        `<text x="${(x(e.second) + 3).toFixed(1)}" y="${top + 10}" fill="#555">${escape(e.label)}</text>`,
    ),
    ...series.map((s) => `<path d="${line(s.value)}" fill="none" stroke="${s.color}" stroke-width="1.5"/>`),
    ...series.map((s, i) => `<text x="${left + i * 150}" y="${bottom + 35}" fill="${s.color}">■ ${escape(s.name)}</text>`),
    '</svg>',
    '',
  ].join('\n');
}
