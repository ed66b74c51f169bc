// The fleet failure runs, short: two instances (each the repository's Nginx in front of two
// workers of the built server, as `npm run start:nginx` runs them) on one throwaway PostgreSQL,
// behind a health-checking stand-in for the load balancer (tools/fleet/run.ts). A push to
// instance A is served by instance B and a preview link works on both; under steady load every
// process of B is killed (SIGKILL), failed requests are counted, and B comes back and takes
// traffic again; then PostgreSQL stops for a few seconds under load: pages or the designed 503,
// nothing else, and then pages again. Each step waits for what it expects (B out of rotation, B
// back, the pages back) rather than for a fixed time, so a busy machine makes it slower, not
// red. `npm run fleet` is the long variant, with a chart and the times.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateArticles, previewPath } from '@kiosk/surface';
import { fleetPreviewSecret, fleetToken, openLoad, startFleet, type Fleet, type Sample } from './run';
import { sleep, waitFor } from '../../test/wait';

const seeded = { published: 300, drafts: 5 } as const;
const paths = [
  '/',
  '/news',
  ...[...generateArticles(seeded)]
    .filter((x) => x.status === 'published')
    .slice(0, 20)
    .map((x) => `/${x.section}/${x.id}`),
];
let fleet: Fleet;

before(async () => {
  fleet = await startFleet(seeded);
});

after(async () => {
  await fleet?.close();
});

