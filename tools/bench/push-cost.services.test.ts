// What one new story costs the content layer, counted in process over a real SQLite store: the
// first pushes are set apart (their passes pay for the start-up), the others counted, and the
// counters say what each push made the cache do again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { publishedArticlePaths, seedTempStore } from '@kiosk/surface';
import { measurePushCost } from './push-cost';

test('a push counted in process: the first ones set apart, every page read again after each of the others', async () => {
  const { dir, dbPath } = await seedTempStore(600, 0);
  try {
    const ids = publishedArticlePaths(dbPath).map((p) => p.split('/')[2]!);
    const before = fs.statSync(dbPath).mtimeMs;
    const cost = await measurePushCost(dbPath, ids, { pushes: 4, warmupPushes: 2, chunk: 100 });
    assert.equal(cost.pushes, 4);
    assert.equal(cost.method, 'paired', 'each chunk read twice back to back, the first read less the second');
    assert.equal(cost.chunk, 100);
    assert.equal(cost.ids, ids.length);
    assert.equal(cost.extraMsEach?.length, 4, 'one figure per counted push');
    assert.equal(cost.warmupExtraMs?.length, 2, 'the first pushes apart');
    assert.equal(cost.controlExtraMsEach?.length, 4, 'a push of nothing after each counted push: the control');
    assert.ok(Number.isFinite(cost.controlExtraMs), `the control's median: ${cost.controlExtraMs}`);
    // A new story enters the lists it belongs to, so each push reads some of them again, and
    // the pages that share a tag with it have their related stories brought up to date.
    assert.ok(cost.storeReads >= 1, `store reads per push: ${cost.storeReads}`);
    assert.ok((cost.rankingsUpdated ?? 0) + (cost.rankedAgain ?? 0) >= 1, `rankings touched per push: ${JSON.stringify(cost)}`);
    assert.ok(cost.passMs > 0 && Number.isFinite(cost.extraMs), `a warm pass ${cost.passMs} ms, the push ${cost.extraMs} ms`);
    assert.equal(fs.statSync(dbPath).mtimeMs, before, 'the pushes went to a copy: the run’s store is as it was');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
