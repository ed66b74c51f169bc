import './styles.css';
import { useEffect, useLayoutEffect, useState } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from '../src/App';
import { renderModeAttribute, rootElementId, stateElementId, type RenderMode } from '../src/page-contract';
import { resolveRoute } from '../src/routes';
import { createStore, type AppStore, type RootState } from '../src/store';
import { storeData } from '../src/store/page-data';
import { countView, httpContentClient } from './http-content';
import { navigatedEvent, startNavigation, type Shown } from './navigation';

function readState(): Partial<RootState> | undefined {
  const text = document.getElementById(stateElementId)?.textContent;
  return text ? (JSON.parse(text) as Partial<RootState>) : undefined;
}

function Root({ store, initial }: { store: AppStore; initial: Shown }) {
  const [shown, setShown] = useState(initial);

  useEffect(() => {
    // For tests and operators: the page is live (hydrated or rendered) and navigation works.
    document.documentElement.setAttribute('data-kiosk-ready', '');
    return startNavigation(store, setShown);
  }, [store]);

  // Every article shown counts once for most read: served, from the shell, or navigated to.
  const viewed = shown.page.articleId;
  useEffect(() => {
    if (viewed !== undefined) countView(viewed);
  }, [shown, viewed]);

  useLayoutEffect(() => {
    if (shown === initial) return;
    window.scrollTo(0, shown.scrollY);
    if (shown.focusMain) document.getElementById('main')?.focus({ preventScroll: true });
    window.dispatchEvent(new CustomEvent(navigatedEvent, { detail: { path: location.pathname } }));
  }, [shown, initial]);

  return <App store={store} page={shown.page.component} />;
}

async function boot() {
  const container = document.getElementById(rootElementId);
  if (!container) return;
  // The server says how it answered; the client never guesses from the markup.
  const mode = container.getAttribute(renderModeAttribute) as RenderMode | null;
  const store = createStore(httpContentClient(), mode === 'ssr' ? readState() : undefined);

  // Server-rendered: the state already holds this page's data, so this resolves without a fetch.
  const result = await resolveRoute(location.pathname, storeData(store));
  if (result.kind === 'redirect') {
    location.replace(result.location);
    return;
  }
  document.title = result.title;
  const initial: Shown = { page: result, scrollY: 0, focusMain: false };
  const app = <Root store={store} initial={initial} />;
  if (mode === 'ssr') hydrateRoot(container, app);
  else createRoot(container).render(app);
}

boot().catch((error: unknown) => {
  // The server-rendered page stays readable; only in-browser navigation is lost.
  console.error('Kiosk could not start in the browser', error);
});
