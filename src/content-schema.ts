import * as v from 'valibot';
import { route } from './request-kinds';
import { articleIdPattern, sections, type SectionSlug } from './sections';
import { maxTagsPerArticle, tagSlugPattern } from './tags';

// The article and the API's answers, written once. Two profiles of the same shapes:
// - `ingest`, what the CMS may send: unknown fields refused, every text non-empty (unless
//   optional), free of control characters and well-formed, within tight limits; optional
//   texts default to ''; times strict ISO 8601 with a zone naming a real calendar time no more
//   than a few minutes ahead of the server's clock (publishedAt not before 1990), normalised to UTC.
// - `answer`, what the newsroom API may answer: unknown fields dropped (they would otherwise
//   travel into every page's serialized state), every field required, loose bounds that keep
//   one bad answer from costing a render more than a real one would.
// The TypeScript types of src/content.ts are the answer profile's output: what crosses the wire.
//
// valibot was chosen over zod and TypeBox by measurement (the ingest article schema, bundled
// with esbuild --minify for the browser; one valid 12-block article parsed 50,000 times on
// Node 24): valibot 8.1 KB minified / 2.7 KB gzipped, 13 µs a parse; zod/mini 27.6 KB / 8.9 KB,
// 19 µs; zod (classic) 455 KB / 93 KB, 11 µs; TypeBox (compiled) 93 KB / 23 KB, 25 µs. The
// browser bundle imports only the types, so it carries none of it today; the server build
// bundles valibot (webpack.config.js says why).

export type Profile = 'ingest' | 'answer';

export const contentLimits = {
  ingest: { title: 200, lead: 600, author: 120, imageText: 300, imageSrc: 1_200, blockText: 10_000, blocks: 200, imageSide: 10_000 },
  answer: { title: 2_000, lead: 2_000, author: 2_000, imageText: 2_000, imageSrc: 2_000, blockText: 100_000, blocks: 1_000, imageSide: 100_000 },
} as const;

/** Items in one list of an API answer (front-page sections and teasers, section items, headlines). */
const maxListItems = 200;

// Images are ours (under the route table's media prefix) or on https: never javascript:, data: or
// a protocol-relative URL. The prefix is a plain path, escaped anyway.
const mediaPrefix = route('media').prefix!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const imageSrcPattern = new RegExp(`^(${mediaPrefix}[A-Za-z0-9._-]{1,100}|https://[A-Za-z0-9.-]{1,253}(:\\d{1,5})?/[\\x21-\\x7e]{0,1000})$`);

/** What an image's `src` may be, wherever an article comes from (the CMS or a newsroom API). */
export function isImageSrc(src: string): boolean {
  return imageSrcPattern.test(src) && !src.includes('"') && !src.includes('\\');
}

// Text a reader sees: no control characters, C0, DEL or C1 (tabs and newlines aside), no
// unpaired surrogates. C1 matters as much as C0: U+0085 is a line break to some readers and
// U+009B starts a terminal escape sequence, so either would show differently in different places.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const isoTimeWithZone = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** How far ahead of the server's clock an ingested time may be: clock skew, not scheduling. */
export const ingestClockSkewMs = 5 * 60_000;
/** The earliest `publishedAt` the CMS may send; the archive starts later, so anything before is a typo. */
export const earliestPublishedAt = '1990-01-01T00:00:00.000Z';

/**
 * The UTC instant of a strict ISO 8601 time with a zone, or NaN unless every field is a real
 * one: Date.parse rolls 30 February over into March and 24:00 into the next day, so the fields
 * are put together here and read back, and any that moved means the text named no such time.
 */
export function calendarTime(text: string): number {
  const match = isoTimeWithZone.exec(text);
  if (!match) return NaN;
  const [year, month, day, hour, minute, second = '0', fraction = '0', sign, offsetHours = '0', offsetMinutes = '0'] = match.slice(1);
  const fields = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const ms = Number(fraction.padEnd(3, '0'));
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  date.setUTCFullYear(fields[0], fields[1] - 1, fields[2]);
  date.setUTCHours(fields[3], fields[4], fields[5], ms);
  const readBack = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()];
  if (readBack.some((field, i) => field !== fields[i])) return NaN;
  const offset = Number(offsetHours) * 60 + Number(offsetMinutes);
  // Real zones run from UTC-12:00 to UTC+14:00.
  if (Number(offsetMinutes) > 59 || offset > 14 * 60) return NaN;
  return date.getTime() - (sign === '-' ? -offset : offset) * 60_000;
}

const sectionSlugs = sections.map((s) => s.slug) as [SectionSlug, ...SectionSlug[]];

