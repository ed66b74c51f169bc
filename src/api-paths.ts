import { articleIdPattern } from './sections';

// Kiosk's JSON API, the one place its addresses are written: the server mounts its routes
// from `apiRoutes`, and the browser and the newsroom-API adapter (which speaks to another
// Kiosk's /api) build their requests with `apiPath`. Paths are relative to the API's base,
// which is `/api` on Kiosk itself.

export const apiBase = '/api';

/** Express route patterns, relative to the base. */
export const apiRoutes = {
  front: '/front',
  section: '/sections/:slug',
  article: '/articles/:id',
  latest: '/latest',
  tag: '/tags/:slug',
  mostRead: '/most-read',
  /** POST: one reader's view of one article, sent by the browser (see server/views.ts). */
  view: '/views/:id',
} as const;

/**
 * Every query parameter the API reads (server/api.ts reads no other): CloudFront keys the API's
 * copies on exactly these (scripts/deploy/cloudfront.ts).
 */
export const apiQueryParams = ['cursor', 'limit'] as const;
export type ApiQueryParam = (typeof apiQueryParams)[number];

/** A section page's cursor is the id of the last article on the page before. */
export function isCursor(value: string): boolean {
  return articleIdPattern.test(value);
}

/** For callers that were handed a cursor by code, not by a reader: a bad one is a bug. */
export function assertCursor(cursor: string | undefined): void {
  if (cursor !== undefined && !isCursor(cursor)) {
    throw new RangeError(`section cursor must be an article id, got ${JSON.stringify(cursor)}`);
  }
}

function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Request paths, relative to the base (no leading slash, so `new URL(path, base + '/')` works). */
export const apiPath = {
  front: (): string => 'front',
  section: (slug: string, options: { cursor?: string; limit?: number } = {}): string =>
    withQuery(`sections/${encodeURIComponent(slug)}`, { limit: options.limit, cursor: options.cursor }),
  article: (id: string): string => `articles/${encodeURIComponent(id)}`,
  latest: (limit?: number): string => withQuery('latest', { limit }),
  tag: (slug: string, options: { cursor?: string; limit?: number } = {}): string =>
    withQuery(`tags/${encodeURIComponent(slug)}`, { limit: options.limit, cursor: options.cursor }),
  mostRead: (limit?: number): string => withQuery('most-read', { limit }),
  view: (id: string): string => `views/${encodeURIComponent(id)}`,
};
