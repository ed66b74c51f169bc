import cluster, { type Worker } from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import { answer } from '../answer';
import { cacheControl } from '../cache-policy';
import { describeError, log } from '../log';
import { contentTypes } from '../response-policy';
import { isScrapeAnswer, scrapeRequest, type MetricFamily, type ScrapeRequest } from './scrape';

// /metrics for Prometheus, for the whole cluster in one answer. The workers share the public
// port and any one of them would answer a scrape alone, so the primary serves it on a port
// of its own, bound to 127.0.0.1 (never reachable from outside the instance, with or without
// Nginx): it asks every worker for its numbers over the cluster's IPC channel (scrape.ts) and
// adds them up with prom-client's AggregatorRegistry.aggregate. Only the primary loads
// prom-client.

/** How long a scrape waits for the workers before answering 503. */
const scrapeTimeoutMs = 5_000;

interface Scrape {
  readonly pending: Set<Worker>;
  readonly answers: MetricFamily[][];
  settle(error?: Error): void;
}

/** Scrapes waiting for workers, by id; one pair of cluster listeners serves them all. */
const scrapes = new Map<number, Scrape>();
let lastScrapeId = 0;
let listening = false;

function listenForAnswers(): void {
  if (listening) return;
  listening = true;
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isScrapeAnswer(message)) return;
    const scrape = scrapes.get(message.id);
    if (!scrape?.pending.delete(worker)) return;
    scrape.answers.push([...message.families]);
    if (scrape.pending.size === 0) scrape.settle();
  });
  // A worker that exits meanwhile is left out of the scrapes waiting for it.
  cluster.on('exit', (worker: Worker) => {
    for (const scrape of scrapes.values()) if (scrape.pending.delete(worker) && scrape.pending.size === 0) scrape.settle();
  });
}

/** Every live worker's families; a worker that exits meanwhile is left out, one that does not answer in time fails the scrape. */
export function askWorkers(timeoutMs = scrapeTimeoutMs): Promise<MetricFamily[][]> {
  listenForAnswers();
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w.isConnected());
  if (workers.length === 0) return Promise.resolve([]);
  const id = ++lastScrapeId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      scrape.settle(new Error(`${scrape.pending.size} of ${workers.length} workers did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const scrape: Scrape = {
      pending: new Set(workers),
      answers: [],
      settle(error) {
        clearTimeout(timer);
        scrapes.delete(id);
        if (error) reject(error);
        else resolve(this.answers);
      },
    };
    scrapes.set(id, scrape);
    const request: ScrapeRequest = { type: scrapeRequest, id };
    for (const worker of workers) worker.send(request);
  });
}

/** The Prometheus text for families from several workers, added up as each family's aggregator says. */
export function clusterText(answers: readonly (readonly MetricFamily[])[]): Promise<string> {
  return client.AggregatorRegistry.aggregate([...answers]).metrics();
}

export interface MetricsEndpoint {
  port: number;
  close(): Promise<void>;
}

/** In the primary: GET /metrics on 127.0.0.1:port, the workers' numbers added up, then the primary's own. */
export async function serveClusterMetrics(port: number, primaryRegistry: client.Registry): Promise<MetricsEndpoint> {
  // Written like every other answer (server/answer.ts): never kept by a cache.
  type Reply = { status: number; headers: Record<string, string>; body: string };
  const text = (status: number, body: string): Reply => ({
    status,
    headers: { 'Content-Type': contentTypes.text, 'Cache-Control': cacheControl.noStore },
    body,
  });
  const server = http.createServer((req, res) => {
    const send = ({ status, headers, body }: Reply) => answer(req, res, status, headers, body);
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      send(text(404, 'not found\n'));
      return;
    }
    Promise.all([askWorkers().then(clusterText), primaryRegistry.metrics()]).then(
      ([workers, primary]) =>
        send({ status: 200, headers: { 'Content-Type': primaryRegistry.contentType, 'Cache-Control': cacheControl.noStore }, body: `${workers}\n${primary}` }),
      (error: unknown) => {
        log.warn('/metrics: the workers did not answer', describeError(error));
        send(text(503, 'workers did not answer\n'));
      },
    );
  });
  // Never keeps the primary alive on its own: shutdown ends when the workers have gone.
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
