// Two instances as production runs them (the built cluster, `node dist/server/index.cjs`, each
// its own primary) on one throwaway PostgreSQL, purging moto's CloudFront: one primary sends,
// every push is in exactly one CreateInvalidation within 2 s of its commit, from that primary
// (its pid is in each call's CallerReference); when it stops, the other takes over within a few
// seconds and sends the next push. Needs `npm run build`.
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { GetInvalidationCommand, ListInvalidationsCommand, type CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { startCluster, type Cluster } from '../../scripts/db/cluster';
import { openPostgresStore, type PostgresStore } from '../content/postgres';
import { seedPostgres } from '../content/postgres-seed';
import { generateArticles } from '../content/seed';
import { motoDistribution, startMoto, type Moto } from '../../test/moto';
import { startBuiltServer, type BuiltServer } from '../../test/server';

let cluster: Cluster;
let moto: Moto;
let client: CloudFrontClient;
let distributionId: string;
let writer: PostgresStore;
const servers: BuiltServer[] = [];

before(async () => {
  [cluster, moto] = await Promise.all([startCluster({ migrate: true }), startMoto()]);
  await seedPostgres(cluster.url, { published: 50, drafts: 0 });
  writer = openPostgresStore({ url: cluster.url, poolSize: 1, timeoutMs: 2_000, unlistenedFreshMs: 60_000, listen: false });
  ({ client, distributionId } = await motoDistribution(moto, 'two-primaries'));
});

after(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await writer?.end();
  client?.destroy();
  await moto?.stop();
  cluster?.destroy();
});

function start(): Promise<BuiltServer> {
  return startBuiltServer(path.join(os.tmpdir(), 'kiosk-no-sqlite-here.sqlite'), {
    ...moto.env,
    AWS_ENDPOINT_URL_CLOUDFRONT: moto.endpoint,
    CONTENT_DATABASE_URL: cluster.url,
    CLOUDFRONT_DISTRIBUTION_ID: distributionId,
    WEB_CONCURRENCY: '1',
  }).then((server) => {
    servers.push(server);
    return server;
  });
}

const sending = (server: BuiltServer) => server.output().includes('"edge purge: this instance sends the purges"');

interface Recorded {
  items: string[];
  reference: string;
  seenAt: number;
}
const recorded = new Map<string, Recorded>();

/** moto's invalidations, each read once, with when this test first saw it. */
async function read(): Promise<Recorded[]> {
  const listed = await client.send(new ListInvalidationsCommand({ DistributionId: distributionId }));
  for (const { Id } of listed.InvalidationList?.Items ?? []) {
    if (recorded.has(Id!)) continue;
    const { Invalidation } = await client.send(new GetInvalidationCommand({ DistributionId: distributionId, Id }));
    const batch = Invalidation!.InvalidationBatch!;
    recorded.set(Id!, { items: batch.Paths!.Items ?? [], reference: batch.CallerReference!, seenAt: performance.now() });
  }
  return [...recorded.values()];
}

async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, withinMs: number, what: string): Promise<T> {
  const started = performance.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() - started > withinMs) assert.fail(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let serial = 0;
async function push(): Promise<{ id: string; committed: number }> {
  serial += 1;
  const [template] = generateArticles({ published: 1, drafts: 0, seed: 700 + serial });
  const id = `2026112221009999${String(serial).padStart(2, '0')}`;
  const at = new Date(Date.UTC(2026, 10, 22, 21, serial)).toISOString();
  assert.equal((await writer.upsert({ ...template!, id, publishedAt: at, updatedAt: at }, { modifiedAt: at })).outcome, 'created');
  return { id, committed: performance.now() };
}

test('two primaries on one PostgreSQL: one sends each push once, within 2 s; when it stops the other takes over', async () => {
  const [a, b] = await Promise.all([start(), start()]);
  const sender = await until(() => (sending(a) ? a : sending(b) ? b : undefined), 10_000, 'a sender elected');
  const standBy = sender === a ? b : a;
  // Both have had time to LISTEN (the stand-by hears every push too).
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  assert.ok(!sending(standBy), 'one sender');

  const latencies: number[] = [];
  const pushes: string[] = [];
  for (let i = 0; i < 8; i++) {
    const { id, committed } = await push();
    pushes.push(id);
    const call = await until(async () => (await read()).find((r) => r.items.includes(`#a:${id}`)), 5_000, `the call for push ${i}`);
    latencies.push(call.seenAt - committed);
    await new Promise((resolve) => setTimeout(resolve, 150 * (i % 3)));
  }
  latencies.sort((x, y) => x - y);
  assert.ok(latencies.at(-1)! <= 2_000, `commit to a recorded CreateInvalidation, slowest of ${latencies.length}: ${Math.round(latencies.at(-1)!)} ms`);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const calls = await read();
  for (const id of pushes) assert.equal(calls.filter((c) => c.items.includes(`#a:${id}`)).length, 1, `one call for ${id} across the fleet`);
  const senderPid = `-${sender.process.pid}-`;
  for (const call of calls) assert.ok(call.reference.includes(senderPid), `${call.reference} from the sender (pid ${sender.process.pid})`);
  assert.ok(!standBy.output().includes('would invalidate') && !sending(standBy), 'the stand-by sent nothing');

  const stopped = performance.now();
  await sender.stop();
  await until(() => sending(standBy), 5_000, 'the stand-by taking over');
  const takeover = performance.now() - stopped;
  assert.ok(takeover < 5_000, `took over ${Math.round(takeover)} ms after the stop began`);

  const { id, committed } = await push();
  const call = await until(async () => (await read()).find((r) => r.items.includes(`#a:${id}`)), 5_000, 'the call after the takeover');
  assert.ok(call.reference.includes(`-${standBy.process.pid}-`), `${call.reference} from the new sender`);
  assert.ok(call.seenAt - committed <= 2_000, `within 2 s after the takeover: ${Math.round(call.seenAt - committed)} ms`);
});
