import { articlePath, type Teaser } from '../content';
import { findSection } from '../sections';
import { ResponsiveImage } from './ResponsiveImage';
import { Timestamp } from './Timestamp';

const imageSizes = { lead: '(min-width: 64rem) 44rem, 100vw', standard: '(min-width: 40rem) 20rem, 100vw', compact: '' } as const;

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
        // The picture links too, as readers expect; the headline's link is the one announced.
        <a className="teaser__image-link" href={href} tabIndex={-1} aria-hidden="true">
          <ResponsiveImage className="teaser__image" image={teaser.image} sizes={imageSizes[variant]} eager={eagerImage} />
        </a>
      )}
      <div className="teaser__text">
        <Heading className="teaser__title">
          <a href={href}>{teaser.title}</a>
        </Heading>
        {variant !== 'compact' && <p className="teaser__lead">{teaser.lead}</p>}
        <p className="teaser__meta">
          <a className="teaser__section" href={`/${teaser.section}`}>
            {findSection(teaser.section)?.name}
          </a>{' '}
          · <Timestamp iso={teaser.publishedAt} />
        </p>
      </div>
    </article>
  );
}
