import { Fragment, type ReactNode } from 'react';
import type { Block } from '../content';

/**
 * Where the "read also" links go: after the second block, where a reader decides to stay, and
 * two thirds down, where a reader who stayed is about to leave (only in bodies long enough).
 */
const readAlsoAfter = 1;
const readAlsoLaterFrom = 6;

/** Renders structured blocks as text; nothing from the store is ever parsed as HTML. */
export function ArticleBody({ blocks, readAlso, readAlsoLater }: { blocks: Block[]; readAlso?: ReactNode; readAlsoLater?: ReactNode }) {
  const later = blocks.length > readAlsoLaterFrom ? Math.floor((blocks.length * 2) / 3) : -1;
  return (
    <div className="article__body">
      {blocks.map((block, i) => (
        <Fragment key={i}>
          <BodyBlock block={block} />
          {i === Math.min(readAlsoAfter, blocks.length - 1) && readAlso}
          {i === later && readAlsoLater}
        </Fragment>
      ))}
    </div>
  );
}

function BodyBlock({ block }: { block: Block }) {
  switch (block.type) {
    case 'paragraph':
      return <p>{block.text}</p>;
    case 'subheading':
      return <h2>{block.text}</h2>;
    case 'quote':
      return (
        <figure className="article__quote">
          <blockquote>
            <p>{block.text}</p>
          </blockquote>
          <figcaption>— {block.attribution}</figcaption>
        </figure>
      );
    default:
      return null;
  }
}
