import { setAutoFreeze } from 'immer';
import type { ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { Provider } from 'react-redux';
import { App } from '../src/App';
import type { ContentClient } from '../src/content';
import { Layout } from '../src/components/Layout';
import { ErrorPage } from '../src/pages/ErrorPage';
import { MessagePage } from '../src/pages/MessagePage';
import { resolveRoute, type CacheClass, type PageResult } from '../src/routes';
import type { AppStore } from '../src/store';
import { latestListSize } from '../src/content';
import { PageState } from './page-state';
import type { Assets } from './assets';
import { cacheControl, pageLifetimes, type PageLifetimes } from './cache-policy';
import { cacheTagHeader, cacheTag, pageTags } from './edge/tags';
import { renderDocument } from './document';
import { contentSecurityPolicy, newNonce } from './security-headers';
import type { TurnBudget } from './turns';

// Every request builds a store and throws it away after one render; immer's deep freeze of
// each loaded article and list would cost more than the render of the page's body (measured:
// ~80 µs of ~700 µs per article page). The browser keeps freezing, where it catches mistakes.
setAutoFreeze(false);

export interface RenderDeps {
  content: ContentClient;
  assets: Assets;
  siteUrl: string;
  /** Latest headlines rendered on the server (SSR_LATEST_ITEMS); the browser adds the rest. */
  latestItems?: number;
  /** DOM_BUDGET: leave the blocks below the fold to the browser (the default); false renders them here. */
  domBudget?: boolean;
  /** The header, navigation and footer rendered once (buildChrome, as every worker does); null renders them per request (the whole render the splice is checked against). */
  chrome?: Chrome | null;
  /** Edge lifetimes per page type (server/cache-policy.ts): the long ones while edge purge is on; the short ones unless given. */
  lifetimes?: PageLifetimes;
  /** The worker's clock for the turn of the event loop (server/turns.ts): a render past its budget waits a turn. */
  turns?: TurnBudget;
}

/** The site's chrome as HTML, split where a page's own markup goes. */
export interface Chrome {
  before: string;
  after: string;
}

const chromeSlot = 'KIOSK-CHROME-SLOT-7f3a9c';
const leadingLinks = /^(?:<link [^>]*\/>)+/;

/**
 * Every page shares the header, navigation and footer, and they depend on nothing a request
 * brings; render them once per process with public React APIs and splice each page's own
 * markup in between. The result is byte for byte what rendering <App> whole gives (a test
 * checks), so the browser hydrates the same tree.
 */
export function buildChrome(): Chrome {
  const html = renderToString(<Layout>{chromeSlot}</Layout>);
  const parts = html.split(chromeSlot);
  if (parts.length !== 2) throw new Error('the chrome must have exactly one place for the page');
  return { before: parts[0]!, after: parts[1]! };
}

export type RenderOutcome =
  | {
      kind: 'page';
      status: number;
      html: string;
      headers: Record<string, string>;
      nonce?: string;
      /** What kind of page it is, and its one address (null for a 404): what a last good copy is kept of. */
      cache: CacheClass;
      canonicalPath: string | null;
    }
  | { kind: 'redirect'; status: 301; location: string; headers: Record<string, string> };

/**
 * Server rendering as a pipeline: create store → resolve route (which loads the page's data
 * into the store) → render app → render document. Returns data, and the caller answers with it
 * (server/pages.ts for readers, server/preview.ts for editors).
 *
 * `preview`: an editor's preview with this banner: the same page, but nothing for a cache,
 * a search engine or the browser bundle (no scripts, no state, no canonical URL).
 */
export async function renderPage(pathname: string, deps: RenderDeps, options: { preview?: string } = {}): Promise<RenderOutcome> {
  // Data first, straight into the page's state; then one store from it for the render.
  const data = new PageState(deps.content, {
    latestItems: deps.latestItems ?? latestListSize,
    belowFold: deps.domBudget === false ? 'server' : 'browser',
    siteUrl: deps.siteUrl,
  });
  const result = await resolveRoute(pathname, data);
  const lifetimes = deps.lifetimes ?? pageLifetimes(false);
  if (result.kind === 'redirect') {
    // An article's address under another section: it moves if the article does.
    const id = /\/(\d{18})$/.exec(result.location)?.[1];
    const tags = id === undefined ? {} : cacheTagHeader([cacheTag.article(id)]);
    return { kind: 'redirect', status: result.status, location: result.location, headers: { 'Cache-Control': lifetimes.article, ...tags } };
  }
  // Requests that waited on one store read go on together when it answers: past the turn's
  // budget, a render waits for the next turn rather than hold the loop (server/turns.ts).
  if (deps.turns?.spent()) await deps.turns.ready();
  const store = data.store();
  const body = renderApp(store, result, deps.chrome ?? null);
  const preview = options.preview !== undefined;
  const nonce = preview ? undefined : newNonce();
  const html = renderDocument({
    head: {
      title: preview ? `${options.preview}: ${result.title}` : result.title,
      description: result.description,
      canonicalUrl: result.canonicalPath === null || preview ? null : deps.siteUrl + result.canonicalPath,
      ogType: result.ogType,
      ogImage: result.ogImage,
      robots: result.status === 404 || preview ? 'noindex' : undefined,
    },
    siteUrl: deps.siteUrl,
    assets: deps.assets,
    body,
    banner: options.preview,
    state: preview ? undefined : store.getState(),
    mode: preview ? undefined : 'ssr',
    nonce,
  });
  return {
    kind: 'page',
    status: result.status,
    html,
    nonce,
    cache: result.cache,
    canonicalPath: result.canonicalPath,
    headers: {
      'Content-Security-Policy': contentSecurityPolicy(nonce === undefined ? 'none' : { nonce }),
      'Cache-Control': result.cache === 'notFound' ? cacheControl.notFound : lifetimes[result.cache],
      'X-Render-Mode': 'ssr',
      // What the page shows, for purging it at the edge (server/edge/tags.ts); none on a preview.
      ...(preview ? {} : pageTags(result.cache, store.getState(), result.articleId)),
    },
  };
}

function renderApp(store: AppStore, result: PageResult, chrome: Chrome | null): string {
  if (chrome === null) return renderToString(<App store={store} page={result.component} />);
  const page = renderToString(<Provider store={store}>{result.component}</Provider>);
  // React puts the preloads it hoists (the lead image) first in its output; whole, that is
  // before the header, so they go there.
  const preloads = leadingLinks.exec(page)?.[0] ?? '';
  return preloads + chrome.before + page.slice(preloads.length) + chrome.after;
}

/**
 * An error page inside the site's chrome, without the client bundle (nothing to hydrate).
 * If even that fails, a plain-text answer: an error page must never throw.
 */
export function renderErrorPage(status: number, message: string, deps: Pick<RenderDeps, 'assets' | 'siteUrl'>): { html: string; contentType: string } {
  return renderNotice(<ErrorPage status={status} message={message} />, `Error ${status}`, message, deps);
}

/** A form's outcome in the site's chrome ("thank you for signing up"), without the client bundle. */
export function renderMessagePage(heading: string, message: string, deps: Pick<RenderDeps, 'assets' | 'siteUrl'>): { html: string; contentType: string } {
  return renderNotice(<MessagePage heading={heading} message={message} />, heading, message, deps);
}

function renderNotice(page: ReactElement, title: string, message: string, deps: Pick<RenderDeps, 'assets' | 'siteUrl'>): { html: string; contentType: string } {
  try {
    const body = renderToString(<Layout>{page}</Layout>);
    const html = renderDocument({
      head: { title: `${title} — Kiosk`, description: message, canonicalUrl: null, ogType: 'website', robots: 'noindex' },
      siteUrl: deps.siteUrl,
      assets: deps.assets,
      body,
    });
    return { html, contentType: 'text/html; charset=utf-8' };
  } catch {
    return { html: `${title}: ${message}\n`, contentType: 'text/plain; charset=utf-8' };
  }
}
