import { TeaserCard } from '../components/TeaserCard';
import { findSection, type SectionSlug } from '../sections';
import { useAppDispatch, useAppSelector } from '../store/hooks';
import { loadMoreOfSection } from '../store/thunks';

export function SectionPage({ slug }: { slug: SectionSlug }) {
  const listing = useAppSelector((state) => state.sections[slug]);
  const dispatch = useAppDispatch();
  const name = findSection(slug)?.name ?? slug;
  if (!listing) return null;
  return (
    <div className="section-page">
      <h1>{name}</h1>
      <ul className="section-page__list">
        {listing.items.map((t, i) => (
          <li key={t.id}>
            <TeaserCard teaser={t} heading="h2" eagerImage={i < 2} />
          </li>
        ))}
      </ul>
      {listing.nextCursor && (
        <p className="section-page__more">
          <button type="button" className="button" disabled={listing.loadingMore} onClick={() => void dispatch(loadMoreOfSection(slug))}>
            {listing.loadingMore ? 'Loading…' : `More ${name.toLowerCase()}`}
          </button>
          {listing.moreFailed && (
            <span role="alert" className="section-page__error">
              {' '}
              Could not load more stories. Please try again.
            </span>
          )}
        </p>
      )}
    </div>
  );
}
