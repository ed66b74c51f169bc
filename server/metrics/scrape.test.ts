// The primary's scrape of its workers over the cluster's IPC channel, with real worker processes:
// their answers added up, a worker that exits meanwhile left out, one that never answers a failure.
import assert from 'node:assert/strict';
import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { askWorkers, clusterText } from './prometheus';

cluster.setupPrimary({ exec: path.join(import.meta.dirname, 'fixtures', 'scrape-worker.ts'), execArgv: ['--import', 'tsx'], silent: true });

function fork(mode: 'answer' | 'exit' | 'silent'): Promise<Worker> {
  const worker = cluster.fork({ SCRAPE_WORKER: mode });
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('exit', (code) => reject(new Error(`the ${mode} worker exited with ${code} before it was ready`)));
  });
}

afterEach(async () => {
  await Promise.all(
    Object.values(cluster.workers ?? {}).map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (!worker || worker.isDead()) return resolve();
          worker.once('exit', () => resolve());
          worker.kill();
        }),
    ),
  );
});

test("every worker's families, added up as each family says", async () => {
  await Promise.all([fork('answer'), fork('answer')]);
  const answers = await askWorkers(10_000);
  assert.equal(answers.length, 2);
  assert.match(await clusterText(answers), /^kiosk_requests_total 10$/m);
});

test('a worker that exits during a scrape is left out; the others still answer', async () => {
  await Promise.all([fork('answer'), fork('exit')]);
  const answers = await askWorkers(10_000);
  assert.equal(answers.length, 1);
  assert.match(await clusterText(answers), /^kiosk_requests_total 5$/m);
});

test('a worker that never answers fails the scrape when its time is up, and says how many did not answer', async () => {
  await Promise.all([fork('answer'), fork('silent')]);
  await assert.rejects(askWorkers(300), /1 of 2 workers did not answer within 300 ms/);
});

test('no workers: nothing to add up', async () => {
  assert.deepEqual(await askWorkers(300), []);
});
