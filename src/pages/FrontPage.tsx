import { TeaserCard } from '../components/TeaserCard';
import { findSection } from '../sections';
import { tagName, tagPath } from '../tags';
import { useAppSelector } from '../store/hooks';

export function FrontPage() {
  const page = useAppSelector((state) => state.frontPage.page);
  if (!page) return null;
  return (
    <div className="front-page">
      <h1 className="visually-hidden">Kiosk — top stories</h1>
      {page.trendingTags.length > 0 && (
        <nav className="trending" aria-label="Trending topics">
          <ul>
            {page.trendingTags.map((tag) => (
              <li key={tag}>
                <a href={tagPath(tag)}>{tagName(tag)}</a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <section className="front-page__lead" aria-label="Top story">
        <TeaserCard teaser={page.lead} variant="lead" heading="h2" eagerImage />
      </section>
      {page.sections.map(({ section, teasers }) => {
        const name = findSection(section)?.name ?? section;
        return (
          <section key={section} className="front-page__section" aria-labelledby={`front-${section}`}>
            <h2 id={`front-${section}`} className="front-page__section-title">
              <a href={`/${section}`}>{name}</a>
            </h2>
            <div className="teaser-grid">
              {teasers.map((t, i) => (
                <TeaserCard key={t.id} teaser={t} variant={i === 0 ? 'standard' : 'compact'} />
              ))}
            </div>
          </section>
        );
      })}
    </div>
  );
}