/** `now` is the server's clock for the ingest profile's time bounds; read when a time is checked. */
function schemasFor(profile: Profile, now: () => Date = () => new Date()) {
  const ingest = profile === 'ingest';
  const limits = contentLimits[profile];

  // An array is an object to valibot, never to us.
  const notArray = v.check((value: unknown) => !Array.isArray(value), 'must be an object');
  const rawObject = <E extends v.ObjectEntries>(entries: E) => (ingest ? v.strictObject(entries) : v.object(entries));
  const object = <E extends v.ObjectEntries>(entries: E) => v.pipe(v.unknown(), notArray, rawObject(entries));

  const text = (max: number, options: { allowEmpty?: boolean } = {}) =>
    ingest
      ? v.pipe(
          v.string('must be a string'),
          v.check((value) => options.allowEmpty === true || value.trim() !== '', 'must not be empty'),
          v.maxLength(max, (issue) => `must be at most ${max} characters (got ${issue.received})`),
          v.check((value) => !controlCharacters.test(value), 'contains a control character'),
          v.check((value) => !loneSurrogate.test(value), 'is not well-formed Unicode'),
        )
      : v.pipe(v.string(`must be a string of at most ${max} characters`), v.maxLength(max, `must be a string of at most ${max} characters`));

  /** Text the CMS may leave out (it becomes ''); the newsroom API must send it. */
  const optionalText = (max: number) => (ingest ? v.optional(text(max, { allowEmpty: true }), '') : text(max));

  const latestMessage = `must not be more than ${ingestClockSkewMs / 60_000} minutes ahead of the server's clock`;
  const time = ingest
    ? v.pipe(
        v.string('must be an ISO 8601 time with a zone, e.g. 2026-11-22T08:30:00Z'),
        v.regex(isoTimeWithZone, 'must be an ISO 8601 time with a zone, e.g. 2026-11-22T08:30:00Z'),
        v.check((value) => Number.isFinite(calendarTime(value)), 'is not a real time (check the day of the month, the hour and the zone)'),
        v.check((value) => calendarTime(value) <= now().getTime() + ingestClockSkewMs, latestMessage),
        v.transform((value) => new Date(calendarTime(value)).toISOString()),
      )
    : v.pipe(
        v.string('must be an ISO 8601 time'),
        v.check((value) => value.length <= 40 && Number.isFinite(Date.parse(value)), 'must be an ISO 8601 time'),
      );

  const dimensionMessage = ingest ? `must be a whole number from 1 to ${limits.imageSide}` : 'must be a whole number of pixels';
  const dimension = v.pipe(
    v.number(dimensionMessage),
    v.integer(dimensionMessage),
    v.minValue(1, dimensionMessage),
    v.maxValue(limits.imageSide, dimensionMessage),
  );

  /** A list of at most `max` (and, where given, at least `min`) items. */
  const list = <T extends v.GenericSchema>(item: T, max: number, options: { min?: number; notArray?: string; count?: string } = {}) => {
    const count = options.count ?? `must be an array of at most ${max}`;
    return v.pipe(v.array(item, options.notArray ?? count), v.minLength(options.min ?? 0, count), v.maxLength(max, count));
  };

  const id = v.pipe(v.string('must be an article id (18 digits)'), v.regex(articleIdPattern, 'must be an article id (18 digits)'));
  const section = v.picklist(sectionSlugs, "must be one of the site's sections");
  const status = v.picklist(['published', 'draft'], 'must be "published" or "draft"');
  const tag = v.pipe(
    v.string('must be a tag (lower-case words joined by hyphens, at most 40 characters)'),
    v.regex(tagSlugPattern, 'must be a tag (lower-case words joined by hyphens, at most 40 characters)'),
  );
  const tagList = v.pipe(
    list(tag, maxTagsPerArticle, { count: `must be an array of at most ${maxTagsPerArticle} tags` }),
    v.check((tags) => new Set(tags).size === tags.length, 'must not name a tag twice'),
  );

  const image = object({
    src: v.pipe(text(limits.imageSrc), v.check(isImageSrc, `must be a ${route('media').prefix} path or an https URL`)),
    alt: ingest ? text(limits.imageText, { allowEmpty: true }) : text(limits.imageText),
    caption: optionalText(limits.imageText),
    credit: optionalText(limits.imageText),
    width: dimension,
    height: dimension,
  });

  // A year-9999 typo would pin a story at the top of every list; 0000 would bury it.
  const publishedAt = ingest
    ? v.pipe(
        time,
        v.check((value) => Date.parse(value) >= Date.parse(earliestPublishedAt), `must not be before ${earliestPublishedAt.slice(0, 10)}`),
      )
    : time;

  const headlineEntries = { id, section, title: text(limits.title), publishedAt };
  const headline = object(headlineEntries);
  const teaserEntries = { ...headlineEntries, lead: text(limits.lead), image };
  const teaser = object(teaserEntries);

  /** Article bodies are structured blocks; no HTML is ever stored or rendered raw. */
  const block = v.variant(
    'type',
    [
      rawObject({ type: v.picklist(['paragraph', 'subheading']), text: text(limits.blockText) }),
      rawObject({ type: v.literal('quote'), text: text(limits.blockText), attribution: optionalText(limits.author) }),
    ],
    'must be "paragraph", "subheading" or "quote"',
  );

  const articleEntries = {
    ...teaserEntries,
    author: text(limits.author),
    updatedAt: time,
    // The CMS may leave tags out (an article without topics); the API always sends the list.
    tags: ingest ? v.optional(tagList, () => []) : tagList,
    body: ingest
      ? list(block, limits.blocks, { min: 1, notArray: 'must be an array of blocks', count: `must have 1 to ${limits.blocks} blocks` })
      : list(block, limits.blocks),
    status,
  };

  const { id: _id, updatedAt: _updatedAt, ...sentByTheCms } = articleEntries; // eslint-disable-line @typescript-eslint/no-unused-vars -- left out on purpose

  return {
    id,
    status,
    image,
    headline,
    teaser,
    block,
    article: object(articleEntries),
    /** The article without its id (from the URL) and updated time (the server's), with the CMS's own last-modified time of it. */
    ingestedArticle: object({ ...sentByTheCms, modifiedAt: time }),
    /** `DELETE /api/ingest/articles/:id`'s query: the CMS's last-modified time of the story it takes off the site. */
    unpublishQuery: object({ modifiedAt: time }),
    /** `GET {api}/front` */
    frontPage: object({
      lead: teaser,
      sections: list(object({ section, teasers: list(teaser, maxListItems) }), maxListItems),
      trendingTags: list(tag, maxListItems),
    }),
    /** `GET {api}/sections/:slug` */
    sectionPage: object({ section, items: list(teaser, maxListItems), nextCursor: v.nullable(id) }),
    /** `GET {api}/tags/:slug` */
    tagPage: object({ tag, items: list(teaser, maxListItems), nextCursor: v.nullable(id) }),
    /** `GET {api}/articles/:id`: the article and the teasers its page shows, in one answer. */
    articleAnswer: object({
      article: object(articleEntries),
      related: list(teaser, maxListItems),
      moreFromSection: list(teaser, maxListItems),
    }),
    /** `GET {api}/latest` and `GET {api}/most-read` */
    latest: object({ items: list(headline, maxListItems) }),
  };
}

