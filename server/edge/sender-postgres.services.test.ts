// Two instances' edge purge (what each primary starts, server/edge/start.ts) sharing a throwaway
// PostgreSQL (scripts/db/cluster.ts): one sends, elected by the advisory lock; a push reaches one
// CreateInvalidation within 2 s, from the sender only; when the sender stops, the other takes
// over within a few seconds and sends the next push. CreateInvalidation itself is recorded here
// (purge-moto.services.test.ts sends it to moto).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startCluster, type Cluster } from '../../scripts/db/cluster';
import { loadConfig } from '../config';
import { openPostgresStore, type PostgresStore } from '../content/postgres';
import { seedPostgres } from '../content/postgres-seed';
import { generateArticles } from '../content/seed';
import { startEdgePurge, type EdgePurge } from './start';

let cluster: Cluster;
let writer: PostgresStore;
const instances: EdgePurge[] = [];
const calls: { from: string; items: string[]; at: number }[] = [];

function instance(name: string): EdgePurge {
  const config = loadConfig({ CONTENT_DATABASE_URL: cluster.url, CLOUDFRONT_DISTRIBUTION_ID: 'E2QWRUHAPOMQZL', EDGE_PURGE_INTERVAL_MS: '200' });
  const edge = startEdgePurge(config, {
    applicationName: `kiosk-edge-${name}`,
    pollMs: 250,
    target: {
      live: true,
      invalidate: (items) => {
        calls.push({ from: name, items: [...items], at: performance.now() });
        return Promise.resolve();
      },
      close: () => undefined,
    },
  })!;
  instances.push(edge);
  return edge;
}

async function until(check: () => boolean, withinMs: number, what: string): Promise<number> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > withinMs) assert.fail(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - started;
}

let serial = 0;
/** A new published story, written as the CMS's push is: returns its id and when the write committed. */
async function push(): Promise<{ id: string; committed: number }> {
  serial += 1;
  const [template] = generateArticles({ published: 1, drafts: 0, seed: 500 + serial });
  const id = `2026112220009999${String(serial).padStart(2, '0')}`;
  const at = new Date(Date.UTC(2026, 10, 22, 20, serial)).toISOString();
  const result = await writer.upsert({ ...template!, id, publishedAt: at, updatedAt: at }, { modifiedAt: at });
  assert.equal(result.outcome, 'created');
  return { id, committed: performance.now() };
}

const covering = (id: string) => calls.filter((call) => call.items.includes(`#a:${id}`));

before(async () => {
  cluster = await startCluster({ migrate: true });
  await seedPostgres(cluster.url, { published: 50, drafts: 0 });
  writer = openPostgresStore({ url: cluster.url, poolSize: 1, timeoutMs: 2_000, unlistenedFreshMs: 60_000, listen: false });
});

after(async () => {
  await Promise.all(instances.map((edge) => edge.close(0)));
  await writer?.end();
  cluster?.destroy();
});

test('two instances: one sender; a push is one call within 2 s, from it alone; when it stops the other takes over and sends', async () => {
  const a = instance('a');
  const b = instance('b');
  await until(() => a.sending || b.sending, 5_000, 'a sender elected');
  // Never both, sampled over a second.
  for (let i = 0; i < 50; i++) {
    assert.ok(!(a.sending && b.sending), 'two senders');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const [sender, standBy, senderName, standByName] = a.sending ? [a, b, 'a', 'b'] : [b, a, 'b', 'a'];
  assert.equal(standBy.sending, false);
  // Both LISTEN before the first push (the stand-by hears it too, and must not send it).
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  const first = await push();
  await until(() => covering(first.id).length > 0, 5_000, 'the call for the push');
  const latency = covering(first.id)[0]!.at - first.committed;
  assert.ok(latency <= 2_000, `commit to CreateInvalidation: ${Math.round(latency)} ms`);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  assert.deepEqual(
    covering(first.id).map((call) => call.from),
    [senderName],
    'one call for the change across the fleet, from the sender',
  );
  assert.ok(
    calls.every((call) => call.from === senderName),
    `only the sender calls: ${JSON.stringify(calls.map((c) => c.from))}`,
  );
  assert.ok(covering(first.id)[0]!.items.includes('#front') && covering(first.id)[0]!.items.includes('#l:all'));

  const stopped = performance.now();
  await sender.close(1_000);
  const takeover = await until(() => standBy.sending, 5_000, 'the stand-by taking over');
  assert.ok(takeover < 5_000, `took over in ${Math.round(performance.now() - stopped)} ms`);

  const second = await push();
  await until(() => covering(second.id).length > 0, 5_000, 'the call for the push after the takeover');
  assert.deepEqual(
    covering(second.id).map((call) => call.from),
    [standByName],
  );
  assert.ok(covering(second.id)[0]!.at - second.committed <= 2_000, 'within 2 s after the takeover too');
});
