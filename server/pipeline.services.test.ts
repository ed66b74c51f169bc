// The one pipeline, in a real worker on a real socket: a request of every kind the route table
// names (src/request-kinds.ts) is classified, admitted, handled and answered by the one Express
// app, and its answer carries what the response policy says for it. The shell and the shed
// 503 come from workers held at their limits.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiBase, apiPath } from '../src/api-paths';
import { route, routeOf, routeTable, type Route } from '../src/request-kinds';
import { cacheControl } from './cache-policy';
import { errors } from './errors';
import { previewPath } from './preview';
import { busyJsonBody, contentTypes } from './response-policy';
import { securityHeaders } from './security-headers';
import { seedTempStore, serveTestApp, type TestServer } from '../test/server';
import { send, type Answer } from '../test/http';
import { waitFor } from '../test/wait';

const root = path.resolve(import.meta.dirname, '..');
const secret = 's'.repeat(40);
const token = 't'.repeat(40);
const env = { PREVIEW_SECRET: secret, INGEST_TOKEN: token };

let dir: string;
let dbPath: string;
let server: TestServer;
let ids: string[];
let articlePath: string;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(60, 2));
  server = await serveTestApp(dbPath, path.join(root, 'dist'), env);
  const latest = JSON.parse((await send(server.baseUrl, 'GET', `${apiBase}/${apiPath.latest()}`)).body) as { items: { section: string; id: string }[] };
  ids = latest.items.map((t) => t.id);
  articlePath = `/${latest.items[0]!.section}/${ids[0]!}`;
});

after(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A request of each kind, as a reader's browser, the CMS, an editor or the load balancer sends it. */
function requests(): Record<string, { method: string; target: string; headers?: Record<string, string>; body?: string }> {
  const assets = fs.readdirSync(path.join(root, 'dist/client/assets')).find((f) => f.endsWith('.js'))!;
  return {
    page: { method: 'GET', target: articlePath },
    api: { method: 'GET', target: `${apiBase}/${apiPath.front()}` },
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
      target: `${route('ingest').prefix!}articles/${ids[3]!}?modifiedAt=${encodeURIComponent(new Date().toISOString())}`,
      headers: { Authorization: `Bearer ${token}` },
    },
    health: { method: 'GET', target: route('health').exact! },
    media: { method: 'GET', target: `${route('media').prefix!}${ids[0]!}.svg` },
    asset: { method: 'GET', target: `${route('assets').prefix!}${assets}` },
    favicon: { method: 'GET', target: `${route('favicon').prefix!}svg` },
  };
}

/** What the response policy says each kind's answer carries. */
type Policy = { status: number; type: RegExp | null; cache: string; mode?: string; headers?: Record<string, string> };
const expected: Record<string, Policy> = {
  page: { status: 200, type: /^text\/html; charset=utf-8$/, cache: cacheControl.article, mode: 'ssr' },
  api: { status: 200, type: /^application\/json; charset=utf-8$/, cache: cacheControl.front },
  beacon: { status: 204, type: null, cache: cacheControl.noStore },
  form: { status: 200, type: /^text\/html; charset=utf-8$/, cache: cacheControl.noStore },
  preview: { status: 200, type: /^text\/html; charset=utf-8$/, cache: cacheControl.noStore, mode: 'ssr', headers: { 'Referrer-Policy': 'no-referrer' } },
  ingest: { status: 200, type: /^application\/json; charset=utf-8$/, cache: cacheControl.noStore },
  health: { status: 200, type: /^text\/plain; charset=utf-8$/, cache: cacheControl.noStore },
  media: { status: 200, type: /^image\/svg\+xml/, cache: cacheControl.assets },
  asset: { status: 200, type: /^application\/javascript/, cache: cacheControl.assets },
  favicon: { status: 200, type: /^image\/svg\+xml/, cache: cacheControl.favicon },
};

function assertPolicy(answer: Answer, what: string, want: Policy) {
  assert.equal(answer.status, want.status, `${what}: ${answer.body.slice(0, 200)}`);
  if (want.type === null) assert.equal(answer.headers['content-type'], undefined, what);
  else assert.match(answer.headers['content-type'] ?? '', want.type, what);
  assert.equal(answer.headers['cache-control'], want.cache, what);
  assert.equal(answer.headers['x-render-mode'], want.mode, what);
  for (const [name, value] of Object.entries({ ...securityHeaders, ...want.headers }))
    assert.equal(answer.headers[name.toLowerCase()], value, `${what}: ${name}`);
  assert.equal(answer.headers['x-powered-by'], undefined, what);
}

