import { useEffect } from 'react';
import { articlePath, type Headline, type Teaser } from '../content';
import { findSection, type Section } from '../sections';
import { useAppDispatch, useAppSelector } from '../store/hooks';
import { loadMostRead } from '../store/thunks';
import { newsletters } from '../newsletters';
import { tagName, tagPath } from '../tags';
import { useBelowFold } from './below-fold';
import { TeaserCard } from './TeaserCard';
import { Timestamp } from './Timestamp';
import { route } from '../request-kinds';

// The article page's blocks around the article itself. Those the server leaves to the browser
// under the DOM budget (most read, more from the section) keep their box and heading in the
// server's HTML, so the space is reserved (styles.css) and nothing moves when they fill in.

export function Breadcrumb({ section, title }: { section: Section | undefined; title: string }) {
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <ol>
        <li>
          <a href="/">Front page</a>
        </li>
        {section && (
          <li>
            <a href={`/${section.slug}`}>{section.name}</a>
          </li>
        )}
        <li aria-current="page">{title}</li>
      </ol>
    </nav>
  );
}

/** Plain links: no third-party script, no tracking pixel, nothing loaded until a reader clicks. */
export function ShareLinks({ path, title }: { path: string; title: string }) {
  const siteUrl = useAppSelector((state) => state.render.siteUrl);
  // The shell carries no state: the browser rendering it knows its own origin.
  const origin = siteUrl || ((globalThis as { location?: { origin: string } }).location?.origin ?? '');
  const url = encodeURIComponent(origin + path);
  const text = encodeURIComponent(title);
  return (
    <ul className="share" aria-label="Share this story">
      <li>
        <a href={`mailto:?subject=${text}&body=${url}`}>Email</a>
      </li>
      <li>
        <a href={`https://bsky.app/intent/compose?text=${text}%20${url}`} rel="noopener noreferrer">
          Bluesky
        </a>
      </li>
      <li>
        <a href={`https://www.facebook.com/sharer/sharer.php?u=${url}`} rel="noopener noreferrer">
          Facebook
        </a>
      </li>
      <li>
        <a href={`https://www.linkedin.com/sharing/share-offsite/?url=${url}`} rel="noopener noreferrer">
          LinkedIn
        </a>
      </li>
      <li>
        <a href={`https://wa.me/?text=${text}%20${url}`} rel="noopener noreferrer">
          WhatsApp
        </a>
      </li>
      <li>
        <a href={`https://x.com/intent/post?text=${text}&url=${url}`} rel="noopener noreferrer">
          X
        </a>
      </li>
    </ul>
  );
}

export function TagList({ tags }: { tags: string[] }) {
  if (tags.length === 0) return null;
  return (
    <nav className="tags" aria-labelledby="tags-heading">
      <h2 id="tags-heading">Topics</h2>
      <ul>
        {tags.map((tag) => (
          <li key={tag}>
            <a href={tagPath(tag)}>{tagName(tag)}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function ReadAlso({ teaser }: { teaser: Teaser }) {
  return (
    <p className="read-also">
      <strong>Read also:</strong> <a href={articlePath(teaser)}>{teaser.title}</a>
    </p>
  );
}

export function RelatedArticles({ teasers }: { teasers: Teaser[] }) {
  if (teasers.length === 0) return null;
  return (
    <section className="related" aria-labelledby="related-heading">
      <h2 id="related-heading">Related stories</h2>
      <div className="teaser-grid teaser-grid--related">
        {teasers.map((t) => (
          <TeaserCard key={t.id} teaser={t} variant="standard" />
        ))}
      </div>
    </section>
  );
}

export function MoreFromSection({ section, teasers }: { section: Section | undefined; teasers: Teaser[] }) {
  const shown = useBelowFold();
  if (!section || teasers.length === 0) return null;
  return (
    <section className="more-from-section below-fold" aria-labelledby="more-heading">
      <h2 id="more-heading">
        More from <a href={`/${section.slug}`}>{section.name}</a>
      </h2>
      {shown && (
        <>
          <div className="teaser-grid teaser-grid--more">
            {teasers.map((t) => (
              <TeaserCard key={t.id} teaser={t} variant="standard" />
            ))}
          </div>
          <p className="more-from-section__all">
            <a href={`/${section.slug}`}>All {section.name.toLowerCase()} stories</a>
          </p>
        </>
      )}
    </section>
  );
}

/** One line of a headline list (latest, most read): the link, then where and when. */
export function HeadlineItem({ headline, rank }: { headline: Headline; rank?: number }) {
  return (
    <li>
      {rank !== undefined && <span className="most-read__rank">{rank}</span>}
      <a href={articlePath(headline)}>{headline.title}</a>{' '}
      <span className="headline-meta">
        <a href={`/${headline.section}`}>{findSection(headline.section)?.name}</a> · <Timestamp iso={headline.publishedAt} />
      </span>
    </li>
  );
}

/**
 * The most read of the last hour. Its box is reserved while the list is on its way; a site where
 * nothing was read in the last hour (a fresh one, a quiet night) shows no box at all rather than
 * an empty one. It sits below the fold, so the box leaving moves nothing a reader is looking at.
 */
export function MostRead() {
  const shown = useBelowFold();
  const items = useAppSelector((state) => state.mostRead.items);
  const dispatch = useAppDispatch();
  useEffect(() => {
    void dispatch(loadMostRead());
  }, [dispatch]);
  if (items && items.length === 0) return null;
  return (
    <section className="most-read below-fold" aria-labelledby="most-read-heading">
      <h2 id="most-read-heading">Most read</h2>
      {shown && items && (
        <ol className="most-read__list">
          {items.map((h, i) => (
            <HeadlineItem key={h.id} headline={h} rank={i + 1} />
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * A form that posts to our own endpoint (server/newsletter.ts), which checks and records the
 * address and answers with a page: works without JavaScript, from the shell, and within the
 * Content-Security-Policy's form-action 'self'. docs/article-page.md says why not a link out.
 */
export function NewsletterSignup() {
  return (
    <section className="newsletter" aria-labelledby="newsletter-heading">
      <h2 id="newsletter-heading">The morning briefing</h2>
      <p>The day&rsquo;s stories before breakfast, once a day. Free, and one click to leave.</p>
      <form className="newsletter__form" method="post" action={route('newsletter').exact}>
        <fieldset>
          <legend>Send me</legend>
          {newsletters.map((n, i) => (
            <label key={n.id}>
              <input type="checkbox" name="newsletters" value={n.id} defaultChecked={i === 0} /> {n.name}
            </label>
          ))}
        </fieldset>
        <label htmlFor="newsletter-email">Email address</label>
        <input id="newsletter-email" name="email" type="email" required maxLength={254} autoComplete="email" />
        <button type="submit" className="button">
          Sign up
        </button>
      </form>
    </section>
  );
}
