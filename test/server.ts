// Shared by the server's tests: a real SQLite store in a temporary directory and the real
// app listening on a real socket on an ephemeral port.
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Assets } from '../server/assets';
import { loadConfig } from '../server/config';
import { createSite } from '../server/site';
import { openContent, type Content } from '../server/content/open';
import type { ContentReader } from '../server/content/source';
import type { ListenTarget } from '../server/worker';

/**
 * The app tests run without a client build, so the documents name these asset paths
 * instead of the manifest's; the browser tests run the real build.
 */
export const testAssets: Assets = { scripts: ['/assets/main.test.js'], styles: ['/assets/main.test.css'] };

export interface TestServer {
  baseUrl: string;
  /** What the site reads. */
  content: ContentReader;
  /** Everything openContent made: the cache, the store, the writer. */
  parts: Content;
  /** Requests the site counts in flight now, as its overload guard reads them. */
  inFlight(): number;
  close(): Promise<void>;
}

function testConfig(env: Record<string, string>, distDir?: string) {
  return { ...loadConfig({ SITE_URL: 'https://kiosk.example', ...env }), distDir: distDir ?? path.join(os.tmpdir(), 'kiosk-no-dist') };
}

/** A SQLite store as a worker opens it (openContent): the reader, the cache, the writer. */
export async function openSqliteContent(dbPath: string, env: Record<string, string> = {}): Promise<Content> {
  const config = testConfig({ ...env, CONTENT_DB_PATH: dbPath });
  return openContent(config.content, config);
}

/** The site over a SQLite store, as a worker opens it (openContent), on a real socket. */
export async function serveTestApp(dbPath: string, distDir?: string, env: Record<string, string> = {}): Promise<TestServer> {
  const config = testConfig({ ...env, CONTENT_DB_PATH: dbPath }, distDir);
  return serveTestSite(await openContent(config.content, config), env, { distDir });
}

/** The real site over any content (the newsroom API, PostgreSQL, a wrapped store) on a real socket; closes the content too. */
export async function serveTestSite(content: Content, env: Record<string, string> = {}, options: { distDir?: string } = {}): Promise<TestServer> {
  const config = testConfig(env, options.distDir);
  const site = createSite({ config, content, assets: testAssets });
  await site.ready;
  const server = http.createServer(site.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    content: content.reader,
    parts: content,
    inFlight: () => site.metrics.inFlight,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await site.close();
      await content.close();
    },
  };
}

/** The visible text of an HTML document: scripts and tags stripped, entities decoded, spaces folded. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, ' ');
}

/**
 * Where a worker started in the test's own process listens: any free loopback port, which the
 * kernel picks (Kiosk's PORT is always a fixed port; the tests never race for one).
 */
export const anyLoopbackPort: ListenTarget = { port: 0, host: '127.0.0.1', exclusive: true };

// Started the way operators' tools start them (scripts/), so the tests and the tools share one
// implementation: free ports, a process's children, a seeded store, the built cluster.
export { freePort, freePortRange } from '../scripts/ports';
export { childPids } from '../scripts/processes';
export { seedTempStore, startBuiltServer, type BuiltServer } from '../scripts/built-server';

export interface RawResponse {
  status: number;
  /** Lower-cased names; the last value of a repeated header. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `request` as is on a new connection and reads the answer until the server closes it
 * (so send `Connection: close`): for requests fetch() would normalise or refuse to send (dot
 * segments, raw bytes, unknown methods, oversized headers).
 * Rejects when nothing complete arrives within `timeoutMs`, so a hang fails the test.
 */
export function rawRequest(baseUrl: string, request: string | Buffer, timeoutMs = 5_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms to ${JSON.stringify(String(request).slice(0, 120))}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!match || end === -1) {
        reject(new Error(`no HTTP answer to ${JSON.stringify(String(request).slice(0, 120))}: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, end).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const rawBody = text.slice(end + 4);
      const body = headers['transfer-encoding'] === 'chunked' ? unchunk(rawBody) : rawBody;
      resolve({ status: Number(match[1]), headers, body });
    });
    socket.write(request);
  });
}

/** One request with this method and target as raw bytes (no normalising), no body, on a new connection. */
export function sendRaw(baseUrl: string, method: string, target: string | Buffer, headers = ''): Promise<RawResponse> {
  const head = Buffer.from(`${method} `);
  const tail = Buffer.from(` HTTP/1.1\r\nHost: kiosk.example\r\n${headers}Content-Length: 0\r\nConnection: close\r\n\r\n`);
  return rawRequest(baseUrl, Buffer.concat([head, Buffer.from(target), tail]));
}

/** One series' value in the Prometheus text /metrics answers, e.g. `kiosk_requests_total`. */
export function metricsValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line, `${series} in /metrics:\n${text}`);
  return Number(line.slice(series.length + 1));
}

/** What every answer to bad input must be, whoever gave it (Kiosk or Node's parser). */
export function assertSafeAnswer(res: RawResponse, what: string): void {
  assert.ok(res.status < 500, `${what}: ${res.status} is not a 5xx`);
  assert.doesNotMatch(res.body, /^\s*at .+[(:]\d+/m, `${what}: no stack trace`);
  assert.doesNotMatch(res.body, /\/(work|home|tmp|usr)\/|node_modules|\.tsx?\b|\.c?js:\d/, `${what}: no file paths`);
  const type = res.headers['content-type'];
  if (res.status >= 400 && type !== undefined && res.body !== '') {
    // Kiosk's own refusals: a page in the site's chrome, or a JSON error for the API.
    if (type.startsWith('application/json')) {
      const body = JSON.parse(res.body) as { error?: { code?: unknown; message?: unknown } };
      assert.equal(typeof body.error?.code, 'string', `${what}: a JSON error has a code`);
      assert.equal(typeof body.error?.message, 'string', `${what}: a JSON error has a message`);
    } else {
      assert.match(type, /^text\/html/, `${what}: an error page`);
    }
  }
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** Every { id, section } in an API answer, however nested: the article pages it links to. */
export function teasersIn(value: unknown): { section: string; id: string }[] {
  if (Array.isArray(value)) return value.flatMap(teasersIn);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const own = typeof record.id === 'string' && typeof record.section === 'string' ? [{ id: record.id, section: record.section }] : [];
  return [...own, ...Object.values(record).flatMap(teasersIn)];
}
