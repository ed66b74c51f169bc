import { apiBase, apiPath } from '../src/api-paths';
import type { ArticleWithTeasers, ContentClient, FrontPage, Headline, SectionPage, TagPage } from '../src/content';

export class ContentRequestError extends Error {
  override name = 'ContentRequestError';
  constructor(
    readonly url: string,
    readonly status: number,
  ) {
    super(`GET ${url} answered ${status}`);
  }
}

const timeoutMs = 10_000;

/** null for 404, the body for 2xx, and an error for anything else (the caller falls back). */
async function getJson<T>(url: string): Promise<T | null> {
  const response = await fetch(url, {
    headers: { Accept: 'application/json' },
    credentials: 'same-origin',
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status === 404) return null;
  if (!response.ok) throw new ContentRequestError(url, response.status);
  return (await response.json()) as T;
}

async function required<T>(url: string): Promise<T> {
  const body = await getJson<T>(url);
  if (body === null) throw new ContentRequestError(url, 404);
  return body;
}

function api(path: string): string {
  return `${apiBase}/${path}`;
}

/**
 * Counts this reader's view of an article (server/views.ts): a beacon, so it neither delays
 * the page nor is lost when the reader moves on, and never answered from a cache.
 */
export function countView(id: string): void {
  const url = api(apiPath.view(id));
  if (typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(url)) return;
  void fetch(url, { method: 'POST', credentials: 'same-origin', keepalive: true }).catch(() => undefined);
}

/** The browser's content client: the same interface the server implements in-process. */
export function httpContentClient(): ContentClient {
  return {
    frontPage: () => required<FrontPage>(api(apiPath.front())),
    section(slug, options = {}) {
      return getJson<SectionPage>(api(apiPath.section(slug, { cursor: options.cursor || undefined, limit: options.limit || undefined })));
    },
    async article(id) {
      return (await getJson<ArticleWithTeasers>(api(apiPath.article(id))))?.article ?? null;
    },
    articleWithTeasers: (id) => getJson<ArticleWithTeasers>(api(apiPath.article(id))),
    tag(slug, options = {}) {
      return getJson<TagPage>(api(apiPath.tag(slug, { cursor: options.cursor || undefined, limit: options.limit || undefined })));
    },
    async mostRead(limit) {
      const body = await required<{ items: Headline[] }>(api(apiPath.mostRead(limit || undefined)));
      return body.items;
    },
    async latest(limit) {
      const body = await required<{ items: Headline[] }>(api(apiPath.latest(limit || undefined)));
      return body.items;
    },
  };
}
