import { articlePath } from '../content';
import { useAppSelector } from '../store/hooks';
import { Timestamp } from './Timestamp';

export function LatestList({ excludeId }: { excludeId?: string }) {
  const items = useAppSelector((state) => state.latest.items);
  if (!items || items.length === 0) return null;
  return (
    <aside className="latest" aria-labelledby="latest-heading">
      <h2 id="latest-heading">Latest news</h2>
      <ol className="latest__list">
        {items
          .filter((t) => t.id !== excludeId)
          .map((t) => (
            <li key={t.id}>
              <Timestamp iso={t.publishedAt} /> <a href={articlePath(t)}>{t.title}</a>
            </li>
          ))}
      </ol>
    </aside>
  );
}
