import { TeaserListing } from '../components/TeaserListing';
import { findSection, type SectionSlug } from '../sections';
import { useAppSelector } from '../store/hooks';
import { entryOf } from '../store/keyed';

export function SectionPage({ slug }: { slug: SectionSlug }) {
  const listing = useAppSelector((state) => entryOf(state.sections, slug));
  const name = findSection(slug)?.name ?? slug;
  if (!listing) return null;
  return (
    <div className="section-page">
      <h1>{name}</h1>
      <TeaserListing kind="section" slug={slug} listing={listing} moreLabel={`More ${name.toLowerCase()}`} />
    </div>
  );
}
