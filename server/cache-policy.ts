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

/**
 * The lifetimes without edge purge: short, since nothing tells CloudFront when a page changes
 * (a correction reaches every reader within the lifetime plus stale-while-revalidate).
 */
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

/**
 * The lifetimes when the edge is purged (server/edge/: the change feed drops every answer that
 * shows a changed article, by its cache tags, within seconds). The lifetime then bounds only what
 * no change of content announces, chosen per page type (docs/architecture.md, Cache policy):
 * - front: 10 min. Every public change purges it anyway; the lifetime bounds what the feed does
 *   not carry for the most-seen page (the clock moving past a story's time, a lost notification).
 * - section: 30 min. Purged by any change to an article that was or is in the section.
 * - tag: 1 h. Purged like a section; many tags, few readers each: the longest.
 * - article: 15 min. Its own changes purge it, and a change to any teaser it shows; a story
 *   newly published enters its side lists (latest, more from the section, related) only when
 *   this runs out, so it is the bound on how old those lists may be.
 * - latest: 10 min, like the front page (every public change purges it).
 * - most read: today's 10 s: it moves with readers' views, which no content change announces.
 * Browsers still revalidate (max-age=0), and stale-if-error is as without purge.
 */
export const purgedCacheControl = {
  front: shared(600),
  section: shared(1_800),
  tag: shared(3_600),
  article: shared(900),
  latest: shared(600),
  mostRead: cacheControl.front,
} as const;

export type PageLifetimes = { readonly [K in keyof typeof purgedCacheControl]: string };

/** Without purge, today's lifetimes; the latest and most-read lists are cached like the front page. */
const shortLifetimes: PageLifetimes = {
  front: cacheControl.front,
  section: cacheControl.section,
  tag: cacheControl.tag,
  article: cacheControl.article,
  latest: cacheControl.front,
  mostRead: cacheControl.front,
};

/**
 * The lifetimes a worker sends: the long ones only while edge purge is on (a distribution to
 * purge and a store whose change feed says what changed, edgePurgeActive in server/config.ts). An operator
 * without a distribution id keeps today's short lifetimes, never hour-old pages.
 */
export function pageLifetimes(purging: boolean): PageLifetimes {
  return purging ? purgedCacheControl : shortLifetimes;
}
