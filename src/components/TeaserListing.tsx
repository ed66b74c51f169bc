import type { Listing } from '../store/content-slices';
import { useAppDispatch } from '../store/hooks';
import { loadMoreOf } from '../store/thunks';
import { TeaserCard } from './TeaserCard';

/** A section's or a tag's stories, newest first, and a button for the next page (cursor paging). */
export function TeaserListing({ kind, slug, listing, moreLabel }: { kind: 'section' | 'tag'; slug: string; listing: Listing; moreLabel: string }) {
  const dispatch = useAppDispatch();
  return (
    <>
      <ul className="section-page__list">
        {listing.items.map((t, i) => (
          <li key={t.id}>
            <TeaserCard teaser={t} heading="h2" eagerImage={i < 2} />
          </li>
        ))}
      </ul>
      {listing.nextCursor && (
        <p className="section-page__more">
          <button type="button" className="button" disabled={listing.loadingMore} onClick={() => void dispatch(loadMoreOf(kind, slug))}>
            {listing.loadingMore ? 'Loading…' : moreLabel}
          </button>
          {listing.moreFailed && (
            <span role="alert" className="section-page__error">
              {' '}
              Could not load more stories. Please try again.
            </span>
          )}
        </p>
      )}
    </>
  );
}
