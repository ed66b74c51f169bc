// Reference limits without HTTP, run by the orchestrator pinned to core 0 with
// NODE_ENV=production (so React's production build is the one loaded):
//   raw:        renderToString(<App/>) alone, the page's data already in its store;
//   renderPage: the whole in-process pipeline (store, data, React, document).
// Usage: node --import tsx scripts/bench/render-reference.tsx DB DIST SECONDS ARTICLE_PATHS.json
import fs from 'node:fs';
import { renderToString } from 'react-dom/server';
import { loadAssets } from '../../server/assets';
import { openSqliteStore } from '../../server/content/sqlite';
import { renderPage } from '../../server/render';
import { App } from '../../src/App';
import { resolveRoute, type PageResult } from '../../src/routes';
import { createStore, type AppStore } from '../../src/store';

// Enough distinct pages that no one article's shape decides the figure.
const pagesRendered = 200;

const [dbPath = '', distDir = '', secondsArg = '5', pathsFile = ''] = process.argv.slice(2);
const seconds = Number(secondsArg);
const content = openSqliteStore(dbPath, { readonly: true });
const assets = loadAssets(distDir);
const allPaths = JSON.parse(fs.readFileSync(pathsFile, 'utf8')) as string[];
const stride = Math.max(1, Math.floor(allPaths.length / pagesRendered));
const paths = allPaths.filter((_, i) => i % stride === 0).slice(0, pagesRendered);

async function loadedPages(): Promise<{ store: AppStore; page: PageResult }[]> {
  const pages = [];
  for (const path of paths) {
    const store = createStore(content);
    const result = await resolveRoute(path, store);
    if (result.kind !== 'page' || result.status !== 200) throw new Error(`${path} did not resolve to a page`);
    pages.push({ store, page: result });
  }
  return pages;
}

/** Calls `work` for `ms` milliseconds; returns calls per second. */
async function rate(ms: number, work: (i: number) => unknown): Promise<number> {
  const start = performance.now();
  let calls = 0;
  let now = start;
  while (now - start < ms) {
    await work(calls++);
    now = performance.now();
  }
  return (calls * 1000) / (now - start);
}

const pages = await loadedPages();
const raw = (i: number) => renderToString(<App store={pages[i % pages.length]!.store} page={pages[i % pages.length]!.page.component} />);
const pipeline = (i: number) => renderPage(paths[i % paths.length]!, { content, assets, siteUrl: 'http://localhost' });

const warmupMs = Math.min(2000, (seconds * 1000) / 3);
await rate(warmupMs, raw);
const rawRenderPerS = await rate(seconds * 1000, raw);
await rate(warmupMs, pipeline);
const renderPagePerS = await rate(seconds * 1000, pipeline);
content.close();
console.log(
  JSON.stringify({
    rawRenderPerS,
    renderPagePerS,
    pages: pages.length,
    appHtmlBytes: Buffer.byteLength(raw(0)),
    nodeEnv: process.env.NODE_ENV ?? null,
  }),
);
