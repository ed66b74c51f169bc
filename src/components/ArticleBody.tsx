import type { Block } from '../content';

/** Renders structured blocks as text; nothing from the store is ever parsed as HTML. */
export function ArticleBody({ blocks }: { blocks: Block[] }) {
  return (
    <div className="article__body">
      {blocks.map((block, i) => {
        switch (block.type) {
          case 'paragraph':
            return <p key={i}>{block.text}</p>;
          case 'subheading':
            return <h2 key={i}>{block.text}</h2>;
          case 'quote':
            return (
              <figure key={i} className="article__quote">
                <blockquote>
                  <p>{block.text}</p>
                </blockquote>
                <figcaption>— {block.attribution}</figcaption>
              </figure>
            );
          default:
            return null;
        }
      })}
    </div>
  );
}
