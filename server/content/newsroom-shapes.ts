import * as v from 'valibot';
import type { ArticleWithTeasers, FrontPage, Headline, SectionPage, TagPage } from '../../src/content';
import { answerSchemas, parseWith } from '../../src/content-schema';
import type { SectionSlug } from '../../src/sections';

// What the newsroom API answers, checked before a page renders from it against the answer
// profile of the content schema (src/content-schema.ts). Every object is rebuilt field by
// field, so fields the API adds are dropped (they would otherwise travel into every page's
// serialized state) and a wrong type anywhere fails the whole answer: a page is rendered from a
// complete answer or not at all. Bounds keep one bad answer from costing a render more than a
// real one would.

export class ShapeError extends Error {
  override name = 'ShapeError';
}

const toShapeError = (message: string) => new ShapeError(message);

/** `GET {api}/front` */
export function parseFrontPage(body: unknown): FrontPage {
  return parseWith(answerSchemas.frontPage, body, 'front', toShapeError, true);
}

/** `GET {api}/sections/:slug`: the section asked for, at most `limit` items. */
export function parseSectionPage(body: unknown, slug: SectionSlug, limit: number): SectionPage {
  const page = parseWith(answerSchemas.sectionPage, body, 'section', toShapeError, true);
  if (page.section !== slug) throw new ShapeError(`section.section must be "${slug}", the section asked for.`);
  if (page.items.length > limit) throw new ShapeError(`section.items must be an array of at most ${limit}.`);
  return page;
}

const articleStatus = v.object({ article: v.object({ id: answerSchemas.id, status: answerSchemas.status }) });

/** `GET {api}/articles/:id`: the article asked for and its page's teasers; null if the API calls it anything but published. */
export function parsePublishedArticle(body: unknown, articleId: string): ArticleWithTeasers | null {
  const { article: asked } = parseWith(articleStatus, body, 'body', toShapeError);
  if (asked.id !== articleId) throw new ShapeError(`article.id must be ${articleId}, the article asked for.`);
  if (asked.status !== 'published') return null;
  return parseWith(answerSchemas.articleAnswer, body, 'body', toShapeError);
}

/** `GET {api}/tags/:slug`: the tag asked for, at most `limit` items. */
export function parseTagPage(body: unknown, slug: string, limit: number): TagPage {
  const page = parseWith(answerSchemas.tagPage, body, 'tag', toShapeError, true);
  if (page.tag !== slug) throw new ShapeError(`tag.tag must be "${slug}", the tag asked for.`);
  if (page.items.length > limit) throw new ShapeError(`tag.items must be an array of at most ${limit}.`);
  return page;
}

/** `GET {api}/latest?limit=` and `GET {api}/most-read?limit=`: at most `limit` headlines. */
export function parseLatest(body: unknown, limit: number, root = 'latest'): Headline[] {
  const { items } = parseWith(answerSchemas.latest, body, root, toShapeError, true);
  if (items.length > limit) throw new ShapeError(`${root}.items must be an array of at most ${limit}.`);
  return items;
}
