// The route table and the response policy through their Nginx rendering, against a real Nginx in
// front of a real worker: a request of every kind gets the same answer headers through Nginx as
// from the worker directly, and where Nginx answers in the worker's place (the shell, the API's
// busy 503, the assets from disk) it sends what the worker would.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../server/config';
import { previewPath } from '../../server/preview';
import { securityHeaders } from '../../server/security-headers';
import { apiBase, apiPath } from '../../src/api-paths';
import { route } from '../../src/request-kinds';
import { freePort, seedTempStore, serveTestApp, type TestServer } from '../../test/server';
import { startLocalNginx, type LocalNginx } from './local';
import { admissionOf, hsts, root, type Admission } from './render';
import { send, type Answer } from '../../test/http';
import { waitFor } from '../../test/wait';

const secret = 's'.repeat(40);
const token = 't'.repeat(40);
const env = { PREVIEW_SECRET: secret, INGEST_TOKEN: token };
const dist = path.join(root, 'dist');

let dir: string;
let dbPath: string;
let worker: TestServer;
let nginx: LocalNginx;
let viaNginx: string;
let ids: string[];
let articlePath: string;

function portOf(base: string): number {
  return Number(new URL(base).port);
}

async function nginxBefore(workerBase: string, admission: Partial<Admission> = {}): Promise<{ nginx: LocalNginx; base: string }> {
  const port = await freePort();
  const started = await startLocalNginx({
    listen: `127.0.0.1:${port}`,
    workerPorts: [portOf(workerBase)],
    workerProcesses: 1,
    admission: { ...admissionOf(loadConfig(env)), ...admission },
    originSecrets: [],
  });
  return { nginx: started, base: `http://127.0.0.1:${port}` };
}

before(async () => {
  ({ dir, dbPath } = await seedTempStore(60, 2));
  worker = await serveTestApp(dbPath, dist, env);
  ({ nginx, base: viaNginx } = await nginxBefore(worker.baseUrl));
  const latest = JSON.parse((await send(worker.baseUrl, 'GET', `${apiBase}/${apiPath.latest()}`)).body) as { items: { section: string; id: string }[] };
  ids = latest.items.map((t) => t.id);
  articlePath = `/${latest.items[0]!.section}/${ids[0]!}`;
});

after(async () => {
  await nginx?.stop();
  await worker?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The headers the response policy decides, as a client reads them: the CSP without its per-answer nonce. */
const policyHeaders = [
  'content-type',
  'cache-control',
  'x-render-mode',
  'retry-after',
  'allow',
  'x-robots-tag',
  'content-security-policy',
  ...Object.keys(securityHeaders).map((h) => h.toLowerCase()),
];

function policyOf(answer: Answer): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { status: String(answer.status) };
  for (const name of policyHeaders) {
    const value = answer.headers[name] as string | undefined;
    out[name] = name === 'content-security-policy' ? value?.replace(/'nonce-[^']+'/, "'nonce'") : value;
  }
  return out;
}

function requests(): Record<string, { method: string; target: string; headers?: Record<string, string>; body?: string }> {
  const asset = fs.readdirSync(path.join(dist, 'client/assets')).find((f) => f.endsWith('.js') && !f.includes('LICENSE'))!;
  return {
    page: { method: 'GET', target: articlePath },
    'page (not found)': { method: 'GET', target: '/no/such/page' },
    api: { method: 'GET', target: `${apiBase}/${apiPath.front()}` },
    'api (error)': { method: 'GET', target: `${apiBase}/${apiPath.article('1')}` },
    beacon: { method: 'POST', target: `${apiBase}/${apiPath.view(ids[1]!)}`, headers: { 'Sec-Fetch-Site': 'same-origin' } },
    form: {
      method: 'POST',
      target: route('newsletter').exact!,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
      body: 'email=reader%40example.com&newsletters=morning',
    },
    preview: { method: 'GET', target: previewPath(ids[2]!, 600, secret) },
    ingest: {
      method: 'DELETE',
      target: `${route('ingest').prefix!}articles/${ids[3]!}?modifiedAt=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`,
      headers: { Authorization: `Bearer ${token}` },
    },
    health: { method: 'GET', target: route('health').exact! },
    media: { method: 'GET', target: `${route('media').prefix!}${ids[0]!}.svg` },
    favicon: { method: 'GET', target: `${route('favicon').prefix!}svg` },
    asset: { method: 'GET', target: `${route('assets').prefix!}${asset}` },
  };
}

test('every kind of request gets the same answer headers through Nginx as from the worker', async () => {
  for (const [kind, request] of Object.entries(requests())) {
    const direct = await send(worker.baseUrl, request.method, request.target, request.headers, request.body);
    const proxied = await send(viaNginx, request.method, request.target, request.headers, request.body);
    assert.ok(direct.status < 500, `${kind}: ${direct.status} ${direct.body.slice(0, 200)}`);
    assert.deepEqual(policyOf(proxied), policyOf(direct), `${kind}: ${request.method} ${request.target}`);
    // HTTPS only: the edge's, added by Nginx to every answer, its own and Node's.
    assert.equal(proxied.headers['strict-transport-security'], hsts, kind);
  }
});

test('where Nginx answers in a worker’s place (the shell, the API’s busy 503) it sends the worker’s headers', async () => {
  // A worker that sends every page the shell and sheds the API (one request held in flight),
  // and an Nginx whose workers all have no room: both answer from their response policy.
  const full = await serveTestApp(dbPath, dist, { ...env, SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0', SHED_QUEUE_LIMIT: '1' });
  let busy: { nginx: LocalNginx; base: string } | undefined;
  try {
    // No slot for pages or the API on the one worker: Nginx answers every such request itself.
    busy = await nginxBefore(full.baseUrl, { ssrQueueLimit: 0, crawlerQueueLimit: 0, apiQueueLimit: 0 });
    const nodeShell = await send(full.baseUrl, 'GET', articlePath);
    const nginxShell = await send(busy.base, 'GET', articlePath);
    assert.equal(nodeShell.headers['x-render-mode'], 'shell');
    assert.equal(nginxShell.headers['x-render-mode'], 'shell');
    assert.deepEqual(policyOf(nginxShell), policyOf(nodeShell), 'the shell');

    const held = net.connect(portOf(full.baseUrl), '127.0.0.1');
    await new Promise((resolve) => held.once('connect', resolve));
    held.write(
      `POST ${route('newsletter').exact!} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nemail=`,
    );
    try {
      await waitFor('the held sign-up counted in flight', () => full.inFlight() === 1);
      const target = `${apiBase}/${apiPath.front()}`;
      const nodeBusy = await send(full.baseUrl, 'GET', target);
      const nginxBusy = await send(busy.base, 'GET', target);
      for (const answer of [nodeBusy, nginxBusy]) {
        assert.equal(answer.status, 503);
        assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
        assert.ok(answer.headers['retry-after'], 'Retry-After');
      }
      assert.deepEqual(policyOf(nginxBusy), policyOf(nodeBusy), "the API's busy 503");
      assert.equal(nginxBusy.body, nodeBusy.body);
    } finally {
      held.destroy();
    }
  } finally {
    await busy?.nginx.stop();
    await full.close();
  }
});
