import { ArticleBody } from '../components/ArticleBody';
import { LatestList } from '../components/LatestList';
import { Timestamp } from '../components/Timestamp';
import { findSection } from '../sections';
import { useAppSelector } from '../store/hooks';

export function ArticlePage({ id }: { id: string }) {
  const article = useAppSelector((state) => state.articles[id]);
  if (!article) return null;
  const section = findSection(article.section);
  const updated = article.updatedAt !== article.publishedAt;
  return (
    <div className="article-page">
      <article className="article">
        <header className="article__header">
          {section && (
            <p className="article__section">
              <a href={`/${section.slug}`}>{section.name}</a>
            </p>
          )}
          <h1 className="article__title">{article.title}</h1>
          <p className="article__lead">{article.lead}</p>
          <p className="article__byline">
            <span className="article__author">{article.author}</span> · <Timestamp iso={article.publishedAt} label="Published" />
            {updated && (
              <>
                {' '}
                · <Timestamp iso={article.updatedAt} label="Updated" />
              </>
            )}
          </p>
        </header>
        <figure className="article__figure">
          <img src={article.image.src} alt={article.image.alt} width={article.image.width} height={article.image.height} fetchPriority="high" />
          <figcaption>
            {article.image.caption} <span className="article__credit">{article.image.credit}</span>
          </figcaption>
        </figure>
        <ArticleBody blocks={article.body} />
      </article>
      <LatestList excludeId={article.id} />
    </div>
  );
}
