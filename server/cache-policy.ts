import type { CachePolicyName } from '../src/request-kinds';
import type { CacheClass } from '../src/routes';

// CloudFront and browsers read these. Browsers always revalidate HTML (max-age=0); the CDN
// keeps it for a time that suits the page type, refreshes in the background, and keeps
// serving its copy for a day if the origin fails.
function shared(sMaxAgeS: number): string {
  return `public, max-age=0, s-maxage=${sMaxAgeS}, stale-while-revalidate=30, stale-if-error=86400`;
}

/**
 * The overload shell's: the CDN may hold it only briefly (SHELL_S_MAXAGE_S), so once the spike
 * passes readers get the server-rendered page again within seconds.
 */
export function shellCacheControl(sMaxAgeS: number): string {
  return `public, max-age=0, s-maxage=${sMaxAgeS}`;
}

export const cacheControl = {
  front: shared(10),
  section: shared(30),
  article: shared(60),
  // Many tags, few readers each, and a story's place on them matters less than on a section.
  tag: shared(120),
  // Short, so a story that appears moments later is not hidden behind a cached 404.
  notFound: 'public, max-age=0, s-maxage=10',
  // Content could not be fetched (503): a CDN may hold this a few seconds, which spares the
  // origin a stampede; where it has the page itself, stale-if-error serves that instead.
  contentUnavailable: 'public, max-age=0, s-maxage=5',
  assets: 'public, max-age=31536000, immutable',
  favicon: 'public, max-age=86400',
  noStore: 'private, no-store',
} as const satisfies Record<CacheClass | Exclude<CachePolicyName, 'content'> | 'contentUnavailable', string>;