/** What the CMS may send, its times bounded by the clock at the moment each is checked. */
export const ingestSchemas = schemasFor('ingest');

/** What the CMS may send, its times bounded by `now` (the request's time). */
export function ingestSchemasAt(now: Date): typeof ingestSchemas {
  return schemasFor('ingest', () => now);
}

/** What the newsroom API may answer; also the wire types' source. */
export const answerSchemas = schemasFor('answer');

type AnswerSchemas = typeof answerSchemas;
export type ImageShape = v.InferOutput<AnswerSchemas['image']>;
export type HeadlineShape = v.InferOutput<AnswerSchemas['headline']>;
export type TeaserShape = v.InferOutput<AnswerSchemas['teaser']>;
export type BlockShape = v.InferOutput<AnswerSchemas['block']>;
export type ArticleShape = v.InferOutput<AnswerSchemas['article']>;
export type FrontPageShape = v.InferOutput<AnswerSchemas['frontPage']>;
export type SectionPageShape = v.InferOutput<AnswerSchemas['sectionPage']>;
export type TagPageShape = v.InferOutput<AnswerSchemas['tagPage']>;
export type ArticleAnswerShape = v.InferOutput<AnswerSchemas['articleAnswer']>;

function pathOf(path: readonly v.IssuePathItem[] = []): string {
  let where = '';
  for (const item of path) {
    const key = (item as { key: unknown }).key;
    where += typeof key === 'number' ? `[${key}]` : `${where === '' ? '' : '.'}${String(key)}`;
  }
  return where;
}

/**
 * One sentence naming the field: "title must be at most 200 characters (got 201).",
 * "body[0] has an unknown field "html".", "image.src is required.". `root` names the whole
 * value; with `prefix` it also leads every field's path (`front.lead.title`).
 */
export function describeIssue(issue: v.BaseIssue<unknown>, root: string, prefix = false): string {
  const path = pathOf(issue.path);
  const where = (within: string) => (within === '' ? root : prefix ? `${root}${within.startsWith('[') ? '' : '.'}${within}` : within);
  if (issue.type === 'object' || issue.type === 'strict_object') {
    if (issue.expected === 'never') {
      const parent = where(pathOf(issue.path?.slice(0, -1)));
      return `${parent} has an unknown field "${String(issue.input).slice(0, 40)}".`;
    }
    if (issue.received === 'undefined' && issue.path !== undefined) return `${where(path)} is required.`;
    return `${where(path)} must be an object.`;
  }
  return `${where(path)} ${issue.message}.`;
}

/** Parses against `schema`, or throws `toError` of the first problem's sentence. */
export function parseWith<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  root: string,
  toError: (message: string) => Error,
  prefix = false,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  throw toError(describeIssue(result.issues[0], root, prefix));
}
