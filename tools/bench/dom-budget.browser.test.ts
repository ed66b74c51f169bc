// The DOM-budget step of `npm run bench` against the built server and real Chromium: both
// variants started, the page counted as served and as finally shown, the figures written and
// described. The capacity search is the bench's own (tools/bench/search.ts, tested there); a
// load search on this shared machine would measure the neighbours, so here it answers a fixed
// rate and this test checks the plumbing around it, not a capacity.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { repositoryRoot as root } from '@kiosk/surface';
import { openSqliteContent, seedTempStore } from '../../test/server';
import { describeDomBudget, measureDomBudget } from './dom-budget';
import { startKiosk } from './processes';
import type { SearchOutcome } from './results';

let dir: string;
let dbPath: string;
let out: string;

before(async () => {
  ({ dir, dbPath } = await seedTempStore(1_000, 10));
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-dom-budget-'));
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
});

test('DOM budget on and off in one run: elements as served and as shown for both, written and described', async () => {
  const content = await openSqliteContent(dbPath);
  const article = (await content.reader.latest(5))[4]!;
  await content.close();
  const started: string[] = [];
  const searched: string[] = [];
  const result = await measureDomBudget({
    async withKiosk(name, env, work) {
      started.push(`${name}: ${env.DOM_BUDGET}`);
      const server = await startKiosk(root, name, dbPath, env, { core: null });
      try {
        return await work(server);
      } finally {
        await server.stop();
      }
    },
    async findRate(_server, name) {
      searched.push(name);
      const rate = name.endsWith('=on') ? 300 : 200;
      return {
        name,
        ratePerS: rate,
        searchRatePerS: rate,
        confirmed: true,
        hitCeiling: false,
        limitedBy: 'server',
        passed: null,
        failedAbove: null,
        probes: [],
      } satisfies SearchOutcome;
    },
    progress: (line) => console.log(line),
    outDir: out,
    path: `/${article.section}/${article.id}`,
    startPerS: 100,
  });
  assert.deepEqual(started, ['DOM budget on: on', 'DOM budget off: off']);
  assert.deepEqual(searched, ['SSR capacity, DOM_BUDGET=on', 'SSR capacity, DOM_BUDGET=off']);
  const [on, off] = result.variants;
  assert.ok(on && off);
  assert.ok(on.elementsShown !== null && off.elementsShown !== null, 'Chromium counted both');
  assert.equal(on.elementsShown, off.elementsShown, 'the reader sees the same page either way');
  assert.equal(off.elementsServed, off.elementsShown, 'with the budget off the server renders all of it');
  assert.ok(on.elementsServed <= on.elementsShown * 0.6, `served ${on.elementsServed} of ${on.elementsShown}`);
  assert.equal(result.capacityRatio, 1.5);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(out, 'dom-budget.json'), 'utf8')), result);
  const lines = describeDomBudget(result);
  assert.match(lines[0]!, new RegExp(`DOM_BUDGET=on .*: ${on.elementsServed} elements as served, ${on.elementsShown} as finally shown`));
  assert.match(lines[2]!, /capacity on\/off 1\.50x/);
  console.log(lines.join('\n'));
});
