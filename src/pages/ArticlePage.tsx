import { Breadcrumb, MoreFromSection, MostRead, NewsletterSignup, ReadAlso, RelatedArticles, ShareLinks, TagList } from '../components/article-blocks';
import { ArticleBody } from '../components/ArticleBody';
import { LatestList } from '../components/LatestList';
import { ResponsiveImage } from '../components/ResponsiveImage';
import { Timestamp } from '../components/Timestamp';
import { articlePath } from '../content';
import { findSection } from '../sections';
import { useAppSelector } from '../store/hooks';
import { entryOf } from '../store/keyed';

/** The hero spans the main column: the whole viewport on a phone, about two thirds on a desktop. */
const heroSizes = '(min-width: 64rem) 44rem, 100vw';

export function ArticlePage({ id }: { id: string }) {
  const article = useAppSelector((state) => entryOf(state.articles, id));
  const teasers = useAppSelector((state) => entryOf(state.articleTeasers, id));
  if (!article) return null;
  const section = findSection(article.section);
  const updated = article.updatedAt !== article.publishedAt;
  const related = teasers?.related ?? [];
  const [readAlso, readAlsoLater] = related;
  return (
    <div className="article-page">
      <div className="article-page__main">
        <Breadcrumb section={section} title={article.title} />
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
              <span className="article__author">By {article.author}</span> · <Timestamp iso={article.publishedAt} label="Published" />
              {updated && (
                <>
                  {' '}
                  · <Timestamp iso={article.updatedAt} label="Updated" />
                </>
              )}
            </p>
            <ShareLinks path={articlePath(article)} title={article.title} />
          </header>
          <figure className="article__figure">
            <ResponsiveImage image={article.image} sizes={heroSizes} eager priority />
            <figcaption>
              {article.image.caption} <span className="article__credit">{article.image.credit}</span>
            </figcaption>
          </figure>
          <ArticleBody
            blocks={article.body}
            readAlso={readAlso && <ReadAlso teaser={readAlso} />}
            readAlsoLater={readAlsoLater && <ReadAlso teaser={readAlsoLater} />}
          />
          <footer className="article__footer">
            <TagList tags={article.tags} />
            <p className="article__corrections">
              Spotted a mistake? <a href="mailto:corrections@kiosk.example">Tell the corrections desk</a>.
            </p>
          </footer>
        </article>
        <RelatedArticles teasers={related} />
        <MoreFromSection section={section} teasers={teasers?.moreFromSection ?? []} />
      </div>
      <div className="article-page__aside">
        <LatestList excludeId={article.id} />
        <MostRead />
        <NewsletterSignup />
      </div>
    </div>
  );
}
