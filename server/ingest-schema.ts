import type { Article, Block, Image } from '../src/content';
import { isSectionSlug } from '../src/sections';
import { KioskError } from './errors';

// What the CMS may send for one article, checked field by field: unknown fields, wrong types
// and oversized values are refused with a message naming the field. The id comes from the URL
// and the updated time from the server; nothing else is filled in.

export const ingestLimits = {
  title: 200,
  lead: 600,
  author: 120,
  imageText: 300,
  blockText: 10_000,
  blocks: 200,
  imageSide: 10_000,
} as const;

/** The JSON body's byte limit; Nginx allows a little more so Node answers with its own message. */
export const ingestMaxBodyBytes = 512 * 1024;

function fail(message: string): never {
  throw new KioskError('badRequest', message);
}

function record(value: unknown, where: string, allowed: readonly string[], required: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(`${where} must be an object.`);
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!allowed.includes(key)) fail(`${where} has an unknown field "${key.slice(0, 40)}".`);
  }
  for (const key of required) if (fields[key] === undefined) fail(`${where}.${key} is required.`);
  return fields;
}

// Text a reader sees: no control characters (tabs and newlines aside), no unpaired surrogates.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function text(value: unknown, where: string, max: number, options: { allowEmpty?: boolean } = {}): string {
  if (typeof value !== 'string') fail(`${where} must be a string.`);
  if (!options.allowEmpty && value.trim() === '') fail(`${where} must not be empty.`);
  if (value.length > max) fail(`${where} must be at most ${max} characters (got ${value.length}).`);
  if (controlCharacters.test(value)) fail(`${where} contains a control character.`);
  if (loneSurrogate.test(value)) fail(`${where} is not well-formed Unicode.`);
  return value;
}

function dimension(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > ingestLimits.imageSide) {
    fail(`${where} must be a whole number from 1 to ${ingestLimits.imageSide}.`);
  }
  return value;
}

// Images are ours (/media/...) or on https: never javascript:, data: or a protocol-relative URL.
const imageSrc = /^(\/media\/[A-Za-z0-9._-]{1,100}|https:\/\/[A-Za-z0-9.-]{1,253}(:\d{1,5})?\/[\x21-\x7e]{0,1000})$/;

/** What an image's `src` may be, wherever an article comes from (the CMS or a newsroom API). */
export function isImageSrc(src: string): boolean {
  return imageSrc.test(src) && !src.includes('"') && !src.includes('\\');
}

function image(value: unknown): Image {
  const fields = record(value, 'image', ['src', 'alt', 'caption', 'credit', 'width', 'height'], ['src', 'alt', 'width', 'height']);
  const src = text(fields.src, 'image.src', 1_200);
  if (!isImageSrc(src)) fail('image.src must be a /media/ path or an https URL.');
  return {
    src,
    alt: text(fields.alt, 'image.alt', ingestLimits.imageText, { allowEmpty: true }),
    caption: fields.caption === undefined ? '' : text(fields.caption, 'image.caption', ingestLimits.imageText, { allowEmpty: true }),
    credit: fields.credit === undefined ? '' : text(fields.credit, 'image.credit', ingestLimits.imageText, { allowEmpty: true }),
    width: dimension(fields.width, 'image.width'),
    height: dimension(fields.height, 'image.height'),
  };
}

function block(value: unknown, index: number): Block {
  const where = `body[${index}]`;
  const kind = (value as { type?: unknown } | null)?.type;
  if (kind === 'paragraph' || kind === 'subheading') {
    const fields = record(value, where, ['type', 'text'], ['text']);
    return { type: kind, text: text(fields.text, `${where}.text`, ingestLimits.blockText) };
  }
  if (kind === 'quote') {
    const fields = record(value, where, ['type', 'text', 'attribution'], ['text']);
    return {
      type: 'quote',
      text: text(fields.text, `${where}.text`, ingestLimits.blockText),
      attribution: fields.attribution === undefined ? '' : text(fields.attribution, `${where}.attribution`, ingestLimits.author, { allowEmpty: true }),
    };
  }
  fail(`${where}.type must be "paragraph", "subheading" or "quote".`);
}

function isoTime(value: unknown, where: string): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    fail(`${where} must be an ISO 8601 time with a zone, e.g. 2026-11-22T08:30:00Z.`);
  }
  const time = Date.parse(value);
  if (!Number.isFinite(time)) fail(`${where} is not a real time.`);
  return new Date(time).toISOString();
}

/** The CMS's article, checked; `now` becomes its updated time. Throws KioskError('badRequest'). */
export function parseIngestedArticle(id: string, body: unknown, now: Date): Article {
  const fields = record(
    body,
    'The article',
    ['section', 'status', 'title', 'lead', 'author', 'image', 'publishedAt', 'body'],
    ['section', 'status', 'title', 'lead', 'author', 'image', 'publishedAt', 'body'],
  );
  if (typeof fields.section !== 'string' || !isSectionSlug(fields.section)) fail('section must be one of the site\'s sections.');
  if (fields.status !== 'published' && fields.status !== 'draft') fail('status must be "published" or "draft".');
  if (!Array.isArray(fields.body)) fail('body must be an array of blocks.');
  if (fields.body.length === 0 || fields.body.length > ingestLimits.blocks) fail(`body must have 1 to ${ingestLimits.blocks} blocks.`);
  return {
    id,
    section: fields.section,
    status: fields.status,
    title: text(fields.title, 'title', ingestLimits.title),
    lead: text(fields.lead, 'lead', ingestLimits.lead),
    author: text(fields.author, 'author', ingestLimits.author),
    image: image(fields.image),
    publishedAt: isoTime(fields.publishedAt, 'publishedAt'),
    updatedAt: now.toISOString(),
    body: fields.body.map(block),
  };
}
