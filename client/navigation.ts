import { resolveRoute, type PageResult } from '../src/routes';
import type { AppStore } from '../src/store';
import { classify } from '../src/request-kinds';
import { storeData } from '../src/store/page-data';

/** What the page view needs to show a navigation's result and put the reader in the right place. */
export interface Shown {
  page: PageResult;
  /** Where to scroll after the page renders: a saved position for back/forward, else the top. */
  scrollY: number;
  /** Move focus to the main region so screen readers announce the new page. */
  focusMain: boolean;
}

interface HistoryState {
  kiosk: true;
  scrollY: number;
}

/** Fired on window once a navigation has rendered; tests and analytics can listen. */
export const navigatedEvent = 'kiosk:navigated';

function routableLink(event: MouseEvent): URL | null {
  if (event.defaultPrevented || event.button !== 0) return null;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return null;
  const anchor = (event.target as Element | null)?.closest?.('a[href]');
  if (!(anchor instanceof HTMLAnchorElement)) return null;
  if (anchor.hasAttribute('download') || (anchor.target && anchor.target !== '_self')) return null;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin) return null;
  // Only pages are the route table's (src/request-kinds.ts); anything else is the server's.
  if (classify(url.pathname) !== 'page') return null;
  // In-page links (the skip link) stay with the browser.
  if (url.pathname === location.pathname && url.hash) return null;
  return url;
}

function rememberScroll() {
  const state: HistoryState = { kiosk: true, scrollY: window.scrollY };
  history.replaceState(state, '');
}

/**
 * In-browser navigation: same-site links and back/forward resolve the route against the
 * store (which fetches from /api what it lacks) and render without reloading the document.
 * Any failure to load falls back to a full page load, which the server answers.
 */
export function startNavigation(store: AppStore, show: (shown: Shown) => void): () => void {
  let latest = 0;
  history.scrollRestoration = 'manual';

  async function navigate(url: URL, how: 'push' | 'replace' | 'pop', scrollY: number) {
    const ticket = ++latest;
    let result;
    try {
      result = await resolveRoute(url.pathname, storeData(store));
    } catch {
      location.assign(url.href);
      return;
    }
    // A reader who clicked again while this one loaded wants the later page.
    if (ticket !== latest) return;
    if (result.kind === 'redirect') {
      await navigate(new URL(result.location, location.href), how === 'pop' ? 'replace' : how, 0);
      return;
    }
    const state: HistoryState = { kiosk: true, scrollY };
    if (how === 'push') history.pushState(state, '', url.pathname + url.search + url.hash);
    else if (how === 'replace') history.replaceState(state, '', url.pathname + url.search + url.hash);
    document.title = result.title;
    show({ page: result, scrollY, focusMain: how !== 'pop' });
  }

  function onClick(event: MouseEvent) {
    const url = routableLink(event);
    if (!url) return;
    event.preventDefault();
    rememberScroll();
    void navigate(url, 'push', 0);
  }

  function onPopState(event: PopStateEvent) {
    const state = event.state as Partial<HistoryState> | null;
    void navigate(new URL(location.href), 'pop', state?.scrollY ?? 0);
  }

  document.addEventListener('click', onClick);
  window.addEventListener('popstate', onPopState);
  return () => {
    document.removeEventListener('click', onClick);
    window.removeEventListener('popstate', onPopState);
  };
}