describe('every kind of request, through the one pipeline', () => {
  test('page, API, beacon, form, preview, ingest, health, media, asset and favicon are each answered by their entry, with its policy', async () => {
    const kinds = new Set<string>();
    for (const [kind, request] of Object.entries(requests())) {
      assert.equal(routeOf(request.target).kind === 'asset' ? 'asset' : routeOf(request.target).kind, kind, `${request.target} is a ${kind}`);
      kinds.add(kind);
      const answer = await send(server.baseUrl, request.method, request.target, request.headers, request.body);
      assertPolicy(answer, `${request.method} ${request.target}`, expected[kind]!);
    }
    // Every kind the table routes to a handler (metrics never leaves the edge) was asked for.
    for (const entry of routeTable as readonly Route[]) if (entry.kind !== 'metrics') assert.ok(kinds.has(entry.kind), entry.kind);
  });

  test('a method an entry does not answer is a 405 naming the table’s methods, in the entry’s body format', async () => {
    for (const entry of routeTable as readonly Route[]) {
      const target = entry.exact ?? `${entry.prefix!}x`;
      const method = entry.methods.includes('GET') ? 'PATCH' : 'GET';
      // With the CMS's token, which ingestion checks before anything else.
      const answer = await send(server.baseUrl, method, target, { Authorization: `Bearer ${token}` });
      assert.equal(answer.status, 405, `${method} ${target}`);
      assert.equal(answer.headers.allow, entry.methods.join(', '), `${method} ${target}`);
      assert.match(answer.headers['content-type'] ?? '', entry.body === 'json' ? /^application\/json/ : /^text\/html/, `${method} ${target}`);
    }
  });

  test('paths are case-sensitive, as the table, Nginx and CloudFront read them: /api/INGEST/... is the API’s 404, never ingestion', async () => {
    const target = `${apiBase}/INGEST/articles/${ids[0]!}`;
    assert.equal(routeOf(target).name, 'api');
    const answer = await send(server.baseUrl, 'DELETE', target, { Authorization: `Bearer ${token}` });
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, 'GET, HEAD');
    const read = await send(server.baseUrl, 'GET', target);
    assert.equal(read.status, 404);
    assert.equal((JSON.parse(read.body) as { error: { code: string } }).error.code, errors.notFound.code);
  });
});

describe('a worker at its limits answers through the same pipeline, with the policy Nginx’s fallbacks use', () => {
  test('the shell: pages past SSR_QUEUE_LIMIT', async () => {
    const full = await serveTestApp(dbPath, path.join(root, 'dist'), { ...env, SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0' });
    try {
      const answer = await send(full.baseUrl, 'GET', articlePath);
      assertPolicy(answer, 'shell', { status: 200, type: /^text\/html; charset=utf-8$/, cache: 'public, max-age=0, s-maxage=2', mode: 'shell' });
      assert.match(String(answer.headers['content-security-policy']), /script-src 'self'/);
    } finally {
      await full.close();
    }
  });

  test('the shed 503: text for a page, JSON with Retry-After for the API, as Nginx’s own busy answer', async () => {
    const full = await serveTestApp(dbPath, path.join(root, 'dist'), { ...env, SHED_QUEUE_LIMIT: '1' });
    // One request held in flight: a form post whose body never comes.
    const held = net.connect(Number(new URL(full.baseUrl).port), '127.0.0.1');
    await new Promise((resolve) => held.once('connect', resolve));
    held.write(
      `POST ${route('newsletter').exact!} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nemail=`,
    );
    try {
      await waitFor('the held sign-up counted in flight', () => full.inFlight() === 1);
      const api = await send(full.baseUrl, 'GET', `${apiBase}/${apiPath.front()}`);
      assertPolicy(api, 'API shed', { status: 503, type: /^application\/json; charset=utf-8$/, cache: cacheControl.noStore, mode: 'shed' });
      assert.equal(api.headers['retry-after'], '5');
      assert.equal(api.body, busyJsonBody);
      assert.equal((JSON.parse(api.body) as { error: { code: string } }).error.code, errors.unavailable.code);

      const page = await send(full.baseUrl, 'GET', articlePath);
      assertPolicy(page, 'page shed', {
        status: 503,
        type: new RegExp(`^${contentTypes.text.replace(/[+]/g, '\\+')}$`),
        cache: cacheControl.noStore,
        mode: 'shed',
      });
      assert.equal(page.headers['retry-after'], '5');
    } finally {
      held.destroy();
      await full.close();
    }
  });
});
