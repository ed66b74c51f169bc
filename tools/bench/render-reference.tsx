// Reference limits without HTTP, run by the orchestrator pinned to core 0 with
// NODE_ENV=production (so React's production build is the one loaded):
//   raw:        renderToString(<App/>) alone, the page's data already in its store: the page
//               as the server sends it by default (SSR_LATEST_ITEMS latest headlines);
//   renderPage: the whole in-process pipeline (store, data, React, document), as configured
//               by default, and each server-rendering optimisation on and off;
// Usage: node --import tsx tools/bench/render-reference.tsx DB DIST SECONDS ARTICLE_PATHS.json
import fs from 'node:fs';
import { renderToString } from 'react-dom/server';
import {
  App,
  buildChrome,
  createStore,
  latestListSize,
  loadAssets,
  loadConfig,
  openContent,
  renderPage,
  resolveRoute,
  storeData,
  type AppStore,
  type PageResult,
  type RenderDeps,
} from '@kiosk/surface';
import { countElements } from './articles';
import { preloadPages, renderReferencePage } from './reference-page';

// Enough distinct pages that no one article's shape decides the figure.
const pagesRendered = 200;

const [dbPath = '', distDir = '', secondsArg = '5', pathsFile = ''] = process.argv.slice(2);
const seconds = Number(secondsArg);
const opened = await openContent({ store: 'sqlite', path: dbPath }, loadConfig({}));
const content = opened.reader;
const assets = loadAssets(distDir);
const allPaths = JSON.parse(fs.readFileSync(pathsFile, 'utf8')) as string[];
const stride = Math.max(1, Math.floor(allPaths.length / pagesRendered));
const paths = allPaths.filter((_, i) => i % stride === 0).slice(0, pagesRendered);

async function loadedPages(): Promise<{ store: AppStore; page: PageResult }[]> {
  const pages = [];
  for (const path of paths) {
    const store = createStore(content, undefined, { latestItems: defaults.ssrLatestItems });
    const result = await resolveRoute(path, storeData(store));
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

const defaults = loadConfig({ NODE_ENV: 'production' });
const pages = await loadedPages();
const raw = (i: number) => renderToString(<App store={pages[i % pages.length]!.store} page={pages[i % pages.length]!.page.component} />);
const base: RenderDeps = { content, assets, siteUrl: 'http://localhost' };
const chrome = buildChrome();
const pipelineWith = (deps: RenderDeps) => (i: number) => renderPage(paths[i % paths.length]!, deps);
const pipeline = pipelineWith({ ...base, latestItems: defaults.ssrLatestItems, chrome });
// The chrome is always rendered once (buildChrome), as a worker renders it; the one lever left to
// compare is how many latest headlines the server renders.
const variants: { name: string; deps: RenderDeps }[] = [
  { name: `whole render, ${latestListSize} latest headlines`, deps: { ...base, latestItems: latestListSize, chrome } },
  { name: `latest list cut to ${defaults.ssrLatestItems} (SSR_LATEST_ITEMS, the default)`, deps: { ...base, latestItems: defaults.ssrLatestItems, chrome } },
];

// The same page both ways, every block rendered: Kiosk's renderPage with DOM_BUDGET=off, and the
// bare-Express reference's work per request (tools/bench/reference-page.tsx), both in process.
const offDeps: RenderDeps = { ...base, latestItems: latestListSize, domBudget: false, chrome };
const renderPageOff = pipelineWith(offDeps);
const preloaded = [...(await preloadPages(dbPath, paths)).values()];
const referenceWork = (i: number) => renderReferencePage(preloaded[i % preloaded.length]!, assets);

const warmupMs = Math.min(2000, (seconds * 1000) / 3);
await rate(warmupMs, raw);
const rawRenderPerS = await rate(seconds * 1000, raw);
await rate(warmupMs, pipeline);
const renderPagePerS = await rate(seconds * 1000, pipeline);
await rate(warmupMs, renderPageOff);
const renderPageOffPerS = await rate(seconds * 1000, renderPageOff);
await rate(warmupMs, referenceWork);
const referencePerS = await rate(seconds * 1000, referenceWork);
const variantFigures = [];
for (const variant of variants) {
  const work = pipelineWith(variant.deps);
  await rate(warmupMs / 2, work);
  const perS = await rate(seconds * 1000, work);
  const sample = await renderPage(paths[0]!, variant.deps);
  const html = sample.kind === 'page' ? sample.html : '';
  variantFigures.push({ name: variant.name, renderPagePerS: perS, elements: countElements(html), bytes: Buffer.byteLength(html) });
}
await opened.close();
console.log(
  JSON.stringify({
    rawRenderPerS,
    renderPagePerS,
    renderPageOffPerS,
    referencePerS,
    variants: variantFigures,
    pages: pages.length,
    appHtmlBytes: Buffer.byteLength(raw(0)),
    nodeEnv: process.env.NODE_ENV ?? null,
  }),
);