function push(baseUrl: string, id: string, status: 'published' | 'draft', title: string) {
  return fetch(`${baseUrl}/api/ingest/articles/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${fleetToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      section: 'news',
      status,
      title,
      lead: 'Traffic crosses again from noon.',
      author: 'Kiosk Desk',
      image: { src: '/media/bridge.svg', alt: 'The bridge', caption: 'Noon', credit: 'Kiosk', width: 1200, height: 675 },
      publishedAt: '2026-11-22T16:00:00Z',
      modifiedAt: '2026-11-22T16:00:00Z',
      body: [{ type: 'paragraph', text: 'The bridge reopened at noon.' }],
    }),
  });
}

test('a push to instance A is served by instance B, and a preview link works on both', async (t) => {
  const a = fleet.instance('A');
  const b = fleet.instance('B');
  await Promise.all([0, 1, 2, 3].map(() => fetch(`${b.baseUrl}/`)));
  const started = performance.now();
  assert.equal((await push(a.baseUrl, '202611221600000001', 'published', 'Fleet-wide: the bridge reopens')).status, 201);
  await waitFor("the push on both of B's workers", async () => {
    // Both of B's workers: four at once, and B's Nginx balances them least_conn.
    const pages = await Promise.all([0, 1, 2, 3].map(async () => (await fetch(`${b.baseUrl}/`)).text()));
    return pages.every((html) => html.includes('Fleet-wide: the bridge reopens'));
  });
  t.diagnostic(`instance B served the push to A after ${Math.round(performance.now() - started)} ms`);

  const draftId = '202611221600000002';
  assert.equal((await push(b.baseUrl, draftId, 'draft', 'Embargoed: the bridge budget')).status, 201);
  const link = previewPath(draftId, 600, fleetPreviewSecret);
  for (const instance of [a, b]) {
    const response = await fetch(instance.baseUrl + link);
    assert.equal(response.status, 200);
    assert.ok((await response.text()).includes('Embargoed: the bridge budget'));
  }
});

const failed = (list: Sample[]) => list.filter((s) => s.status !== 200).length;
const answeredBy = (list: Sample[], instance: 'A' | 'B') => list.filter((s) => s.status === 200 && s.instance === instance).length;

test('every process of instance B killed under steady load: failures counted, traffic moves to A, B comes back', { timeout: 180_000 }, async (t) => {
  const load = openLoad(fleet.proxy.url, paths, 100);
  await waitFor('the load answered through both instances', () => answeredBy(load.samples, 'A') >= 50 && answeredBy(load.samples, 'B') >= 50);
  const killedAt = performance.now();
  await fleet.kill('B');
  const outOfRotation = () => fleet.proxy.changes.find((c) => c.target === 'B' && !c.healthy && c.atMs > killedAt);
  await waitFor('the health check taking B out', () => outOfRotation() !== undefined);
  await waitFor('requests sent with B out of rotation answered', () => load.samples.filter((s) => s.atMs > outOfRotation()!.atMs).length >= 50);
  const restartedAt = performance.now();
  await fleet.restart('B');
  const bUpAt = performance.now();
  const backInRotation = () => fleet.proxy.changes.find((c) => c.target === 'B' && c.healthy && c.atMs > restartedAt);
  await waitFor('B passing its health checks again', () => backInRotation() !== undefined);
  await waitFor(
    'B taking requests again',
    () =>
      answeredBy(
        load.samples.filter((s) => s.atMs > backInRotation()!.atMs),
        'B',
      ) >= 20,
  );
  await load.stop();

  const { samples } = load;
  const out = outOfRotation();
  const backIn = backInRotation();
  const during = samples.filter((s) => s.atMs >= killedAt && s.atMs < restartedAt);
  const afterOut = samples.filter((s) => out && s.atMs > out.atMs && s.atMs < restartedAt);
  const afterBack = samples.filter((s) => backIn && s.atMs > backIn.atMs);
  t.diagnostic(
    `${samples.length} requests; during the kill ${failed(during)} of ${during.length} failed; B out of rotation ` +
      `${out ? Math.round(out.atMs - killedAt) : '?'} ms after the kill; B back ${backIn ? Math.round(backIn.atMs - bUpAt) : '?'} ms after it listened; ` +
      `after its return ${failed(afterBack)} of ${afterBack.length} failed, ${afterBack.filter((s) => s.instance === 'B').length} served by B`,
  );
  assert.ok(out, 'the health check took B out');
  assert.ok(failed(during) / during.length <= 0.001, `${failed(during)} of ${during.length} failed during the kill`);
  assert.equal(failed(afterOut), 0, 'nothing fails once B is out of rotation');
  assert.ok(afterOut.every((s) => s.instance === 'A'));
  assert.ok(backIn, 'B passed its health checks again');
  assert.equal(failed(afterBack), 0);
  assert.ok(
    afterBack.some((s) => s.instance === 'B'),
    'B takes traffic again',
  );
});

test('PostgreSQL stopped for 4 s under load through the fleet: pages or the designed 503 only, then full recovery', { timeout: 120_000 }, async (t) => {
  const load = openLoad(fleet.proxy.url, paths, 100);
  await waitFor('the load answered', () => load.samples.filter((s) => s.status === 200).length >= 100);
  const downAt = performance.now();
  fleet.database.stop();
  // The outage's length is the case under test.
  await sleep(4_000);
  fleet.database.start();
  const upAt = performance.now();
  // Every page, four times over (so through every worker of both instances), a page again.
  await waitFor('every page served again', async () => {
    const statuses = await Promise.all(paths.flatMap((p) => [0, 1, 2, 3].map(async () => (await fetch(fleet.proxy.url + p)).status)));
    return statuses.every((s) => s === 200);
  });
  const recoveredAt = performance.now();
  await waitFor('requests sent after the recovery answered', () => load.samples.filter((s) => s.atMs > recoveredAt).length >= 100);
  await load.stop();
  const { samples } = load;
  const down = samples.filter((s) => s.atMs >= downAt && s.atMs < upAt);
  const other = samples.filter((s) => s.status !== 200 && s.status !== 503);
  const afterRecovery = samples.filter((s) => s.atMs > recoveredAt);
  t.diagnostic(
    `${samples.length} requests; while down ${down.filter((s) => s.status === 200).length} pages, ${down.filter((s) => s.status === 503).length} 503s; ` +
      `other answers ${other.length}; slowest ${Math.round(Math.max(...samples.map((s) => s.ms)))} ms; ` +
      `every page again ${Math.round(recoveredAt - upAt)} ms after the return, then ${failed(afterRecovery)} of ${afterRecovery.length} not pages`,
  );
  assert.equal(other.length, 0, 'no 5xx other than the designed 503, no reset, no timeout');
  assert.equal(failed(afterRecovery), 0, 'once every page is served again, every page stays served');
});
