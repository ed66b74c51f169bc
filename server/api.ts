import express, { type Request, type Response } from 'express';
import { maxSectionPageSize, type ContentClient } from '../src/content';
import { apiRoutes, isCursor, type ApiQueryParam } from '../src/api-paths';
import { articleIdPattern, findSection, sectionSlugPattern } from '../src/sections';
import { isTagSlug } from '../src/tags';
import { answerEmpty, answerJson } from './answer';
import { cacheControl, pageLifetimes, type PageLifetimes } from './cache-policy';
import { allListTags, articleTags, frontTags, sectionTags, tagTags } from './edge/tags';
import { limitedPolicy } from './response-policy';
import { KioskError } from './errors';
import { clientAddress, clientKey } from './client-address';
import { isCrossSite } from './same-site';
import type { ViewCounter } from './views';

function queryString(req: Request, name: ApiQueryParam): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new KioskError('badRequest', `"${name}" must be given once.`);
  return value;
}

function limitParam(req: Request): number | undefined {
  const raw = queryString(req, 'limit');
  if (raw === undefined) return undefined;
  const limit = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= maxSectionPageSize)) {
    throw new KioskError('badRequest', `"limit" must be a whole number from 1 to ${maxSectionPageSize}.`);
  }
  return limit;
}

function sectionParam(req: Request) {
  const slug = String(req.params.slug);
  if (!sectionSlugPattern.test(slug)) throw new KioskError('badRequest', 'A section is lower-case letters and hyphens.');
  const section = findSection(slug);
  if (!section) throw new KioskError('notFound', `There is no section "${slug}".`);
  return section;
}

function cursorParam(req: Request): string | undefined {
  const cursor = queryString(req, 'cursor');
  if (cursor !== undefined && !isCursor(cursor)) throw new KioskError('badRequest', '"cursor" must be an article id (18 digits).');
  return cursor;
}

/** A cacheable answer: its edge lifetime and the cache tags of what it shows (server/edge/tags.ts). */
function send(req: Request, res: Response, cache: string, tags: Record<string, string>, body: unknown) {
  answerJson(req, res, 200, { 'Cache-Control': cache, ...tags }, body);
}

export interface ApiOptions {
  /** Counts article views (POST /api/views/:id); null where the store keeps no counts. */
  views: ViewCounter | null;
  /** Which X-Forwarded-For entry names the reader (CLIENT_ADDRESS_HOPS). */
  clientHops: number;
  /** The site's origin: view beacons from any other are refused. */
  siteUrl: string;
  /** Edge lifetimes (server/cache-policy.ts): the long ones while edge purge is on; the short ones unless given. */
  lifetimes?: PageLifetimes;
}

/**
 * The JSON API the browser renders from, mounted at its base. Errors reach the app's handler,
 * which answers JSON; what no route here answers is the pipeline's 405 or 404 (server/routes.ts).
 */
export function apiRouter(content: ContentClient, options: ApiOptions): express.Router {
  const api = express.Router({ caseSensitive: true, strict: true });
  const lifetimes = options.lifetimes ?? pageLifetimes(false);

  api.get(apiRoutes.front, async (req, res) => {
    send(req, res, lifetimes.front, frontTags(), await content.frontPage());
  });

  api.get(apiRoutes.section, async (req, res) => {
    const section = sectionParam(req);
    const cursor = cursorParam(req);
    const page = await content.section(section.slug, { cursor, limit: limitParam(req) });
    if (!page) throw new KioskError('notFound', `There is no section "${section.slug}".`);
    send(req, res, lifetimes.section, sectionTags(page), page);
  });

  api.get(apiRoutes.article, async (req, res) => {
    const id = String(req.params.id);
    if (!articleIdPattern.test(id)) throw new KioskError('badRequest', 'An article id is 18 digits.');
    const page = await content.articleWithTeasers(id);
    if (!page) throw new KioskError('notFound', `There is no published article ${id}.`);
    send(req, res, lifetimes.article, articleTags(page), page);
  });

  api.get(apiRoutes.tag, async (req, res) => {
    const slug = String(req.params.slug);
    if (!isTagSlug(slug)) throw new KioskError('badRequest', 'A tag is lower-case words joined by hyphens, at most 40 characters.');
    const page = await content.tag(slug, { cursor: cursorParam(req), limit: limitParam(req) });
    if (!page) throw new KioskError('notFound', `No published article is tagged "${slug}".`);
    send(req, res, lifetimes.tag, tagTags(page), page);
  });

  api.get(apiRoutes.mostRead, async (req, res) => {
    // Moves with every flush of views, which no content change announces: short-lived even with purge.
    send(req, res, lifetimes.mostRead, allListTags(), { items: await content.mostRead(limitParam(req)) });
  });

  // A beacon's answer is read by nobody: refusals are plain statuses (a 429 says when to come
  // back), and none of them is logged, however many a flood sends.
  api.post(apiRoutes.view, (req, res) => {
    res.set('Cache-Control', cacheControl.noStore);
    const id = String(req.params.id);
    if (!articleIdPattern.test(id)) throw new KioskError('badRequest', 'An article id is 18 digits.');
    if (isCrossSite(req, options.siteUrl)) throw new KioskError('crossSite', 'Views are counted from pages of this site only.');
    const views = options.views;
    if (views === null) {
      answerEmpty(req, res, 204, { 'Cache-Control': cacheControl.noStore });
      return;
    }
    const outcome = views.record(id, clientKey(clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], options.clientHops)));
    if (outcome === 'limited') {
      // The same answer as Nginx's for a client past its share (scripts/nginx/render.ts).
      answerEmpty(req, res, 429, limitedPolicy(null, views.retryAfterS()).headers);
      return;
    }
    if (outcome === 'unknown') throw new KioskError('notFound', `There is no published article ${id}.`);
    answerEmpty(req, res, 204, { 'Cache-Control': cacheControl.noStore });
  });

  api.get(apiRoutes.latest, async (req, res) => {
    send(req, res, lifetimes.latest, allListTags(), { items: await content.latest(limitParam(req)) });
  });

  return api;
}
