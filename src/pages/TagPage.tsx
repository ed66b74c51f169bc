import { TeaserListing } from '../components/TeaserListing';
import { useAppSelector } from '../store/hooks';
import { entryOf } from '../store/keyed';
import { tagName } from '../tags';

export function TagPage({ slug }: { slug: string }) {
  const listing = useAppSelector((state) => entryOf(state.tags, slug));
  if (!listing) return null;
  const name = tagName(slug);
  return (
    <div className="section-page tag-page">
      <p className="tag-page__kind">Topic</p>
      <h1>{name}</h1>
      <TeaserListing kind="tag" slug={slug} listing={listing} moreLabel={`More on ${name.toLowerCase()}`} />
    </div>
  );
}
