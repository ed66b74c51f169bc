import { useSyncExternalStore } from 'react';
import { useAppSelector } from '../store/hooks';

const subscribe = () => () => undefined;

/**
 * Whether the blocks below the fold render now. On the server and in the hydration render:
 * only if the server rendered them (DOM_BUDGET=off), so hydration matches the HTML. Right after
 * hydration, and in any page the browser renders itself (the shell, a navigation): always.
 * useSyncExternalStore gives exactly that: React uses the server snapshot while hydrating, then
 * renders again with the client's.
 */
export function useBelowFold(): boolean {
  const deferred = useAppSelector((state) => state.render.belowFoldDeferred);
  const inBrowser = useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
  return !deferred || inBrowser;
}
