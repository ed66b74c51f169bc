import { articlePath, type Teaser } from '../content';
import { findSection } from '../sections';
import { Timestamp } from './Timestamp';

type HeadingLevel = 'h2' | 'h3';

export function TeaserCard({
  teaser,
  variant = 'standard',
  heading: Heading = 'h3',
  eagerImage = false,
}: {
  teaser: Teaser;
  variant?: 'lead' | 'standard' | 'compact';
  heading?: HeadingLevel;
  eagerImage?: boolean;
}) {
  const href = articlePath(teaser);
  return (
    <article className={`teaser teaser--${variant}`}>
      {variant !== 'compact' && (
        <img
          className="teaser__image"
          src={teaser.image.src}
          alt={teaser.image.alt}
          width={teaser.image.width}
          height={teaser.image.height}
          loading={eagerImage ? 'eager' : 'lazy'}
          decoding="async"
        />
      )}
      <div className="teaser__text">
        <Heading className="teaser__title">
          <a href={href}>{teaser.title}</a>
        </Heading>
        {variant !== 'compact' && <p className="teaser__lead">{teaser.lead}</p>}
        <p className="teaser__meta">
          <span className="teaser__section">{findSection(teaser.section)?.name}</span> · <Timestamp iso={teaser.publishedAt} />
        </p>
      </div>
    </article>
  );
}
