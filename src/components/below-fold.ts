import { useSyncExternalStore } from 'react';
import { useAppSelector } from '../store/hooks';

// Whether this page (this document) has let the blocks below the fold render yet. Set once, a
// task after the first subscriber: a later page of the same document renders them at once.
let ready = false;
let scheduled = false;
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!scheduled) {
    scheduled = true;
    // In a task of their own once hydration is done: rendered in the same task, the twelve cards
    // and the most-read list made hydration one long task on a throttled phone (Lighthouse's
    // total blocking time). Their boxes are reserved, so nothing shifts when they arrive.
    const release = () => {
      ready = true;
      for (const notify of listeners) notify();
    };
    // A browser API the server's type library does not know; called on the window, as it must be.
    const idle = (globalThis as { requestIdleCallback?: (callback: () => void, options: { timeout: number }) => number }).requestIdleCallback;
    if (idle) idle.call(globalThis, release, { timeout: 200 });
    else setTimeout(release, 0);
  }
  return () => listeners.delete(listener);
}

/**
 * Whether the blocks below the fold render now. On the server and in the hydration render:
 * only if the server rendered them (DOM_BUDGET=off), so hydration matches the HTML. In the
 * browser, from the task after the page's first render (hydrated, the shell's or a
 * navigation's), and at once on every page after that. useSyncExternalStore gives exactly that:
 * React uses the server snapshot while hydrating, then renders again when the snapshot changes.
 */
export function useBelowFold(): boolean {
  const deferred = useAppSelector((state) => state.render.belowFoldDeferred);
  const inBrowser = useSyncExternalStore(
    subscribe,
    () => ready,
    () => false,
  );
  return !deferred || inBrowser;
}
