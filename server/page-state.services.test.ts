// The server loads a route's data straight into the page's state (server/page-state.ts); the
// browser loads the same routes through thunks and reducers (src/store/page-data.ts). If the two
// ever left different states behind, hydration would not match the server's HTML: this checks
// they do not, for every kind of page, with the DOM budget on and off.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { resolveRoute } from '../src/routes';
import { createStore } from '../src/store';
import { storeData } from '../src/store/page-data';
import { openSqliteContent, seedTempStore } from '../test/server';
import type { Content } from './content/open';
import { PageState } from './page-state';

let dir: string;
let content: Content;
let paths: string[];

before(async () => {
  let dbPath: string;
  ({ dir, dbPath } = await seedTempStore(300, 5));
  content = await openSqliteContent(dbPath);
  const latest = await content.reader.latest(5);
  const wrongSection = latest[1]!.section === 'news' ? 'sport' : 'news';
  paths = [
    '/',
    '/news',
    '/sport',
    '/tag/elections',
    '/tag/no-such-tag',
    '/nowhere',
    ...latest.map((h) => `/${h.section}/${h.id}`),
    `/${wrongSection}/${latest[1]!.id}`,
    '/news/202611211200999999',
  ];
  // Some reading, so most read has something to show with the budget off.
  await content.views!.record(Math.floor(Date.now() / 60_000), new Map(latest.map((h, i) => [h.id, 5 - i])));
});

after(async () => {
  await content.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

for (const belowFold of ['browser', 'server'] as const) {
  test(`the state the server loads is the state the browser's thunks load, DOM budget ${belowFold === 'browser' ? 'on' : 'off'}`, async () => {
    const latestItems = belowFold === 'browser' ? 5 : 15;
    for (const path of paths) {
      const server = new PageState(content.reader, { latestItems, belowFold, siteUrl: 'https://kiosk.example' });
      const served = await resolveRoute(path, server);
      const store = createStore(content.reader, undefined, { latestItems, belowFold, siteUrl: 'https://kiosk.example' });
      const browsed = await resolveRoute(path, storeData(store));
      assert.equal(served.kind, browsed.kind, path);
      if (served.kind === 'page' && browsed.kind === 'page') assert.deepEqual({ ...served, component: null }, { ...browsed, component: null }, path);
      assert.deepEqual(server.state, store.getState(), path);
      assert.deepEqual(server.store().getState(), store.getState(), `${path}: the store made from it holds it`);
    }
  });
}
