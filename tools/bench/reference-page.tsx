// Kiosk's article page as a team without Kiosk would serve it: the bare-Express reference's
// per-request work (tools/bench/express-reference.tsx runs it over HTTP, render-reference.tsx in
// process). Every article page's data is read into memory first; per request, one Redux store
// made from that page's state with nothing else in it (no middleware: nothing is dispatched
// while rendering), renderToString of the same components, and the same document with the state
// embedded by the same escaping helper. No content store on the request path, no guard, no
// metrics, no nonce: the leanest server that still renders the page, so the ratio to it is what
// everything Kiosk adds costs.
import { legacy_createStore } from '@reduxjs/toolkit';
import { renderToString } from 'react-dom/server';
import {
  App,
  ArticlePage,
  latestListSize,
  loadConfig,
  openContent,
  PageState,
  renderDocument,
  resolveRoute,
  rootReducer,
  serializeState,
  stateElementId,
  type AppStore,
  type Assets,
  type PageResult,
  type RootState,
} from '@kiosk/surface';

export const referenceSiteUrl = 'http://localhost';

export interface PreloadedPage {
  id: string;
  state: RootState;
  page: PageResult;
}

/**
 * Every article page's state as Kiosk loads it with the DOM budget off (every block), held as
 * loaded: the pages share what they share (the latest list, most read, a teaser on many pages),
 * as a server that read its data at start would hold it.
 */
export async function preloadPages(dbPath: string, paths: readonly string[]): Promise<Map<string, PreloadedPage>> {
  const config = loadConfig({ CONTENT_DB_PATH: dbPath, CONTENT_CACHE_ENTRIES: '1000000', CONTENT_CACHE_MB: '4096' });
  const content = await openContent(config.content, config);
  const pages = new Map<string, PreloadedPage>();
  try {
    for (const path of paths) {
      const data = new PageState(content.reader, { latestItems: latestListSize, belowFold: 'server', siteUrl: referenceSiteUrl });
      const page = await resolveRoute(path, data);
      if (page.kind !== 'page' || page.status !== 200 || page.articleId === undefined) continue;
      pages.set(path, { id: page.articleId, state: data.state, page });
    }
  } finally {
    await content.close();
  }
  return pages;
}

const end = '</body></html>';

/** The page's HTML, as the reference writes it for every request. */
export function renderReferencePage(preloaded: PreloadedPage, assets: Assets): string {
  const store = legacy_createStore(rootReducer, preloaded.state);
  const body = renderToString(<App store={store as unknown as AppStore} page={<ArticlePage id={preloaded.id} />} />);
  const { page } = preloaded;
  const html = renderDocument({
    head: {
      title: page.title,
      description: page.description,
      canonicalUrl: referenceSiteUrl + page.canonicalPath,
      ogType: page.ogType,
      ogImage: page.ogImage,
    },
    siteUrl: referenceSiteUrl,
    assets,
    body,
    mode: 'ssr',
  });
  // The state script where Kiosk's document has it, written by the same helper.
  const state = `<script id="${stateElementId}" type="application/json">${serializeState(store.getState())}</script>`;
  return html.slice(0, -end.length) + state + end;
}
