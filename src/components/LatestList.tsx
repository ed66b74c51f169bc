import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../store/hooks';
import { completeLatest } from '../store/thunks';
import { HeadlineItem } from './article-blocks';

/**
 * Below the fold: the server renders the first SSR_LATEST_ITEMS, the browser fills in the rest
 * after hydration (effects never run on the server, so the first client render matches).
 */
export function LatestList({ excludeId }: { excludeId?: string }) {
  const items = useAppSelector((state) => state.latest.items);
  const dispatch = useAppDispatch();
  useEffect(() => {
    void dispatch(completeLatest());
  }, [dispatch]);
  if (!items || items.length === 0) return null;
  return (
    <aside className="latest" aria-labelledby="latest-heading">
      <h2 id="latest-heading">Latest news</h2>
      <ol className="latest__list">
        {items
          .filter((t) => t.id !== excludeId)
          .map((t) => (
            <HeadlineItem key={t.id} headline={t} />
          ))}
      </ol>
    </aside>
  );
}
