import type { Article } from '../src/content';
import { ingestSchemasAt, parseWith } from '../src/content-schema';
import { KioskError } from './errors';

// What the CMS may send for one article, checked field by field against the ingest profile of
// the content schema (src/content-schema.ts): unknown fields, wrong types and oversized values
// are refused with a message naming the field. The id comes from the URL and the updated time
// from the server; nothing else is filled in. Times are bounded by the request's `now` (none
// more than a few minutes ahead of it), so the schema is put together per request (~20 µs).

/** The JSON body's byte limit; Nginx allows a little more so Node answers with its own message. */
export const ingestMaxBodyBytes = 512 * 1024;

/** The CMS's article, checked against `now`, which becomes its updated time. Throws KioskError('badRequest'). */
export function parseIngestedArticle(id: string, body: unknown, now: Date): Article {
  const fields = parseWith(ingestSchemasAt(now).ingestedArticle, body, 'The article', (message) => new KioskError('badRequest', message));
  return { ...fields, id, updatedAt: now.toISOString() };
}
