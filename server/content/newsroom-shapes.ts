import type { Article, Block, FrontPage, Headline, Image, SectionPage, Teaser } from '../../src/content';
import { articleIdPattern, isSectionSlug, type SectionSlug } from '../../src/sections';
import { isImageSrc } from '../ingest-schema';

// What the newsroom API answers, checked before a page renders from it. Every object is
// rebuilt field by field, so fields the API adds are dropped (they would otherwise travel into
// every page's serialized state) and a wrong type anywhere fails the whole answer: a page is
// rendered from a complete answer or not at all. Bounds keep one bad answer from costing a
// render more than a real one would.

export class ShapeError extends Error {
  override name = 'ShapeError';
  constructor(where: string, expected: string) {
    super(`${where} must be ${expected}`);
  }
}

const maxShortText = 2_000;
const maxBlockText = 100_000;
const maxBlocks = 1_000;
const maxListItems = 200;

type Fields = Record<string, unknown>;

function object(value: unknown, where: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ShapeError(where, 'an object');
  return value as Fields;
}

function list(value: unknown, where: string, max: number): unknown[] {
  if (!Array.isArray(value) || value.length > max) throw new ShapeError(where, `an array of at most ${max}`);
  return value;
}

function text(value: unknown, where: string, max = maxShortText): string {
  if (typeof value !== 'string' || value.length > max) throw new ShapeError(where, `a string of at most ${max} characters`);
  return value;
}

function id(value: unknown, where: string): string {
  if (typeof value !== 'string' || !articleIdPattern.test(value)) throw new ShapeError(where, 'an article id (18 digits)');
  return value;
}

function section(value: unknown, where: string): SectionSlug {
  if (typeof value !== 'string' || !isSectionSlug(value)) throw new ShapeError(where, "one of the site's sections");
  return value;
}

function time(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length > 40 || !Number.isFinite(Date.parse(value))) throw new ShapeError(where, 'an ISO 8601 time');
  return value;
}

function dimension(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100_000) throw new ShapeError(where, 'a whole number of pixels');
  return value;
}

function image(value: unknown, where: string): Image {
  const fields = object(value, where);
  const src = text(fields.src, `${where}.src`);
  if (!isImageSrc(src)) throw new ShapeError(`${where}.src`, 'a /media/ path or an https URL');
  return {
    src,
    alt: text(fields.alt, `${where}.alt`),
    caption: text(fields.caption, `${where}.caption`),
    credit: text(fields.credit, `${where}.credit`),
    width: dimension(fields.width, `${where}.width`),
    height: dimension(fields.height, `${where}.height`),
  };
}

function headline(value: unknown, where: string): Headline {
  const fields = object(value, where);
  return {
    id: id(fields.id, `${where}.id`),
    section: section(fields.section, `${where}.section`),
    title: text(fields.title, `${where}.title`),
    publishedAt: time(fields.publishedAt, `${where}.publishedAt`),
  };
}

function teaser(value: unknown, where: string): Teaser {
  const fields = object(value, where);
  return {
    ...headline(fields, where),
    lead: text(fields.lead, `${where}.lead`),
    image: image(fields.image, `${where}.image`),
  };
}

function block(value: unknown, where: string): Block {
  const fields = object(value, where);
  const content = text(fields.text, `${where}.text`, maxBlockText);
  if (fields.type === 'paragraph' || fields.type === 'subheading') return { type: fields.type, text: content };
  if (fields.type === 'quote') return { type: 'quote', text: content, attribution: text(fields.attribution, `${where}.attribution`) };
  throw new ShapeError(`${where}.type`, '"paragraph", "subheading" or "quote"');
}

/** `GET {api}/front` */
export function parseFrontPage(body: unknown): FrontPage {
  const fields = object(body, 'front');
  return {
    lead: teaser(fields.lead, 'front.lead'),
    sections: list(fields.sections, 'front.sections', maxListItems).map((value, i) => {
      const entry = object(value, `front.sections[${i}]`);
      return {
        section: section(entry.section, `front.sections[${i}].section`),
        teasers: list(entry.teasers, `front.sections[${i}].teasers`, maxListItems).map((t, j) => teaser(t, `front.sections[${i}].teasers[${j}]`)),
      };
    }),
  };
}

/** `GET {api}/sections/:slug`: the section asked for, at most `limit` items. */
export function parseSectionPage(body: unknown, slug: SectionSlug, limit: number): SectionPage {
  const fields = object(body, 'section');
  if (fields.section !== slug) throw new ShapeError('section.section', `"${slug}", the section asked for`);
  return {
    section: slug,
    items: list(fields.items, 'section.items', limit).map((t, i) => teaser(t, `section.items[${i}]`)),
    nextCursor: fields.nextCursor === null ? null : id(fields.nextCursor, 'section.nextCursor'),
  };
}

/** `GET {api}/articles/:id`: the article asked for; null if the API calls it anything but published. */
export function parsePublishedArticle(body: unknown, articleId: string): Article | null {
  const fields = object(object(body, 'body').article, 'article');
  if (fields.id !== articleId) throw new ShapeError('article.id', `${articleId}, the article asked for`);
  if (fields.status !== 'published' && fields.status !== 'draft') throw new ShapeError('article.status', '"published" or "draft"');
  if (fields.status !== 'published') return null;
  return {
    ...teaser(fields, 'article'),
    author: text(fields.author, 'article.author'),
    updatedAt: time(fields.updatedAt, 'article.updatedAt'),
    body: list(fields.body, 'article.body', maxBlocks).map((b, i) => block(b, `article.body[${i}]`)),
    status: 'published',
  };
}

/** `GET {api}/latest?limit=`: at most `limit` headlines. */
export function parseLatest(body: unknown, limit: number): Headline[] {
  return list(object(body, 'latest').items, 'latest.items', limit).map((h, i) => headline(h, `latest.items[${i}]`));
}
